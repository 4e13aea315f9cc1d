/* Unit tests of logappend: lines appended whole and in order, the shared lock
 * held while writing (and kept on request, with the log's end), and a log
 * that cannot be written. */
#include "check.h"
#include "logappend.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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
	int lockfd = -2;
	off_t end = -1;

	CHECK_INT(logappend_line(lockpath, log, "one\n", NULL, NULL), 0);
	CHECK(free_for_exclusive(lockpath));	/* let go before the return */
	CHECK_INT(logappend_line(lockpath, log, "two 2\n", &lockfd, &end), 0);
	CHECK(lockfd >= 0);
	CHECK_INT(end, 10);			/* "one\ntwo 2\n" */
	CHECK(!free_for_exclusive(lockpath));	/* kept, shared */
	logappend_lock(lockfd, LOCK_EX);	/* the caller may upgrade it */
	CHECK(!free_for_exclusive(lockpath));
	close(lockfd);
	CHECK(free_for_exclusive(lockpath));
	text = check_must_read(log);
	CHECK_STR(text, "one\ntwo 2\n");
	free(text);
	free(log);
	free(lockpath);
}

/* A log that is a folder cannot take a line: -1, and the kept lock still
 * comes back for the caller to close. */
static void test_unwritable(const char *dir)
{
	char *log = path_join(dir, "b.log"), *lockpath = path_join(dir, "b.lock");
	int lockfd = -2;
	off_t end = -1;

	CHECK_INT(mkdir(log, 0777), 0);
	CHECK_INT(logappend_line(lockpath, log, "x\n", NULL, NULL), -1);
	CHECK_INT(logappend_line(lockpath, log, "x\n", &lockfd, &end), -1);
	CHECK(lockfd >= 0);
	CHECK_INT(end, -1);
	if (lockfd >= 0)
		close(lockfd);
	free(log);
	free(lockpath);
}

int main(int argc, char **argv)
{
	char *dir = check_tmpdir("logappend");

	check_init(argc, argv);
	TEST(test_append(dir), "append");
	TEST(test_unwritable(dir), "unwritable");
	free(dir);
	return check_done();
}
