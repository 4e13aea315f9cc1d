#include "buf.h"
#include "check.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_xstrfmt(void)
{
	char *s = xstrfmt("%s-%d-%05.1f|%c", "ab", -42, 3.25, 'z');
	char *big, *empty;
	char want[10001];

	CHECK_STR(s, "ab--42-003.2|z");
	free(s);
	empty = xstrfmt("%s", "");
	CHECK_STR(empty, "");
	free(empty);
	/* Longer than any fixed buffer a lazy implementation might use. */
	memset(want, 'q', 10000);
	want[10000] = '\0';
	big = xstrfmt("%s", want);
	CHECK_INT(strlen(big), 10000);
	CHECK_STR(big, want);
	free(big);
	s = xstrndup("abcdef", 3);
	CHECK_STR(s, "abc");
	free(s);
}

static void test_starts_with(void)
{
	CHECK(starts_with("hello", "he"));
	CHECK(starts_with("hello", "hello"));
	CHECK(starts_with("hello", ""));
	CHECK(starts_with("", ""));
	CHECK(!starts_with("hello", "hello!"));
	CHECK(!starts_with("hello", "eh"));
	CHECK(!starts_with("", "a"));
	CHECK(!starts_with("Hello", "he"));
}

/* error_errno() is error() with ": <strerror(errno)>" appended, on stderr,
 * and keeps errno. */
static void test_error_errno(void)
{
	char *want = xstrfmt("kwarm: error: cannot read 'x' (%d): %s\n", 3, strerror(ENOENT));
	char *got;

	check_capture_begin(2);
	errno = ENOENT;
	CHECK_INT(error_errno("cannot read '%s' (%d)", "x", 3), -1);
	CHECK_INT(errno, ENOENT);
	got = check_capture_end(2);
	CHECK_STR(got, want);
	free(got);
	free(want);
}

/* error_to() collects into its buf, "; "-separated, and prints nothing;
 * with NULL it is error(). */
static void test_error_to(void)
{
	char *want = xstrfmt("cannot lock 'a'; cannot open 'b': %s", strerror(EACCES)), *got;
	struct buf why = BUF_INIT;

	check_capture_begin(2);
	CHECK_INT(error_to(&why, "cannot lock '%s'", "a"), -1);
	errno = EACCES;
	CHECK_INT(error_errno_to(&why, "cannot open '%s'", "b"), -1);
	CHECK_INT(errno, EACCES);
	CHECK_INT(error_to(NULL, "shown %d", 1), -1);
	got = check_capture_end(2);
	CHECK_STR(why.s, want);
	CHECK_STR(got, "kwarm: error: shown 1\n");
	free(got);
	free(want);
	buf_release(&why);
}

/* xstrfmt_errno() words a reason as error_errno() does, and keeps errno. */
static void test_xstrfmt_errno(void)
{
	char *want = xstrfmt("cannot write in 'd': %s", strerror(ENOSPC)), *got;

	errno = ENOSPC;
	got = xstrfmt_errno("cannot write in '%s'", "d");
	CHECK_INT(errno, ENOSPC);
	CHECK_STR(got, want);
	free(got);
	free(want);
}

/* warning_errno() likewise, on stderr with the warning prefix. */
static void test_warning_errno(void)
{
	char *want = xstrfmt("kwarm: warning: cannot poll 'x': %s\n", strerror(EINTR)), *got;

	check_capture_begin(2);
	errno = EINTR;
	warning_errno("cannot poll '%s'", "x");
	CHECK_INT(errno, EINTR);
	got = check_capture_end(2);
	CHECK_STR(got, want);
	free(got);
	free(want);
}

