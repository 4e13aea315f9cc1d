/* Unit tests of os (os-linux.c): a range lock conflicts between two open
 * descriptions of one file even within this process, shared locks do not,
 * and closing the fd drops it; a live, an unrelated and a dead pid; this
 * program's own path; this process's parent, name and start, by either clock;
 * a spawned child runs in the folder given; the file system's stamp of now;
 * a folder's listing with each name's kind; the restart for a large heap
 * undone on the second start, and not made when unwanted or when the user
 * set the allocator's settings (t_gen_heap sees the restart itself). */
#include "os.h"
#include "buf.h"
#include "check.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void test_lock_range(const char *dir)
{
	char *path = xstrfmt("%s/lock", dir);
	int a = open(path, O_RDWR | O_CREAT, 0666), b = open(path, O_RDWR);

	CHECK(a >= 0 && b >= 0);
	CHECK_INT(os_lock_range(a, 5, 1, 1, 0), 0);
	/* Another description of the same file: held, even by this process. */
	errno = 0;
	CHECK_INT(os_lock_range(b, 5, 1, 1, 0), -1);
	CHECK(errno == EAGAIN || errno == EACCES);
	CHECK_INT(os_lock_range(b, 5, 1, 0, 0), -1);
	/* Another byte is free. */
	CHECK_INT(os_lock_range(b, 6, 1, 1, 0), 0);
	close(a);
	/* Closing the fd dropped a's lock; shared locks share. */
	a = open(path, O_RDWR);
	CHECK_INT(os_lock_range(b, 5, 1, 0, 0), 0);
	CHECK_INT(os_lock_range(a, 5, 1, 0, 0), 0);
	CHECK_INT(os_lock_range(a, 6, 1, 0, 0), -1);
	close(a);
	close(b);
	free(path);
}

static void test_pid_alive(void)
{
	CHECK(os_pid_alive((long)getpid()));
	CHECK(os_pid_alive(1));	/* EPERM or ours: either way alive */
	CHECK(!os_pid_alive(check_dead_pid()));
	CHECK(!os_pid_alive(0));
	CHECK(!os_pid_alive(-5));
	CHECK(!os_pid_alive(1L << 40));
}

static void test_self_path(void)
{
	char *self = os_self_path();
	const char *base = self ? strrchr(self, '/') : NULL;

	CHECK(self && self[0] == '/');
	CHECK_STR(base ? base + 1 : "", "test_os");
	free(self);
}

static void test_process_info(void)
{
	struct os_process p;
	double now = now_wall(), fine, stable;

	CHECK_INT(os_process_info((int)getpid(), &p), 0);
	CHECK_INT(p.ppid, getppid());
	CHECK_STR(p.comm, "test_os");
	fine = os_ticks_to_unix(p.start);
	stable = os_ticks_to_unix_stable(p.start);
	/* This process started a moment ago; both conversions say so. */
	CHECK(fine <= now + 0.5 && fine > now - 600);
	CHECK(stable - fine < 2 && fine - stable < 2);
	CHECK_INT(os_process_info((int)check_dead_pid(), &p), -1);
}

/* /proc/stat's btime, as the test reads it. */
static long long proc_btime(void)
{
	char *text, *p;
	size_t len;
	long long v = -1;

	if (read_file_all("/proc/stat", &text, &len))
		return -1;
	p = strstr(text, "\nbtime ");
	if (p)
		v = strtoll(p + 7, NULL, 10);
	free(text);
	return v;
}

/* The stable conversion's boot time is btime to the second, read from the
 * clocks or not: many tries, so that its reading near a second's end is
 * checked too. */
static void test_stable_is_btime(void)
{
	long long want = proc_btime();
	int bad = 0;

	CHECK(want > 0);
	for (int i = 0; i < 2000; i++)
		bad += os_ticks_to_unix_stable(0) != (double)want;
	CHECK_INT(bad, 0);
}

static void test_spawn_chdir(const char *dir)
{
	char *const argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)"pwd > here", NULL };
	posix_spawn_file_actions_t fa;
	char *path = xstrfmt("%s/here", dir), *text, *want = xstrfmt("%s\n", dir);
	pid_t pid;
	int status = -1;

	posix_spawn_file_actions_init(&fa);
	CHECK_INT(os_spawn_chdir(&fa, dir), 0);
	if (CHECK_INT(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), 0))
		waitpid(pid, &status, 0);
	posix_spawn_file_actions_destroy(&fa);
	CHECK_INT(status, 0);
	text = check_read_file(path);
	CHECK_STR(text ? text : "", want);
	free(text);
	free(want);
	free(path);
}

