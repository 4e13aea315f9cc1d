/* Unit tests of runid: the start of the nearest make ancestor (else of the
 * process itself), the run tag, and whether a tag's make still runs. */
#include "check.h"
#include "report/runid.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Read a double from fd; NAN on failure. */
static double read_double(int fd)
{
	double v;

	return read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? v : NAN;
}

static void test_make_run_start(void)
{
	int fds[2];
	pid_t child;
	double t0 = now_wall(), got, want, own, t1;
	int status;

	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		/* A fake make: named so, and started clearly before its child. */
		double mine, v[3];
		pid_t gc;

		prctl(PR_SET_NAME, "make");
		mine = check_proc_start(getpid());
		while (now_wall() < mine + 0.1) {
			struct timespec ts = { 0, 10000000 };

			nanosleep(&ts, NULL);
		}
		gc = fork();
		if (!gc) {
			v[0] = runid_start();
			v[1] = check_proc_start(getppid());
			v[2] = check_proc_start(getpid());
			_exit(write(fds[1], v, sizeof(v)) == (ssize_t)sizeof(v) ? 0 : 1);
		}
		_exit(gc > 0 && waitpid(gc, &status, 0) == gc && WIFEXITED(status) &&
		      !WEXITSTATUS(status) ? 0 : 1);
	}
	close(fds[1]);
	got = read_double(fds[0]);
	want = read_double(fds[0]);
	own = read_double(fds[0]);
	close(fds[0]);
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && !WEXITSTATUS(status));
	t1 = now_wall();
	CHECK(!isnan(got) && fabs(got - want) < 1e-6);		/* the "make", ... */
	CHECK(own - got > 0.05);				/* ... not itself */
	/* Clock ticks are 1/100 s or finer; the kernel truncates. */
	CHECK(got >= t0 - 0.02 && got <= t1);
}

/* With no make among its ancestors (an orphan, adopted by init), the process's
 * own start is the run's start. */
static void test_no_make(void)
{
	int fds[2], go[2], status;
	pid_t child;
	double got, own;

	if (pipe(fds) || pipe(go))
		die("pipe: %s", strerror(errno));
	child = fork();
	if (!child) {
		pid_t gc = fork();

		if (!gc) {
			double v[2];
			char c;

			close(go[1]);
			/* Wait until the parent is gone and we are adopted. */
			if (read(go[0], &c, 1) != 0)
				_exit(1);
			v[0] = runid_start();
			v[1] = check_proc_start(getpid());
			_exit(write(fds[1], v, sizeof(v)) == (ssize_t)sizeof(v) ? 0 : 1);
		}
		_exit(0);	/* closes its end of go: the orphan proceeds */
	}
	close(fds[1]);
	close(go[1]);
	close(go[0]);
	CHECK(waitpid(child, &status, 0) == child);
	got = read_double(fds[0]);
	own = read_double(fds[0]);
	close(fds[0]);
	CHECK(!isnan(got) && fabs(got - own) < 1e-6);
}

/* The tag names this process's run (no make above a unit test: itself),
 * and that run is alive; a dead pid's or a reused pid's run is not. */
static void test_tag_alive(void)
{
	char tag[RUNID_TAG_SIZE], *other;
	int status;
	pid_t child;

	runid_tag(tag, sizeof(tag));
	CHECK(strchr(tag, '@') && !strchr(tag, ' '));
	CHECK(runid_alive(tag));
	child = fork();
	if (!child)
		_exit(0);
	CHECK(waitpid(child, &status, 0) == child);
	other = xstrfmt("%d@1.00", (int)child);
	CHECK(!runid_alive(other));
	free(other);
	/* Our pid, but a start far from ours: another process that had the pid. */
	other = xstrfmt("%d@%.2f", (int)getpid(), check_proc_start(getpid()) - 1000);
	CHECK(!runid_alive(other));
	free(other);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_make_run_start(), "make_run_start");
	TEST(test_no_make(), "no_make");
	TEST(test_tag_alive(), "tag_alive");
	return check_done();
}