static void test_write_read(const char *tmp)
{
	char *path = path_join(tmp, "data"), *data = NULL, *big, *pipe_in;
	size_t len = 0, big_len = 3 * 4096 + 123;
	int fds[2];

	/* A small file round-trips, NUL-terminated. */
	check_write_file(path, "hi\0there", 8, 0644);
	CHECK_INT(read_file_all(path, &data, &len), 0);
	CHECK_INT(len, 8);
	CHECK(!memcmp(data, "hi\0there", 8));
	CHECK_INT(data[8], 0);
	free(data);

	/* Empty file: an empty, NUL-terminated buffer. */
	check_write_file(path, "", 0, 0644);
	data = NULL;
	len = 99;
	CHECK_INT(read_file_all(path, &data, &len), 0);
	CHECK_INT(len, 0);
	CHECK(data != NULL);
	if (data)
		CHECK_INT(data[0], 0);
	free(data);

	/* Larger than 4 KiB, with every byte value. */
	big = xmalloc(big_len);
	for (size_t i = 0; i < big_len; i++)
		big[i] = (char)(i * 7 + i / 256);
	check_write_file(path, big, big_len, 0644);
	CHECK_INT(read_file_all(path, &data, &len), 0);
	CHECK_INT(len, big_len);
	CHECK(!memcmp(data, big, big_len));
	CHECK_INT(data[big_len], 0);
	free(data);

	/* A file exactly 4096 bytes long. */
	check_write_file(path, big, 4096, 0644);
	CHECK_INT(read_file_all(path, &data, &len), 0);
	CHECK_INT(len, 4096);
	CHECK(!memcmp(data, big, 4096));
	free(data);

	/* A file whose size stat cannot tell (a pipe), larger than 4 KiB: the
	 * writer is a child so that the pipe never fills up on us. */
	if (pipe(fds))
		die("cannot create a pipe");
	pipe_in = xstrfmt("/dev/fd/%d", fds[0]);
	{
		pid_t pid = fork();

		if (pid < 0)
			die("cannot fork");
		if (!pid) {
			close(fds[0]);
			_exit(write_all(fds[1], big, big_len) ? 1 : 0);
		}
		close(fds[1]);
		CHECK_INT(read_file_all(pipe_in, &data, &len), 0);
		CHECK_INT(len, big_len);
		CHECK(!memcmp(data, big, big_len));
		free(data);
		close(fds[0]);
		{
			int status;

			while (waitpid(pid, &status, 0) < 0)
				if (errno != EINTR)
					die("cannot wait");
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		}
	}
	free(pipe_in);
	free(big);

	/* A missing file: -1 with errno ENOENT. */
	free(path);
	path = path_join(tmp, "missing");
	errno = 0;
	CHECK_INT(read_file_all(path, &data, &len), -1);
	CHECK_INT(errno, ENOENT);
	/* A folder cannot be read as a file. */
	errno = 0;
	CHECK_INT(read_file_all(tmp, &data, &len), -1);
	CHECK_INT(errno, EISDIR);
	free(path);

	/* write_all on a closed descriptor: -1 with EBADF. */
	errno = 0;
	CHECK_INT(write_all(-1, "x", 1), -1);
	CHECK_INT(errno, EBADF);
	CHECK_INT(write_all(-1, "", 0), 0);
}

static void test_alloc_grow(void)
{
	int *v = NULL;
	size_t nr = 0, alloc = 0;

	for (int i = 0; i < 1000; i++) {
		ALLOC_GROW(v, nr + 1, alloc);
		CHECK(alloc >= nr + 1);
		v[nr++] = i;
	}
	CHECK_INT(nr, 1000);
	for (int i = 0; i < 1000; i++)
		if (v[i] != i)
			CHECK_INT(v[i], i);
	CHECK(alloc >= 1000 && alloc < 4000);
	/* A jump past double the size grows straight to what is asked. */
	ALLOC_GROW(v, 100000, alloc);
	CHECK_INT(alloc, 100000);
	v[99999] = 7;
	CHECK_INT(v[999], 999);
	/* No shrink, no growth when it is big enough. */
	ALLOC_GROW(v, 10, alloc);
	CHECK_INT(alloc, 100000);
	free(v);
}

int main(int argc, char **argv)
{
	char *tmp = check_tmpdir("util");

	check_init(argc, argv);
	TEST(test_xstrfmt(), "xstrfmt");
	TEST(test_starts_with(), "starts_with");
	TEST(test_error_errno(), "error_errno");
	TEST(test_error_to(), "error_to");
	TEST(test_xstrfmt_errno(), "xstrfmt_errno");
	TEST(test_warning_errno(), "warning_errno");
	TEST(test_write_read(tmp), "write_read");
	TEST(test_alloc_grow(), "alloc_grow");
	free(tmp);
	return check_done();
}
