/* Unit tests of filehash: the digest is the file's SHA-256, read once while
 * the file's stamp holds (reads counts the misses), read again after any
 * change stat can see, and a missing file is an error with errno set; the
 * last look at a path is kept (filehash_seen), a symlink's own ctime with it. */
#include "check.h"
#include "key/digest.h"
#include "key/filehash.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_mtime(const char *path, time_t sec, long nsec)
{
	struct timespec ts[2] = { { sec, nsec }, { sec, nsec } };

	if (utimensat(AT_FDCWD, path, ts, 0))
		die("cannot set the times of '%s'", path);
}

/* The SHA-256 of text, as the digest module says. */
static void want_hex(const char *text, char hex[DIGEST_HEX_SIZE])
{
	digest_bytes_hex(text, strlen(text), hex);
}

static char *dir;

/* dir/name, written afresh with text and a fixed mtime; caller frees. */
static char *fresh(const char *name, const char *text)
{
	char *path = path_join(dir, name);

	unlink(path);
	check_write_text(NULL, path, text, 0644);
	set_mtime(path, 1000000000, 5);
	return path;
}

/* First look reads the file; then the memo answers. */
static void test_memo(void)
{
	char *a = fresh("a.h", "#define A 1\n"), *b = fresh("b.h", "");
	char hex[DIGEST_HEX_SIZE], want[DIGEST_HEX_SIZE];
	struct filehash fh;

	filehash_init(&fh);
	CHECK_INT(fh.reads, 0);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	want_hex("#define A 1\n", want);
	CHECK_STR(hex, want);
	CHECK_INT(fh.reads, 1);

	memset(hex, 0, sizeof(hex));
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	CHECK_STR(hex, want);
	CHECK_INT(fh.reads, 1);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	CHECK_INT(fh.reads, 1);

	/* An empty file. */
	CHECK_INT(filehash_get(&fh, b, hex), 0);
	want_hex("", want);
	CHECK_STR(hex, want);
	CHECK_INT(fh.reads, 2);

	filehash_release(&fh);
	CHECK_INT(fh.reads, 0);
	/* After release and init it starts over. */
	filehash_init(&fh);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	CHECK_INT(fh.reads, 1);
	filehash_release(&fh);
	free(a);
	free(b);
}

/* A size change, the mtime put back: read again, the new digest. */
static void test_size_change(void)
{
	char *a = fresh("a.h", "#define A 1\n");
	char hex[DIGEST_HEX_SIZE], want[DIGEST_HEX_SIZE];
	struct filehash fh;

	filehash_init(&fh);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	check_write_text(NULL, a, "#define A 22\n", 0644);
	set_mtime(a, 1000000000, 5);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	want_hex("#define A 22\n", want);
	CHECK_STR(hex, want);
	CHECK_INT(fh.reads, 2);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	CHECK_INT(fh.reads, 2);
	filehash_release(&fh);
	free(a);
}

/* Same size, same mtime put back, other content: the ctime still moved
 * (a rewrite cannot hide), so it is read again. */
static void test_same_size_rewrite(void)
{
	char *a = fresh("a.h", "#define A 22\n");
	char hex[DIGEST_HEX_SIZE], want[DIGEST_HEX_SIZE];
	struct stat before, after;
	struct filehash fh;

	filehash_init(&fh);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	CHECK_INT(stat(a, &before), 0);
	check_write_text(NULL, a, "#define A 33\n", 0644);
	set_mtime(a, 1000000000, 5);
	CHECK_INT(stat(a, &after), 0);
	if (before.st_ctim.tv_sec == after.st_ctim.tv_sec &&
	    before.st_ctim.tv_nsec == after.st_ctim.tv_nsec) {
		/* A clock too coarse to tell; change the mtime instead. */
		set_mtime(a, 1000000001, 0);
	}
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	want_hex("#define A 33\n", want);
	CHECK_STR(hex, want);
	CHECK_INT(fh.reads, 2);
	filehash_release(&fh);
	free(a);
}

/* Only an mtime change: read again, same digest. */
static void test_mtime_only(void)
{
	char *a = fresh("a.h", "#define A 33\n");
	char hex[DIGEST_HEX_SIZE], want[DIGEST_HEX_SIZE];
	struct filehash fh;

	filehash_init(&fh);
	CHECK_INT(filehash_get(&fh, a, want), 0);
	set_mtime(a, 1200000000, 0);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	CHECK_STR(hex, want);
	CHECK_INT(fh.reads, 2);
	filehash_release(&fh);
	free(a);
}

