#include "check.h"
#include "path.h"
#include "util.h"

#include <stdlib.h>

int check_passed, check_failed;

int check_at(int ok, const char *file, int line, const char *what)
{
	if (ok) {
		check_passed++;
		return 1;
	}
	check_failed++;
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	return 0;
}

int check_int_at(long long got, long long want, const char *file, int line, const char *what)
{
	if (got == want)
		return check_at(1, file, line, what);
	fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", file, line, what, got, want);
	return check_at(0, file, line, what);
}

int check_str_at(const char *got, const char *want, const char *file, int line, const char *what)
{
	if (got && want && !strcmp(got, want))
		return check_at(1, file, line, what);
	fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", file, line, what,
		got ? got : "(null)", want ? want : "(null)");
	return check_at(0, file, line, what);
}

char *check_tmpdir(const char *name)
{
	const char *base = getenv("KWARM_TEST_TMP");
	char *dir, *cmd;

	dir = xstrfmt("%s/%s", base ? base : "/tmp/kwarm-unit", name);
	cmd = xstrfmt("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		die("cannot clean '%s'", dir);
	free(cmd);
	if (mkdir_p(dir))
		die("cannot create '%s'", dir);
	return dir;
}

int check_done(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
