#include "buf.h"
#include "check.h"
#include "path.h"
#include "key/unitkey.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void push_words(struct strvec *sv, const char *const *words)
{
	for (; *words; words++)
		strvec_push(sv, *words);
}

/* Join a strvec with '|' for comparisons (caller frees). */
static char *joined(const struct strvec *sv)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < sv->nr; i++)
		buf_addf(&b, "%s%s", i ? "|" : "", sv->v[i]);
	return buf_detach(&b);
}

static void check_inputs(const char *const *argv, const char *want_sources,
			 const char *want_dirs)
{
	struct unit_command uc;
	struct strvec sources, dirs;
	char *s, *d;

	unit_command_init(&uc);
	push_words(&uc.argv, argv);
	strvec_init(&sources);
	strvec_init(&dirs);
	unit_command_inputs(&uc, &sources, &dirs);
	s = joined(&sources);
	d = joined(&dirs);
	CHECK_STR(s, want_sources);
	CHECK_STR(d, want_dirs);
	free(s);
	free(d);
	strvec_release(&sources);
	strvec_release(&dirs);
	unit_command_release(&uc);
}

static void test_inputs(void)
{
	static const char *const all[] = {
		"-Icc", "-O2", "-Ijoined", "-I", "separate", "-iquote", "q1", "-iquoteq2",
		"-isystem", "s1", "-isystems2", "-idirafter", "d1", "-idirafterd2",
		"-DX=1", "-c", "-o", "{out}", "a.cpp", "sub/b.cpp", "-Inot-a-dir", NULL
	};
	static const char *const other_out[] = {
		"cc", "-o", "elsewhere", "-Ia", "x.cpp", "-o", "{out}", "real.cpp", NULL
	};
	static const char *const no_out[] = { "cc", "-Ia", "-c", "x.cpp", NULL };
	static const char *const only_out[] = { "cc", "-o", "{out}", "s.cpp", NULL };
	static const char *const last_i[] = { "cc", "-Ifirst", "-I", NULL };
	/* A flag list ending in an option that takes an argument (found by the
	 * fuzzer): the option cannot swallow the "-o {out}" before the sources. */
	static const char *const trailing_option[] = {
		"cc", "-O3", "-T", "-iquote", "-o", "{out}", "k.c", NULL
	};
	static const char *const lookalikes[] = {
		"cc", "-include", "pre.h", "-isysroot", "/sr", "-imacros", "m.h", "-o", "{out}",
		"x.cpp", NULL
	};

	/* argv[0] is the compiler even when it looks like a flag. */
	check_inputs(all, "a.cpp|sub/b.cpp|-Inot-a-dir",
		     "joined|separate|q1|q2|s1|s2|d1|d2");
	check_inputs(other_out, "real.cpp", "a");
	check_inputs(no_out, "", "a");
	check_inputs(only_out, "s.cpp", "");
	check_inputs(last_i, "", "first");
	check_inputs(lookalikes, "x.cpp", "");
	check_inputs(trailing_option, "k.c", "");
}

struct fixture {
	char *root;		/* absolute */
	char *cc, *ld;		/* absolute paths of shell scripts never run */
};

static void set_command(struct unit_command *uc, const struct fixture *f, const char *platform)
{
	static const char *const words[] = {
		"-O2", "-Iinc", "-o", "{out}", "src/k.cpp", NULL
	};

	unit_command_init(uc);
	uc->platform = platform;
	uc->root = f->root;
	strvec_push(&uc->argv, f->cc);
	push_words(&uc->argv, words);
}

/* Key of uc in a fresh closure cache (so no memo hides a change). */
static int key_of(const struct unit_command *uc, char hex[DIGEST_HEX_SIZE])
{
	struct closure_cache cc;
	int ret;

	closure_cache_init(&cc);
	ret = unitkey_compute(&cc, uc, hex, NULL);
	closure_cache_release(&cc);
	return ret;
}

/* uc set to f's command, and base its key. */
static void base_key(struct unit_command *uc, const struct fixture *f, char base[DIGEST_HEX_SIZE])
{
	set_command(uc, f, "a5sim");
	CHECK_INT(key_of(uc, base), 0);
	CHECK_INT(strlen(base), 64);
	CHECK_INT(strspn(base, "0123456789abcdef"), 64);
}

