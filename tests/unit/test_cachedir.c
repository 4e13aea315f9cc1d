/* Unit tests of cachedir: the option, KWARM_CACHE, the spec's cache, then
 * XDG_CACHE_HOME, then HOME, then /tmp. */
#include "cache/cachedir.h"
#include "check.h"

#include <stdlib.h>

static void check_default(const char *want)
{
	char *dir = cache_choose_dir(NULL, NULL, 1);

	CHECK_STR(dir, want);
	free(dir);
	CHECK(cache_choose_dir(NULL, NULL, 0) == NULL);
}

/* Each named folder wins over those after it; the named ones are made
 * absolute. */
static void test_precedence(void)
{
	char *dir;

	setenv("KWARM_CACHE", "/env//c/.", 1);
	dir = cache_choose_dir("/opt/c/../d", "/spec/c", 1);
	CHECK_STR(dir, "/opt/d");
	free(dir);
	dir = cache_choose_dir(NULL, "/spec/c", 1);
	CHECK_STR(dir, "/env/c");
	free(dir);
	setenv("KWARM_CACHE", "", 1);	/* empty: as good as unset */
	dir = cache_choose_dir(NULL, "/spec/c", 0);
	CHECK_STR(dir, "/spec/c");
	free(dir);
	unsetenv("KWARM_CACHE");
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
	unsetenv("KWARM_CACHE");
	TEST(test_precedence(), "precedence");
	TEST(test_xdg_first(), "xdg_first");
	TEST(test_then_home(), "then_home");
	TEST(test_then_tmp(), "then_tmp");
	TEST(test_xdg_alone(), "xdg_alone");
	return check_done();
}
