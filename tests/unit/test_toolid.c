#include "check.h"
#include "toolid.h"
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
	ret = toolid_get(cc, program, NULL, hex);
	*msg = check_capture_end(2);
	return ret;
}

int main(void)
{
	char *dir = check_tmpdir("toolid"), *bin = xstrfmt("%s/bin", dir);
	char *cc_path = xstrfmt("%s/mycc", bin), *link = xstrfmt("%s/cc-link", bin);
	char *marker = xstrfmt("%s/ran", dir);
	char *script = xstrfmt("#!/bin/sh\ntouch '%s'\n", marker);
	char *script2 = xstrfmt("#!/bin/sh\ntouch '%s' # v2\n", marker);
	char *path_env = xstrfmt("%s:/usr/bin:/bin", bin), *missing = xstrfmt("%s/nocc", bin);
	char h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE], h3[DIGEST_HEX_SIZE], h4[DIGEST_HEX_SIZE];
	char *resolved = NULL, *msg, *want;
	struct closure_cache cc;

	if (mkdir_p(bin))
		die("cannot create '%s'", bin);
	check_write_text(NULL, cc_path, script, 0755);
	if (symlink("mycc", link))
		die("cannot link '%s'", link);

	/* Stable across calls, memoized, and the compiler never runs. */
	closure_cache_init(&cc);
	CHECK_INT(toolid_get(&cc, cc_path, &resolved, h1), 0);
	CHECK_STR(resolved, cc_path);
	free(resolved);
	CHECK_INT(toolid_get(&cc, cc_path, NULL, h2), 0);
	CHECK_STR(h2, h1);
	CHECK_INT(cc.files.reads, 1);
	CHECK(access(marker, F_OK) != 0);

	/* Through a symlink: the target's content is hashed, the link's path kept. */
	CHECK_INT(toolid_get(&cc, link, &resolved, h3), 0);
	CHECK_STR(resolved, link);
	free(resolved);
	CHECK(strcmp(h3, h1) != 0);
	CHECK_INT(cc.files.reads, 1);

	/* PATH lookup finds the same program, so the same identity. */
	setenv("PATH", path_env, 1);
	CHECK_INT(toolid_get(&cc, "mycc", &resolved, h2), 0);
	CHECK_STR(resolved, cc_path);
	free(resolved);
	CHECK_STR(h2, h1);
	closure_cache_release(&cc);

	/* New content (a fresh process state) gives a new identity, via the link too. */
	check_write_text(NULL, cc_path, script2, 0755);
	closure_cache_init(&cc);
	CHECK_INT(toolid_get(&cc, "mycc", NULL, h2), 0);
	CHECK(strcmp(h2, h1) != 0);
	CHECK_INT(toolid_get(&cc, link, NULL, h4), 0);
	CHECK(strcmp(h4, h3) != 0);
	CHECK(access(marker, F_OK) != 0);
	/* Back to the old bytes: the old identity (it is the content, not the time). */
	check_write_text(NULL, cc_path, script, 0755);
	closure_cache_release(&cc);
	closure_cache_init(&cc);
	CHECK_INT(toolid_get(&cc, cc_path, NULL, h2), 0);
	CHECK_STR(h2, h1);

	/* Errors name the compiler. */
	CHECK_INT(toolid_quiet(&cc, "kwarm-no-such-compiler", &msg, h2), -1);
	CHECK_STR(msg, "kwarm: error: compiler 'kwarm-no-such-compiler' not found in PATH\n");
	free(msg);
	CHECK_INT(toolid_quiet(&cc, missing, &msg, h2), -1);
	want = xstrfmt("kwarm: error: cannot read compiler '%s': No such file or directory\n", missing);
	CHECK_STR(msg, want);
	free(want);
	free(msg);
	closure_cache_release(&cc);

	free(dir);
	free(bin);
	free(cc_path);
	free(link);
	free(marker);
	free(script);
	free(script2);
	free(path_env);
	free(missing);
	return check_done();
}