/* Same inputs, same key: in a fresh cache, and twice in one cache. */
static void test_key_same_inputs(const struct fixture *f)
{
	struct unit_command uc;
	struct closure_cache cc;
	struct closure closure;
	struct strvec tools;
	char base[DIGEST_HEX_SIZE], hex[DIGEST_HEX_SIZE];
	char *s, *want;

	base_key(&uc, f, base);
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK_STR(hex, base);
	closure_cache_init(&cc);
	strvec_init(&tools);
	CHECK_INT(unitkey_compute(&cc, &uc, hex, &(struct unitkey_out){ .closure = &closure,
							    .inputs = &tools }), 0);
	CHECK_STR(hex, base);
	CHECK_INT(unitkey_compute(&cc, &uc, hex, NULL), 0);
	CHECK_STR(hex, base);
	/* The closure and the resolved tools come back to the caller. */
	CHECK_INT(closure.nr, 3);
	if (closure.nr == 3) {
		CHECK_STR(closure.files[0].path, "src/k.cpp");
		CHECK_STR(closure.files[1].path, "inc/h.h");
		CHECK_STR(closure.files[2].path, "inc/deep.h");
	}
	/* The compiler, then the -I folders (listed: a new header that shadows
	 * another changes what the list resolves to). */
	s = joined(&tools);
	want = xstrfmt("%s|%s/inc", f->cc, f->root);
	CHECK_STR(s, want);
	free(want);
	free(s);
	closure_release(&closure);
	strvec_release(&tools);
	closure_cache_release(&cc);
	unit_command_release(&uc);
}

/* The same checkout at another place: the same key. */
static void test_key_moved_checkout(const struct fixture *f, const struct fixture *copy)
{
	struct unit_command uc, other;
	char base[DIGEST_HEX_SIZE], hex[DIGEST_HEX_SIZE];

	base_key(&uc, f, base);
	set_command(&other, copy, "a5sim");
	CHECK_INT(key_of(&other, hex), 0);
	CHECK_STR(hex, base);
	unit_command_release(&other);
	unit_command_release(&uc);
}

/* A changed flag; an added flag, even one that changes nothing else. */
static void test_key_flags(const struct fixture *f)
{
	struct unit_command uc;
	char base[DIGEST_HEX_SIZE], hex[DIGEST_HEX_SIZE];

	base_key(&uc, f, base);
	free(uc.argv.v[1]);
	uc.argv.v[1] = xstrdup("-O3");
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK(strcmp(hex, base) != 0);
	free(uc.argv.v[1]);
	uc.argv.v[1] = xstrdup("-O2");
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK_STR(hex, base);
	strvec_push(&uc.argv, "src/k.cpp");
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK(strcmp(hex, base) != 0);
	unit_command_release(&uc);
}

/* Another platform. */
static void test_key_platform(const struct fixture *f)
{
	struct unit_command uc;
	char base[DIGEST_HEX_SIZE], hex[DIGEST_HEX_SIZE];

	base_key(&uc, f, base);
	uc.platform = "a2a3";
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK(strcmp(hex, base) != 0);
	uc.platform = "a5sim";
	unit_command_release(&uc);
}

/* A header's content, two levels down, same size. */
static void test_key_header(const struct fixture *f)
{
	struct unit_command uc;
	char base[DIGEST_HEX_SIZE], hex[DIGEST_HEX_SIZE];

	base_key(&uc, f, base);
	check_write_text(f->root, "inc/deep.h", "int deep_x;\n", 0644);
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK(strcmp(hex, base) != 0);
	check_write_text(f->root, "inc/deep.h", "int deep_1;\n", 0644);
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK_STR(hex, base);
	unit_command_release(&uc);
}

/* The compiler's content (its identity), though it is never run. */
static void test_key_compiler(const struct fixture *f)
{
	struct unit_command uc;
	char base[DIGEST_HEX_SIZE], hex[DIGEST_HEX_SIZE];

	base_key(&uc, f, base);
	check_write_text("/", f->cc, "#!/bin/sh\nexit 2\n", 0755);
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK(strcmp(hex, base) != 0);
	check_write_text("/", f->cc, "#!/bin/sh\nexit 1\n", 0755);
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK_STR(hex, base);
	unit_command_release(&uc);
}