/* Two draws of 16 random bytes differ (a chance of 2^-128 that they do not). */
static void test_random(void)
{
	unsigned char a[16], b[16];

	CHECK_INT(os_random(a, sizeof(a)), 0);
	CHECK_INT(os_random(b, sizeof(b)), 0);
	CHECK(memcmp(a, b, sizeof(a)));
}

/* A reopened pipe end is a description of its own: O_NONBLOCK set on it
 * leaves the original blocking, and it reads what the pipe holds. */
static void test_reopen_fd(void)
{
	int p[2], fd;
	char c = 0;

	CHECK_INT(pipe(p), 0);
	fd = os_reopen_fd(p[0], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK(!(fcntl(p[0], F_GETFL) & O_NONBLOCK));
	CHECK(read(fd, &c, 1) < 0 && errno == EAGAIN);
	CHECK_INT(write(p[1], "x", 1), 1);
	CHECK_INT(read(fd, &c, 1), 1);
	CHECK_INT(c, 'x');
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* Both ends of the pipe are close-on-exec; only the non-blocking one's read
 * of an empty pipe returns EAGAIN at once; what is written is read back. */
static void test_pipe_cloexec(void)
{
	for (int nonblock = 0; nonblock <= 1; nonblock++) {
		int p[2];
		char c = 0;

		CHECK_INT(os_pipe_cloexec(p, nonblock), 0);
		for (int i = 0; i < 2; i++) {
			CHECK_INT(fcntl(p[i], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
			CHECK_INT(!!(fcntl(p[i], F_GETFL) & O_NONBLOCK), nonblock);
		}
		if (nonblock)
			CHECK(read(p[0], &c, 1) < 0 && errno == EAGAIN);
		CHECK_INT(write(p[1], "y", 1), 1);
		CHECK_INT(read(p[0], &c, 1), 1);
		CHECK_INT(c, 'y');
		close(p[0]);
		close(p[1]);
	}
}

/* Both sockets are close-on-exec, and each end reads what the other wrote. */
static void test_socketpair_cloexec(void)
{
	int sv[2];
	char c = 0;

	CHECK_INT(os_socketpair_cloexec(sv), 0);
	CHECK_INT(fcntl(sv[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	CHECK_INT(fcntl(sv[1], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	CHECK_INT(write(sv[0], "a", 1), 1);
	CHECK_INT(read(sv[1], &c, 1), 1);
	CHECK_INT(c, 'a');
	CHECK_INT(write(sv[1], "b", 1), 1);
	CHECK_INT(read(sv[0], &c, 1), 1);
	CHECK_INT(c, 'b');
	close(sv[0]);
	close(sv[1]);
}

static int stamp_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return a->tv_nsec < b->tv_nsec ? -1 : a->tv_nsec > b->tv_nsec;
}

/* A file written (and looked at) just before is older than each of 50
 * stamps, one written just after is not; now: the last stamp. */
static void check_stamps(const char *dir, int (*stamp)(void *, struct timespec *), void *ctx,
			 struct timespec *now)
{
	char *before = xstrfmt("%s/before", dir), *after = xstrfmt("%s/after", dir);
	struct stat st;

	for (int i = 0; i < 50; i++) {
		CHECK(!write_file(before, "x", 1));
		CHECK(!stat(before, &st));
		CHECK(!write_file(before, "y", 1));
		CHECK(!stamp(ctx, now));
		CHECK(!stat(before, &st) && stamp_cmp(&st.st_mtim, now) < 0);
		CHECK(!write_file(after, "z", 1));
		CHECK(!stat(after, &st) && stamp_cmp(&st.st_mtim, now) >= 0);
	}
	free(before);
	free(after);
}

static int stamp_near(void *near, struct timespec *now)
{
	return os_file_stamp_now(near, now);
}

static int stamp_fd(void *fd, struct timespec *now)
{
	return os_file_stamp_fd(*(int *)fd, now);
}

/* The stamp's file is gone after. */
static void test_file_stamp_now(const char *dir)
{
	char *near = xstrfmt("%s/near.mk", dir), *left = xstrfmt("%s.stamp.%ld", near, (long)getpid());
	struct timespec now;
	struct stat st;

	check_stamps(dir, stamp_near, near, &now);
	CHECK(access(left, F_OK) && errno == ENOENT);
	/* At a path of the caller's: the file stays there, with that stamp. */
	CHECK(!os_file_stamp_at(near, &now));
	CHECK(!stat(near, &st) && !stamp_cmp(&st.st_mtim, &now));
	free(near);
	free(left);
}

static void note_listed(const char *name, enum os_kind kind, void *data)
{
	struct buf *b = data;

	buf_addf(b, "%s%s=%d", b->len ? " " : "", name, (int)kind);
}

/* A folder's names with their kinds as the listing gives them (a link is
 * OTHER, whatever it points at), never "." or ".."; a missing folder is -1. */
static void test_list_folder(const char *dir)
{
	char *folder = xstrfmt("%s/listed", dir), *path, *gone;
	struct buf b = BUF_INIT;

	path = xstrfmt("%s/sub", folder);
	CHECK_INT(mkdir_p(path), 0);
	free(path);
	check_write_text(folder, "f.txt", "x\n", 0644);
	path = xstrfmt("%s/link", folder);
	CHECK_INT(symlink("f.txt", path), 0);
	free(path);
	CHECK_INT(os_list_folder(folder, note_listed, &b), 0);
	/* Three names in the listing's order: each once, with its kind. */
	CHECK(strstr(b.s, "f.txt=1") && strstr(b.s, "sub=2") && strstr(b.s, "link=0"));
	CHECK_INT(strlen(b.s), strlen("f.txt=1 sub=2 link=0"));
	gone = xstrfmt("%s/gone", folder);
	errno = 0;
	CHECK_INT(os_list_folder(gone, note_listed, &b), -1);
	CHECK_INT(errno, ENOENT);
	free(gone);
	buf_release(&b);
	free(folder);
}

/* Off an open file, which stays one byte long: a step's stamp on its job
 * slot's file. */
static void test_file_stamp_fd(const char *dir)
{
	char *slot = xstrfmt("%s/slot.0", dir);
	int fd = open(slot, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	struct timespec now;
	struct stat st;

	CHECK(fd >= 0);
	check_stamps(dir, stamp_fd, &fd, &now);
	CHECK(!fstat(fd, &st) && st.st_size == 1 && !stamp_cmp(&st.st_mtim, &now));
	close(fd);
	free(slot);
}

/* os_heap_for_bulk's second start puts GLIBC_TUNABLES back as its mark
 * says it was; unwanted, or with the user's own malloc settings, it returns
 * (a restart would run this program again) with nothing changed. */
static void test_heap_for_bulk(void)
{
	const char *mark = "KWARM_HEAP_TUNED", *user = "glibc.pthread.mutex_spin_count=9";
	char *ours = xstrfmt("%s:glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864", user);

	setenv(mark, "=glibc.pthread.mutex_spin_count=9", 1);
	setenv("GLIBC_TUNABLES", ours, 1);
	os_heap_for_bulk(1);
	CHECK_STR(getenv("GLIBC_TUNABLES"), user);
	CHECK(!getenv(mark));
	setenv(mark, "-", 1);
	setenv("GLIBC_TUNABLES", ours, 1);
	os_heap_for_bulk(0);
	CHECK(!getenv("GLIBC_TUNABLES"));
	CHECK(!getenv(mark));
	os_heap_for_bulk(0);
	CHECK(!getenv("GLIBC_TUNABLES"));
	CHECK(!getenv(mark));
	setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=1", 1);
	os_heap_for_bulk(1);
	CHECK_STR(getenv("GLIBC_TUNABLES"), "glibc.malloc.arena_max=1");
	CHECK(!getenv(mark));
	unsetenv("GLIBC_TUNABLES");
	free(ours);
}

int main(int argc, char **argv)
{
	char *tmp, *dir;

	check_init(argc, argv);
	tmp = check_tmpdir("os");
	dir = realpath(tmp, NULL);
	if (!dir)
		die("cannot resolve '%s'", tmp);
	TEST(test_lock_range(dir), "lock_range");
	TEST(test_pid_alive(), "pid_alive");
	TEST(test_self_path(), "self_path");
	TEST(test_process_info(), "process_info");
	TEST(test_stable_is_btime(), "stable_is_btime");
	TEST(test_spawn_chdir(dir), "spawn_chdir");
	TEST(test_random(), "random");
	TEST(test_reopen_fd(), "reopen_fd");
	TEST(test_pipe_cloexec(), "pipe_cloexec");
	TEST(test_socketpair_cloexec(), "socketpair_cloexec");
	TEST(test_file_stamp_now(dir), "file_stamp_now");
	TEST(test_list_folder(dir), "list_folder");
	TEST(test_file_stamp_fd(dir), "file_stamp_fd");
	TEST(test_heap_for_bulk(), "heap_for_bulk");
	free(dir);
	free(tmp);
	return check_done();
}
