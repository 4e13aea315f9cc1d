/* Unit tests of reads: the pointer from a unit's base key to the entry whose
 * recorded reads matched last, and that failing to write one is no error. */
#include "check.h"
#include "key/reads.h"
#include "path.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmpdir;

static void fill(char *hex, char c)
{
	memset(hex, c, 64);
	hex[64] = '\0';
}

/* path holds a pointer to key, as reads.c's format says. */
static void check_points_to(const char *path, const char *key)
{
	char *text = check_read_file(path), *want = xstrfmt("kwarm-reads 1\n%s\n", key);

	CHECK_STR(text ? text : "", want);
	free(text);
	free(want);
}

/* The pointer is written; a second one replaces it. */
static void test_point(void)
{
	char *dir = path_join(tmpdir, "point"), *path;
	char base[65], key[65];

	fill(base, 'b');
	fill(key, 'c');
	path = xstrfmt("%s/reads/b/%s", dir, base);
	reads_point(dir, base, key);
	check_points_to(path, key);
	fill(key, 'd');
	reads_point(dir, base, key);
	check_points_to(path, key);
	free(path);
	free(dir);
}

/* Best effort: a pointer that cannot be written (a folder holds its name)
 * says nothing. */
static void test_point_fails_quietly(void)
{
	char *dir = path_join(tmpdir, "quiet"), *path, *msg;
	char base[65], key[65];
	struct stat st;

	fill(base, 'e');
	fill(key, 'f');
	path = xstrfmt("%s/reads/e/%s", dir, base);
	CHECK_INT(mkdir_p(path), 0);
	check_capture_begin(2);
	reads_point(dir, base, key);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	free(msg);
	free(path);
	free(dir);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("reads");
	TEST(test_point(), "point");
	TEST(test_point_fails_quietly(), "point_fails_quietly");
	free(tmpdir);
	return check_done();
}
