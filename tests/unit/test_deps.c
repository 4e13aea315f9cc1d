#include "check.h"
#include "buf.h"
#include "key/deps.h"
#include "util.h"

#include <stdlib.h>

/* The prerequisites of text, joined with '|'. */
static char *parsed(const char *text)
{
	struct strvec out;
	struct buf b = BUF_INIT;

	strvec_init(&out);
	deps_parse(text, strlen(text), &out);
	for (size_t i = 0; i < out.nr; i++)
		buf_addf(&b, "%s%s", i ? "|" : "", out.v[i]);
	strvec_release(&out);
	return b.s ? buf_detach(&b) : xstrdup("");
}

static void check_parse(const char *text, const char *want)
{
	char *got = parsed(text);

	CHECK_STR(got, want);
	free(got);
}

/* The words deps_user_option drops at each place of a command. */
static void test_user_option(void)
{
	static const char *words[] = {
		"g++", "-MD", "-MMD", "-MF", "user.d", "-MFjoined.d", "-Wp,-MMD,x.d", "-Wp,-MD,x.d",
		"-Wp,-MMD,x.d,-DA", "-Wp,-DA", "-MP", "-MT", "t", "-M", "-MF", "-o", "{out}", "a.c",
	};
	static const size_t want[] = { 0, 1, 1, 2, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0 };
	struct strvec argv;

	strvec_init(&argv);
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		strvec_push(&argv, words[i]);
	for (size_t i = 1; i < argv.nr; i++)
		CHECK_INT(deps_user_option(&argv, i), want[i]);
	strvec_release(&argv);
}

static void test_parse(void)
{
	/* gcc -MD -MF: one rule, continued lines, the target left out. */
	check_parse("x.so: k/a.cpp /usr/include/stdc-predef.h \\\n inc/b.h\n",
		    "k/a.cpp|/usr/include/stdc-predef.h|inc/b.h");
	/* Escaped blanks and dollars, as gcc writes them. */
	check_parse("out: my\\ dir/a\\ b.h cost$$1.h \\#x.h\n", "my dir/a b.h|cost$1.h|#x.h");
	/* SUNPRO_DEPENDENCIES: one rule per source; repeats listed once. */
	check_parse("kwarm-deps: /usr/include/stdc-predef.h a.h\nkwarm-deps: /usr/include/stdc-predef.h b.h\n",
		    "/usr/include/stdc-predef.h|a.h|b.h");
	/* A ':' inside a path that is not the rule's colon. */
	check_parse("t: dir/x:y.h z.h", "dir/x:y.h|z.h");
	/* gcc's quoting of backslashes: doubled before an escaped blank (2N+1
	 * backslashes: N and the blank; 2N: N, and the name ends), one more
	 * before '#', as they are elsewhere. */
	check_parse("t: w\\\\\\ .h e\\\\#.h b\\s.h x\\ y\\.h a\\\\ b\n",
		    "w\\ .h|e\\#.h|b\\s.h|x y\\.h|a\\|b");
	/* Nothing after the colon, no final newline. */
	check_parse("t:", "");
	check_parse("", "");
}

static void test_family(void)
{
	CHECK_INT(deps_family_detect("/nowhere/g++"), DEPS_GCC);
	CHECK_INT(deps_family_detect("/nowhere/x86_64-linux-gnu-gcc-12"), DEPS_GCC);
	CHECK_INT(deps_family_detect("cc"), DEPS_GCC);
	CHECK_INT(deps_family_detect("/nowhere/clang++-14"), DEPS_CLANG);
	CHECK_INT(deps_family_detect("/nowhere/kwarm-standin"), DEPS_NONE);
	CHECK_INT(deps_family_detect("/nowhere/tcc"), DEPS_NONE);
	CHECK_INT(deps_family_named("/usr/bin/x86_64-linux-gnu-gcc-12"), DEPS_GCC);
	CHECK_INT(deps_family_named("clang-14"), DEPS_CLANG);
	CHECK_INT(deps_family_named("/usr/bin/tcc"), DEPS_NONE);
	CHECK_INT(deps_family_parse("gcc"), DEPS_GCC);
	CHECK_INT(deps_family_parse("none"), DEPS_NONE);
	CHECK_INT(deps_family_parse("msvc"), -1);
}

static void test_request(void)
{
	struct strvec argv, env;

	strvec_init(&argv);
	strvec_init(&env);
	/* One source: -MD -MF for both families. */
	CHECK_INT(deps_request(DEPS_CLANG, 1, "d", &argv, &env), 0);
	CHECK_INT(argv.nr, 3);
	CHECK_INT(env.nr, 0);
	/* Several: gcc appends per source through its variable; clang cannot. */
	CHECK_INT(deps_request(DEPS_GCC, 2, "d", &argv, &env), 0);
	CHECK_INT(env.nr, 2);
	CHECK_STR(env.v[0], "SUNPRO_DEPENDENCIES=d kwarm-deps");
	CHECK_STR(env.v[1], "DEPENDENCIES_OUTPUT");	/* unset: it would win */
	CHECK_INT(deps_request(DEPS_CLANG, 2, "d", &argv, &env), -1);
	CHECK_INT(deps_request(DEPS_NONE, 1, "d", &argv, &env), -1);
	CHECK_INT(argv.nr, 3);
	strvec_release(&argv);
	strvec_release(&env);
}

/* deps_clang_names of one name under root, joined with '|'. */
static char *clang_names(const char *root, const char *name)
{
	struct strvec in = STRVEC_INIT, out = STRVEC_INIT;
	struct buf b = BUF_INIT;

	strvec_push(&in, name);
	deps_clang_names(root, &in, &out);
	for (size_t i = 0; i < out.nr; i++)
		buf_addf(&b, "%s%s", i ? "|" : "", out.v[i]);
	strvec_release(&in);
	strvec_release(&out);
	return buf_detach(&b);
}

static void check_clang(const char *root, const char *name, const char *want)
{
	char *got = clang_names(root, name);

	CHECK_STR(got, want);
	free(got);
}

static void test_clang_names(void)
{
	static const char *const files[] = {
		"inc/b\\s.h", "", "inc/x\\y/z\\w.h", "", "inc/q/r.h", "", "inc/q\\r.h", "",
		"inc/plain.h", "", NULL
	};
	char *root = check_tmpdir("clang"), *abs;

	check_write_tree(root, files);
	/* A lone backslash written as '/', in a file's name and a folder's. */
	check_clang(root, "inc/b/s.h", "inc/b\\s.h");
	check_clang(root, "inc/x/y/z/w.h", "inc/x\\y/z\\w.h");
	/* Both readings name a file: both are taken. */
	check_clang(root, "inc/q/r.h", "inc/q\\r.h|inc/q/r.h");
	check_clang(root, "inc/plain.h", "inc/plain.h");
	/* No reading names a file: the name as written (reported missing). */
	check_clang(root, "inc/gone/x.h", "inc/gone/x.h");
	abs = xstrfmt("%s/inc/b/s.h", root);
	free(root);
	root = xstrfmt("%.*s\\s.h", (int)(strlen(abs) - 4), abs);
	check_clang("/nowhere", abs, root);
	free(abs);
	free(root);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_user_option(), "user_option");
	TEST(test_parse(), "parse");
	TEST(test_family(), "family");
	TEST(test_request(), "request");
	TEST(test_clang_names(), "clang_names");
	return check_done();
}
