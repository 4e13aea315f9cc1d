/* Unit tests of logappend: lines appended whole and in order, the log's end,
 * the lock let go, a log that cannot be written, and compaction: rewritten as
 * asked, left alone, skipped while an appender holds the lock, a missing log
 * left missing. */
#include "buf.h"
#include "check.h"
#include "logappend.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether another open file description may take lockpath exclusively now. */
static int free_for_exclusive(const char *lockpath)
{
	int fd = open(lockpath, O_RDWR | O_CLOEXEC), ok;

	if (fd < 0)
		die("cannot open '%s': %s", lockpath, strerror(errno));
	ok = !flock(fd, LOCK_EX | LOCK_NB);
	close(fd);
	return ok;
}

static void test_append(const char *dir)
{
	char *log = path_join(dir, "a.log"), *lockpath = path_join(dir, "a.lock"), *text;
	off_t end = -1;

	CHECK_INT(logappend_line(lockpath, log, "one\n", NULL), 0);
	CHECK(free_for_exclusive(lockpath));	/* let go before the return */
	CHECK_INT(logappend_line(lockpath, log, "two 2\n", &end), 0);
	CHECK_INT(end, 10);			/* "one\ntwo 2\n" */
	CHECK(free_for_exclusive(lockpath));
	CHECK_INT(logappend_line(NULL, log, "three\n", NULL), 0);
	text = check_must_read(log);
	CHECK_STR(text, "one\ntwo 2\nthree\n");
	free(text);
	free(log);
	free(lockpath);
}

/* A log that is a folder cannot take a line: -1. */
static void test_unwritable(const char *dir)
{
	char *log = path_join(dir, "b.log"), *lockpath = path_join(dir, "b.lock");
	off_t end = -1;

	CHECK_INT(mkdir(log, 0777), 0);
	CHECK_INT(logappend_line(lockpath, log, "x\n", NULL), -1);
	CHECK_INT(logappend_line(lockpath, log, "x\n", &end), -1);
	CHECK_INT(end, -1);
	free(log);
	free(lockpath);
}

/* Keeps the lines that start with 'k' when data points at a true int. */
static int keep_k(const char *text, size_t len, struct buf *out, void *data)
{
	const char *end = text + len;

	if (!*(int *)data)
		return 0;
	for (const char *p = text, *nl; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
		if (*p == 'k')
			buf_add(out, p, (size_t)(nl + 1 - p));
	return 1;
}

static void test_compact(const char *dir)
{
	char *log = path_join(dir, "c.log"), *lockpath = path_join(dir, "c.lock"), *text;
	int yes = 1, no = 0, fd;

	CHECK_INT(logappend_compact(lockpath, log, 1, keep_k, &yes, NULL), 0);
	CHECK(access(log, F_OK) && errno == ENOENT);	/* missing stays missing */
	check_write_text(NULL, log, "k1\ndrop\nk2\n", 0644);
	CHECK_INT(logappend_compact(lockpath, log, 0, keep_k, &no, NULL), 0);
	text = check_must_read(log);
	CHECK_STR(text, "k1\ndrop\nk2\n");		/* left alone */
	free(text);
	/* An appender holds the lock: without wait, another time. */
	fd = open(lockpath, O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0 && !flock(fd, LOCK_SH));
	CHECK_INT(logappend_compact(lockpath, log, 0, keep_k, &yes, NULL), 0);
	text = check_must_read(log);
	CHECK_STR(text, "k1\ndrop\nk2\n");
	free(text);
	close(fd);
	CHECK_INT(logappend_compact(lockpath, log, 0, keep_k, &yes, NULL), 0);
	text = check_must_read(log);
	CHECK_STR(text, "k1\nk2\n");
	free(text);
	CHECK(free_for_exclusive(lockpath));
	free(log);
	free(lockpath);
}

/* A log that cannot be read (a folder) or rewritten (it is replaced by a
 * rename over a folder): -1, on stderr, or in why and nothing printed. */
static void test_compact_fails(const char *dir)
{
	char *log = path_join(dir, "f.log"), *lockpath = path_join(dir, "f.lock"), *msg;
	struct buf why = BUF_INIT;
	int yes = 1;

	CHECK_INT(mkdir(log, 0777), 0);
	check_capture_begin(2);
	CHECK_INT(logappend_compact(lockpath, log, 1, keep_k, &yes, NULL), -1);
	msg = check_capture_end(2);
	CHECK(starts_with(msg, "kwarm: error: cannot read '"));
	free(msg);
	check_capture_begin(2);
	CHECK_INT(logappend_compact(lockpath, log, 1, keep_k, &yes, &why), -1);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK(starts_with(buf_str(&why), "cannot read '"));
	CHECK_HAS(buf_str(&why), "Is a directory");
	free(msg);
	rmdir(log);
	buf_release(&why);
	free(log);
	free(lockpath);
}

int main(int argc, char **argv)
{
	char *dir = check_tmpdir("logappend");

	check_init(argc, argv);
	TEST(test_append(dir), "append");
	TEST(test_unwritable(dir), "unwritable");
	TEST(test_compact(dir), "compact");
	TEST(test_compact_fails(dir), "compact_fails");
	free(dir);
	return check_done();
}