/* A link step, then each of its words. */
static void test_key_link(const struct fixture *f)
{
	struct unit_command uc;
	struct closure_cache cc;
	struct strvec tools;
	char base[DIGEST_HEX_SIZE], hex[DIGEST_HEX_SIZE], linked[DIGEST_HEX_SIZE];
	char *s, *want;

	base_key(&uc, f, base);
	strvec_push(&uc.link, f->ld);
	strvec_push(&uc.link, "-e");
	strvec_push(&uc.link, "entry");
	CHECK_INT(key_of(&uc, linked), 0);
	CHECK(strcmp(linked, base) != 0);
	free(uc.link.v[2]);
	uc.link.v[2] = xstrdup("other_entry");
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK(strcmp(hex, linked) != 0 && strcmp(hex, base) != 0);
	free(uc.link.v[2]);
	uc.link.v[2] = xstrdup("entry");
	strvec_push(&uc.link, "--extra");
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK(strcmp(hex, linked) != 0);
	strvec_release(&uc.link);
	strvec_init(&uc.link);
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK_STR(hex, base);
	/* The linker's tools_out entry follows the compiler's. */
	strvec_push(&uc.link, f->ld);
	closure_cache_init(&cc);
	strvec_init(&tools);
	CHECK_INT(unitkey_compute(&cc, &uc, hex, &(struct unitkey_out){ .inputs = &tools }), 0);
	s = joined(&tools);
	want = xstrfmt("%s|%s/inc|%s", f->cc, f->root, f->ld);
	CHECK_STR(s, want);
	free(want);
	free(s);
	strvec_release(&tools);
	closure_cache_release(&cc);
	strvec_release(&uc.link);
	strvec_init(&uc.link);
	unit_command_release(&uc);
}

/* Extract mode. */
static void test_key_extract(const struct fixture *f)
{
	struct unit_command uc;
	char base[DIGEST_HEX_SIZE], hex[DIGEST_HEX_SIZE];

	base_key(&uc, f, base);
	uc.extract_text = 1;
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK(strcmp(hex, base) != 0);
	uc.extract_text = 0;
	CHECK_INT(key_of(&uc, hex), 0);
	CHECK_STR(hex, base);
	unit_command_release(&uc);
}

static void test_errors(const struct fixture *f)
{
	struct unit_command uc;
	char hex[DIGEST_HEX_SIZE], *msg;

	/* A compiler (the first word), then a source (the last), that is not there. */
	for (int i = 0; i < 2; i++) {
		const char *missing = i ? "src/missing.cpp" : "kwarm-test-no-such-compiler";
		size_t at;
		int ok;

		set_command(&uc, f, "a5sim");
		at = i ? uc.argv.nr - 1 : 0;
		free(uc.argv.v[at]);
		uc.argv.v[at] = xstrdup(missing);
		check_capture_begin(2);
		ok = CHECK_INT(key_of(&uc, hex), -1);
		msg = check_capture_end(2);
		if (!(ok & CHECK(starts_with(msg, "kwarm: error: "))))
			fprintf(stderr, "  (for '%s')\n", missing);
		CHECK_HAS(msg, missing);
		free(msg);
		unit_command_release(&uc);
	}
}

static void make_fixture(struct fixture *f, const char *tmp, const char *name, const char *tools)
{
	f->root = path_join(tmp, name);
	check_write_text(f->root, "src/k.cpp", "#include \"h.h\"\nint k(void) { return 0; }\n",
			 0644);
	check_write_text(f->root, "inc/h.h", "#include \"deep.h\"\n", 0644);
	check_write_text(f->root, "inc/deep.h", "int deep_1;\n", 0644);
	f->cc = path_join(tools, "cc.sh");
	f->ld = path_join(tools, "ld.sh");
}

int main(int argc, char **argv)
{
	char *tmp = check_tmpdir("unitkey"), *abs = realpath(tmp, NULL), *tools;
	struct fixture f, copy;

	check_init(argc, argv);
	if (!abs)
		die("cannot resolve '%s'", tmp);
	tools = path_join(abs, "tools");
	make_fixture(&f, abs, "root", tools);
	make_fixture(&copy, abs, "copy", tools);
	check_write_text("/", f.cc, "#!/bin/sh\nexit 1\n", 0755);
	check_write_text("/", f.ld, "#!/bin/sh\nexit 1\n", 0755);

	TEST(test_inputs(), "inputs");
	TEST(test_key_same_inputs(&f), "key_same_inputs");
	TEST(test_key_moved_checkout(&f, &copy), "key_moved_checkout");
	TEST(test_key_flags(&f), "key_flags");
	TEST(test_key_platform(&f), "key_platform");
	TEST(test_key_header(&f), "key_header");
	TEST(test_key_compiler(&f), "key_compiler");
	TEST(test_key_link(&f), "key_link");
	TEST(test_key_extract(&f), "key_extract");
	TEST(test_errors(&f), "errors");

	free(f.root);
	free(f.cc);
	free(f.ld);
	free(copy.root);
	free(copy.cc);
	free(copy.ld);
	free(tools);
	free(abs);
	free(tmp);
	return check_done();
}
