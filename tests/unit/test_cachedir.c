/* Unit tests of cachedir: XDG_CACHE_HOME first, then HOME, then /tmp. */
#include "cachedir.h"
#include "check.h"

#include <stdlib.h>

static void check_default(const char *want)
{
	char *dir = cache_default_dir();

	CHECK_STR(dir, want);
	free(dir);
}

int main(void)
{
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/u", 1);
	check_default("/x/cache/kwarm");

	/* An empty XDG_CACHE_HOME is as good as unset (the XDG rule). */
	setenv("XDG_CACHE_HOME", "", 1);
	check_default("/home/u/.cache/kwarm");
	unsetenv("XDG_CACHE_HOME");
	check_default("/home/u/.cache/kwarm");

	setenv("HOME", "", 1);
	check_default("/tmp/.cache/kwarm");
	unsetenv("HOME");
	check_default("/tmp/.cache/kwarm");

	/* XDG alone is enough. */
	setenv("XDG_CACHE_HOME", "/only/xdg", 1);
	check_default("/only/xdg/kwarm");
	return check_done();
}
