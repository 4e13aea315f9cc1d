#include "check.h"
#include "key/toolid.h"
#include "path.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Run toolid_get with stderr captured; *msg gets what was printed. */
static int toolid_quiet(struct closure_cache *cc, const char *program,
			char **msg, char hex[DIGEST_HEX_SIZE])
{
	int ret;

	check_capture_begin(2);
	ret = toolid_get(cc, "/", program, hex) ? 0 : -1;
	*msg = check_capture_end(2);
	return ret;
}

/* A compiler script at bin/mycc, a link to it bin/cc-link, and the file it
 * would create if it ever ran. */
static char *dir, *bin, *cc_path, *cc_link, *marker, *script, *script2;

/* Identity of program with a fresh memo. */
static void fresh_id(const char *program, char hex[DIGEST_HEX_SIZE])
{
	struct closure_cache cc;

	closure_cache_init(&cc);
	CHECK(toolid_get(&cc, "/", program, hex) != NULL);
	closure_cache_release(&cc);
}

/* Stable across calls, memoized, and the compiler never runs. */
static void test_stable(void)
{
	char h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE];
	const char *resolved;
	struct closure_cache cc;

	closure_cache_init(&cc);
	resolved = toolid_get(&cc, "/", cc_path, h1);
	CHECK_STR(resolved, cc_path);
	CHECK(toolid_get(&cc, "/", cc_path, h2) != NULL);
	CHECK_STR(h2, h1);
	CHECK_INT(cc.files.reads, 1);
	CHECK(access(marker, F_OK) != 0);
	closure_cache_release(&cc);
}

/* Through a symlink: the target's content is hashed, the link's path kept. */
static void test_symlink(void)
{
	char h1[DIGEST_HEX_SIZE], h3[DIGEST_HEX_SIZE];
	const char *resolved;
	struct closure_cache cc;

	closure_cache_init(&cc);
	CHECK(toolid_get(&cc, "/", cc_path, h1) != NULL);
	resolved = toolid_get(&cc, "/", cc_link, h3);
	CHECK_STR(resolved, cc_link);
	CHECK(strcmp(h3, h1) != 0);
	CHECK_INT(cc.files.reads, 1);
	closure_cache_release(&cc);
}

/* PATH lookup finds the same program, so the same identity. */
static void test_path_lookup(void)
{
	char *path_env = xstrfmt("%s:/usr/bin:/bin", bin), *old = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE];
	const char *resolved;
	struct closure_cache cc;

	closure_cache_init(&cc);
	CHECK(toolid_get(&cc, "/", cc_path, h1) != NULL);
	setenv("PATH", path_env, 1);
	resolved = toolid_get(&cc, "/", "mycc", h2);
	setenv("PATH", old, 1);
	CHECK_STR(resolved, cc_path);
	CHECK_STR(h2, h1);
	closure_cache_release(&cc);
	free(path_env);
	free(old);
}

/* New content (a fresh process state) gives a new identity, via the link too;
 * the old bytes back give the old identity (it is the content, not the time). */
static void test_new_content(void)
{
	char h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE], h3[DIGEST_HEX_SIZE], h4[DIGEST_HEX_SIZE];

	fresh_id(cc_path, h1);
	fresh_id(cc_link, h3);
	check_write_text(NULL, cc_path, script2, 0755);
	fresh_id(cc_path, h2);
	CHECK(strcmp(h2, h1) != 0);
	fresh_id(cc_link, h4);
	CHECK(strcmp(h4, h3) != 0);
	CHECK(access(marker, F_OK) != 0);
	check_write_text(NULL, cc_path, script, 0755);
	fresh_id(cc_path, h2);
	CHECK_STR(h2, h1);
}

/* The file exec runs, through the link, known with the identity: a second
 * process reads both from the memo folder, hashing and resolving nothing; a
 * memo of another stamp is not trusted. */