/* A symlink is followed; it is its own memo entry (path as given). */
static void test_symlink(void)
{
	char *a = fresh("a.h", "#define A 33\n"), *link = path_join(dir, "link.h");
	char hex[DIGEST_HEX_SIZE], want[DIGEST_HEX_SIZE];
	struct filehash fh;

	unlink(link);
	CHECK_INT(symlink("a.h", link), 0);
	filehash_init(&fh);
	CHECK_INT(filehash_get(&fh, a, want), 0);
	CHECK_INT(filehash_get(&fh, link, hex), 0);
	CHECK_STR(hex, want);
	CHECK_INT(fh.reads, 2);
	CHECK_INT(filehash_get(&fh, link, hex), 0);
	CHECK_INT(fh.reads, 2);
	filehash_release(&fh);
	free(link);
	free(a);
}

/* Missing: -1 with ENOENT, nothing counted as read; a file removed after
 * being remembered is missing too, not served stale; a folder cannot be hashed. */
static void test_missing(void)
{
	char *b = fresh("b.h", ""), *missing = path_join(dir, "missing.h");
	char hex[DIGEST_HEX_SIZE];
	struct filehash fh;

	filehash_init(&fh);
	errno = 0;
	CHECK_INT(filehash_get(&fh, missing, hex), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(fh.reads, 0);
	CHECK_INT(filehash_get(&fh, b, hex), 0);
	CHECK_INT(unlink(b), 0);
	errno = 0;
	CHECK_INT(filehash_get(&fh, b, hex), -1);
	CHECK_INT(errno, ENOENT);
	errno = 0;
	CHECK_INT(filehash_get(&fh, dir, hex), -1);
	CHECK(errno != 0);
	filehash_release(&fh);
	free(missing);
	free(b);
}

/* What the last look saw: none before a look; then the stamp stat gives, and
 * for a symlink its own ctime as lstat gives; none once a look fails. */
static void test_seen(void)
{
	char *a = fresh("a.h", "#define A 44\n"), *link = path_join(dir, "seen.h");
	char hex[DIGEST_HEX_SIZE];
	struct filestamp seen, want;
	struct stat st;
	int64_t link_ctime;
	struct filehash fh;

	unlink(link);
	CHECK_INT(symlink("a.h", link), 0);
	filehash_init(&fh);
	CHECK_INT(filehash_seen(&fh, a, &seen, &link_ctime), 0);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	CHECK_INT(filehash_seen(&fh, a, &seen, &link_ctime), 1);
	CHECK_INT(stat(a, &st), 0);
	filestamp_from_stat(&want, &st);
	CHECK(filestamp_equal(&seen, &want));
	CHECK(link_ctime == -1);

	CHECK_INT(filehash_get(&fh, link, hex), 0);
	CHECK_INT(filehash_seen(&fh, link, &seen, &link_ctime), 1);
	CHECK(filestamp_equal(&seen, &want));
	CHECK_INT(lstat(link, &st), 0);
	CHECK(link_ctime == (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec);

	/* A chmod moves the ctime: the memo reads again, and the look is the new one. */
	CHECK_INT(chmod(a, 0600), 0);
	CHECK_INT(filehash_get(&fh, a, hex), 0);
	CHECK_INT(stat(a, &st), 0);
	filestamp_from_stat(&want, &st);
	CHECK_INT(filehash_seen(&fh, a, &seen, &link_ctime), 1);
	CHECK(filestamp_equal(&seen, &want));

	CHECK_INT(unlink(a), 0);
	CHECK_INT(filehash_get(&fh, link, hex), -1);
	CHECK_INT(filehash_seen(&fh, link, &seen, &link_ctime), 0);
	filehash_release(&fh);
	free(link);
	free(a);
}

/* filestamp_equal tells apart every field. */
static void test_stamp_equal(void)
{
	struct filestamp x = { 1, 2, 3, 4, 5 }, y;

	y = x;
	CHECK(filestamp_equal(&x, &y));
	y.dev = 9;
	CHECK(!filestamp_equal(&x, &y));
	y = x;
	y.ino = 9;
	CHECK(!filestamp_equal(&x, &y));
	y = x;
	y.size = 9;
	CHECK(!filestamp_equal(&x, &y));
	y = x;
	y.mtime_ns = 9;
	CHECK(!filestamp_equal(&x, &y));
	y = x;
	y.ctime_ns = 9;
	CHECK(!filestamp_equal(&x, &y));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	dir = check_tmpdir("filehash");
	TEST(test_memo(), "memo");
	TEST(test_size_change(), "size_change");
	TEST(test_same_size_rewrite(), "same_size_rewrite");
	TEST(test_mtime_only(), "mtime_only");
	TEST(test_symlink(), "symlink");
	TEST(test_missing(), "missing");
	TEST(test_seen(), "seen");
	TEST(test_stamp_equal(), "stamp_equal");
	free(dir);
	return check_done();
}
