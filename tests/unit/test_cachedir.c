/* Unit tests of cachedir: XDG_CACHE_HOME first, then HOME, then /tmp. */
#include "cache/cachedir.h"
#include "check.h"

#include <stdlib.h>

static void check_default(const char *want)
{
	char *dir = cache_default_dir();

	CHECK_STR(dir, want);
	free(dir);
}

static void test_xdg_first(void)
{
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/u", 1);
	check_default("/x/cache/kwarm");
}

/* An empty XDG_CACHE_HOME is as good as unset (the XDG rule). */
static void test_then_home(void)
{
	setenv("XDG_CACHE_HOME", "", 1);
	setenv("HOME", "/home/u", 1);
	check_default("/home/u/.cache/kwarm");
	unsetenv("XDG_CACHE_HOME");
	check_default("/home/u/.cache/kwarm");
}

static void test_then_tmp(void)
{
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "", 1);
	check_default("/tmp/.cache/kwarm");
	unsetenv("HOME");
	check_default("/tmp/.cache/kwarm");
}

/* XDG alone is enough. */
static void test_xdg_alone(void)
{
	unsetenv("HOME");
	setenv("XDG_CACHE_HOME", "/only/xdg", 1);
	check_default("/only/xdg/kwarm");
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_xdg_first(), "xdg_first");
	TEST(test_then_home(), "then_home");
	TEST(test_then_tmp(), "then_tmp");
	TEST(test_xdg_alone(), "xdg_alone");
	return check_done();
}