static void test_target_memo(void)
{
	char *memos = xstrfmt("%s/memos", dir), *want = xstrfmt("%s", cc_path);
	char h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE];
	struct closure_cache cc;

	closure_cache_init(&cc);
	cc.tool_memo_dir = memos;
	CHECK_STR(toolid_target(&cc, "/", cc_link), want);
	CHECK(toolid_get(&cc, "/", cc_link, h1) != NULL);
	CHECK_INT(cc.files.reads, 1);
	closure_cache_release(&cc);

	closure_cache_init(&cc);
	cc.tool_memo_dir = memos;
	CHECK(toolid_get(&cc, "/", cc_link, h2) != NULL);
	CHECK_STR(h2, h1);
	CHECK_STR(toolid_target(&cc, "/", cc_link), want);
	CHECK_INT(cc.files.reads, 0);
	closure_cache_release(&cc);

	check_write_text(NULL, cc_path, script2, 0755);
	closure_cache_init(&cc);
	cc.tool_memo_dir = memos;
	CHECK(toolid_get(&cc, "/", cc_link, h2) != NULL);
	CHECK(strcmp(h2, h1) != 0);
	CHECK_INT(cc.files.reads, 1);
	closure_cache_release(&cc);
	check_write_text(NULL, cc_path, script, 0755);

	closure_cache_init(&cc);
	CHECK(toolid_target(&cc, "/", "kwarm-no-such-compiler") == NULL);
	closure_cache_release(&cc);
	free(want);
	free(memos);
}

/* Errors name the compiler. */
static void test_errors(void)
{
	char *missing = xstrfmt("%s/nocc", bin), *msg, *want;
	struct buf why = BUF_INIT;
	char hex[DIGEST_HEX_SIZE];
	struct closure_cache cc;

	closure_cache_init(&cc);
	CHECK_INT(toolid_quiet(&cc, "kwarm-no-such-compiler", &msg, hex), -1);
	CHECK_STR(msg, "kwarm: error: compiler 'kwarm-no-such-compiler' not found in PATH\n");
	free(msg);
	CHECK_INT(toolid_quiet(&cc, missing, &msg, hex), -1);
	want = xstrfmt("kwarm: error: cannot read compiler '%s': No such file or directory\n", missing);
	CHECK_STR(msg, want);
	free(want);
	free(msg);
	/* With cc.why set, the errors go there and nothing is printed. */
	cc.why = &why;
	CHECK_INT(toolid_quiet(&cc, "kwarm-no-such-compiler", &msg, hex), -1);
	CHECK_STR(msg, "");
	free(msg);
	CHECK_INT(toolid_quiet(&cc, missing, &msg, hex), -1);
	CHECK_STR(msg, "");
	free(msg);
	want = xstrfmt("compiler 'kwarm-no-such-compiler' not found in PATH; cannot read "
		       "compiler '%s': No such file or directory", missing);
	CHECK_STR(buf_str(&why), want);
	free(want);
	buf_release(&why);
	closure_cache_release(&cc);
	free(missing);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	dir = check_tmpdir("toolid");
	bin = xstrfmt("%s/bin", dir);
	cc_path = xstrfmt("%s/mycc", bin);
	cc_link = xstrfmt("%s/cc-link", bin);
	marker = xstrfmt("%s/ran", dir);
	script = xstrfmt("#!/bin/sh\ntouch '%s'\n", marker);
	script2 = xstrfmt("#!/bin/sh\ntouch '%s' # v2\n", marker);
	if (mkdir_p(bin))
		die("cannot create '%s'", bin);
	check_write_text(NULL, cc_path, script, 0755);
	if (symlink("mycc", cc_link))
		die("cannot link '%s'", cc_link);
	TEST(test_stable(), "stable");
	TEST(test_symlink(), "symlink");
	TEST(test_path_lookup(), "path_lookup");
	TEST(test_new_content(), "new_content");
	TEST(test_target_memo(), "target_memo");
	TEST(test_errors(), "errors");
	free(dir);
	free(bin);
	free(cc_path);
	free(cc_link);
	free(marker);
	free(script);
	free(script2);
	return check_done();
}
