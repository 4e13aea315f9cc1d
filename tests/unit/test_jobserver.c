#include "check.h"
#include "jobserver.h"
#include "util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void check_parse(const char *makeflags, enum jobserver_kind kind, int rfd, int wfd,
			const char *path)
{
	struct jobserver_auth a;

	jobserver_parse(makeflags, &a);
	if (!CHECK_INT(a.kind, kind))
		fprintf(stderr, "  MAKEFLAGS was \"%s\"\n", makeflags ? makeflags : "(null)");
	if (kind == JOBSERVER_FDS || kind == JOBSERVER_DISABLED) {
		CHECK_INT(a.rfd, rfd);
		CHECK_INT(a.wfd, wfd);
	}
	if (path)
		CHECK_STR(a.path, path);
	else
		CHECK(!a.path);
	jobserver_auth_release(&a);
}

static void test_parse(void)
{
	check_parse(NULL, JOBSERVER_NONE, -1, -1, NULL);
	check_parse("", JOBSERVER_NONE, -1, -1, NULL);
	check_parse(" -j3", JOBSERVER_NONE, -1, -1, NULL);
	check_parse(" -j", JOBSERVER_NONE, -1, -1, NULL);
	check_parse(" -j3 --jobserver-auth=3,4", JOBSERVER_FDS, 3, 4, NULL);
	check_parse("\t-j3\t--jobserver-auth=3,4\t", JOBSERVER_FDS, 3, 4, NULL);
	check_parse("kn -j3 --jobserver-fds=5,6", JOBSERVER_FDS, 5, 6, NULL);
	check_parse(" -j3 --jobserver-auth=fifo:/tmp/GMfifo123", JOBSERVER_FIFO, -1, -1, "/tmp/GMfifo123");
	check_parse(" -j3 --jobserver-auth=fifo:/tmp/a\\ b\\\\c", JOBSERVER_FIFO, -1, -1, "/tmp/a b\\c");
	check_parse(" -j3 --jobserver-auth=-2,-2", JOBSERVER_DISABLED, -2, -2, NULL);
	check_parse(" --jobserver-auth=3,-1", JOBSERVER_DISABLED, 3, -1, NULL);

	/* The last --jobserver-auth= wins, and beats any --jobserver-fds=. */
	check_parse("--jobserver-auth=3,4 --jobserver-auth=fifo:/p", JOBSERVER_FIFO, -1, -1, "/p");
	check_parse("--jobserver-auth=fifo:/p --jobserver-auth=7,8", JOBSERVER_FDS, 7, 8, NULL);
	check_parse("--jobserver-fds=1,2 --jobserver-auth=3,4 --jobserver-fds=5,6", JOBSERVER_FDS, 3, 4, NULL);
	check_parse("--jobserver-fds=1,2 --jobserver-fds=5,6", JOBSERVER_FDS, 5, 6, NULL);

	/* Nothing after "--" counts: command-line variables live there. */
	check_parse(" -j3 --jobserver-auth=3,4 -- --jobserver-auth=9,9", JOBSERVER_FDS, 3, 4, NULL);
	check_parse(" -j3 --jobserver-auth=3,4 -- FOO=x\\ --jobserver-auth=9,9", JOBSERVER_FDS, 3, 4, NULL);
	check_parse(" -j3 -- --jobserver-auth=9,9", JOBSERVER_NONE, -1, -1, NULL);
	check_parse(" -- FOO=--jobserver-auth=9,9", JOBSERVER_NONE, -1, -1, NULL);
	/* An escaped space glues words: this is one word, not an auth. */
	check_parse(" A\\ --jobserver-auth=9,9", JOBSERVER_NONE, -1, -1, NULL);
	check_parse(" -j3 --jobserver-auth=3,4 A\\ --jobserver-auth=9,9", JOBSERVER_FDS, 3, 4, NULL);

	check_parse("--jobserver-auth=3", JOBSERVER_UNKNOWN, -1, -1, NULL);
	check_parse("--jobserver-auth=3,4x", JOBSERVER_UNKNOWN, -1, -1, NULL);
	check_parse("--jobserver-auth=,4", JOBSERVER_UNKNOWN, -1, -1, NULL);
	check_parse("--jobserver-auth=", JOBSERVER_UNKNOWN, -1, -1, NULL);
	check_parse("--jobserver-auth=fifo:", JOBSERVER_UNKNOWN, -1, -1, NULL);
	check_parse("--jobserver-auth=gmake_semaphore_1234", JOBSERVER_UNKNOWN, -1, -1, NULL);
	check_parse("--jobserver-auth=99999999999,4", JOBSERVER_UNKNOWN, -1, -1, NULL);
}

static void test_dry_run(void)
{
	CHECK(jobserver_dry_run("n"));
	CHECK(jobserver_dry_run("n -- FOO=1"));
	CHECK(jobserver_dry_run("kn -j3 --jobserver-auth=3,4"));
	CHECK(jobserver_dry_run("  sn"));
	CHECK(jobserver_dry_run("t"));
	CHECK(jobserver_dry_run("q -j2"));
	CHECK(!jobserver_dry_run(NULL));
	CHECK(!jobserver_dry_run(""));
	CHECK(!jobserver_dry_run("-n"));
	CHECK(!jobserver_dry_run("k"));
	CHECK(!jobserver_dry_run("ks -j3 --jobserver-auth=3,4"));
	CHECK(!jobserver_dry_run("--no-print-directory"));
	CHECK(!jobserver_dry_run(" -j3 --no-print-directory -- FOO=n"));
	CHECK(!jobserver_dry_run("s -j3 --jobserver-auth=3,4 --no-print-directory"));
	CHECK(!jobserver_dry_run(" -- FOO=n"));
	CHECK(!jobserver_dry_run("FOO=n"));
}

static void test_keep_going(void)
{
	CHECK(jobserver_keep_going("k"));
	CHECK(jobserver_keep_going("rk -j2 --jobserver-auth=3,4"));
	CHECK(jobserver_keep_going("kw -j2 --jobserver-auth=3,4 -- KWARM_STOP=0"));
	CHECK(!jobserver_keep_going(NULL));
	CHECK(!jobserver_keep_going(""));
	CHECK(!jobserver_keep_going("r -j2 --jobserver-auth=3,4"));
	CHECK(!jobserver_keep_going(" -j2 --jobserver-auth=3,4 -- FOO=k"));
	CHECK(!jobserver_keep_going("-k"));
	CHECK(!jobserver_keep_going("FOO=k"));
}

/* Bytes waiting in a pipe. */
static int pending(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n) < 0)
		return -1;
	return n;
}

/* Read back every byte waiting in fd (a pipe or fifo), without blocking. */
static char *drain(int fd)
{
	char *s = xcalloc(1, 64);
	int n = pending(fd);

	if (n > 0 && n < 64 && read(fd, s, (size_t)n) != n)
		s[0] = '\0';
	return s;
}

static char *pipe_flags(int r, int w)
{
	return xstrfmt(" -j3 --jobserver-auth=%d,%d", r, w);
}

static void test_pipe_tokens(void)
{
	struct jobserver js;
	int p[2], flags_before;
	char *mf, *back;

	CHECK(!pipe(p));
	CHECK(!write_all(p[1], "ab", 2));
	flags_before = fcntl(p[0], F_GETFL);
	mf = pipe_flags(p[0], p[1]);

	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 0);
	CHECK(jobserver_connected(&js));
	/* Our own description, close-on-exec; make's shared one unchanged. */
	CHECK(js.rfd != p[0] && js.wfd != p[1]);
	CHECK(fcntl(js.rfd, F_GETFD) & FD_CLOEXEC);
	CHECK(fcntl(js.wfd, F_GETFD) & FD_CLOEXEC);
	CHECK(fcntl(js.rfd, F_GETFL) & O_NONBLOCK);
	CHECK_INT(fcntl(p[0], F_GETFL), flags_before);
	CHECK(!(fcntl(p[0], F_GETFL) & O_NONBLOCK));

	CHECK_INT(jobserver_acquire(&js), 0);
	CHECK_INT(pending(p[0]), 1);
	CHECK_INT(js.held, 'a');

	/* Back: the byte read, after the one left in the pool. */
	jobserver_release(&js);
	CHECK_INT(js.held, -1);
	jobserver_release(&js);	/* none held: a no-op */
	CHECK_INT(pending(p[0]), 2);
	jobserver_disconnect(&js);
	CHECK(!jobserver_connected(&js));
	back = drain(p[0]);
	CHECK_STR(back, "ba");
	free(back);

	/* Released by disconnect too. */
	CHECK(!write_all(p[1], "c", 1));
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 0);
	CHECK_INT(jobserver_acquire(&js), 0);
	CHECK_INT(pending(p[0]), 0);
	jobserver_disconnect(&js);
	back = drain(p[0]);
	CHECK_STR(back, "c");
	free(back);

	free(mf);
	close(p[0]);
	close(p[1]);
}

static void test_unusable(const char *dir)
{
	struct jobserver js;
	int p[2], q[2], fd;
	char *mf, *file;

	/* Closed fds: what a recipe without '+' sees under make 4.3. */
	CHECK(!pipe(p));
	close(p[0]);
	close(p[1]);
	mf = pipe_flags(p[0], p[1]);
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 1);
	CHECK(!jobserver_connected(&js));
	CHECK_INT(jobserver_acquire(&js), 1);
	jobserver_disconnect(&js);
	free(mf);

	/* A regular file. */
	file = xstrfmt("%s/regular", dir);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	mf = pipe_flags(fd, fd);
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 1);
	CHECK_INT(jobserver_acquire(&js), 1);
	jobserver_disconnect(&js);
	free(mf);
	close(fd);

	/* Ends swapped, and two different pipes. */
	CHECK(!pipe(p));
	CHECK(!pipe(q));
	mf = pipe_flags(p[1], p[0]);
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 1);
	jobserver_disconnect(&js);
	free(mf);
	mf = pipe_flags(p[0], q[1]);
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 1);
	jobserver_disconnect(&js);
	free(mf);

	/* Negative fds, unknown forms, missing or wrong fifos. */
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, " -j3 --jobserver-auth=-2,-2"), 1);
	jobserver_disconnect(&js);
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, " -j3 --jobserver-auth=gmake_semaphore_1"), 1);
	jobserver_disconnect(&js);
	mf = xstrfmt(" -j3 --jobserver-auth=fifo:%s/missing", dir);
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 1);
	jobserver_disconnect(&js);
	free(mf);
	mf = xstrfmt(" -j3 --jobserver-auth=fifo:%s", file);
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 1);
	jobserver_disconnect(&js);
	free(mf);

	/* No jobserver at all: quietly none. */
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, " -j3"), 1);
	CHECK_INT(jobserver_acquire(&js), 1);
	jobserver_disconnect(&js);

	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	free(file);
}

static void test_fifo(const char *dir)
{
	struct jobserver js;
	char *path = xstrfmt("%s/pool fifo", dir);
	char *mf = xstrfmt(" -j3 --jobserver-auth=fifo:%s/pool\\ fifo", dir);
	char *back;
	int holder;

	CHECK(!mkfifo(path, 0600));
	/* Keep the fifo open, or its bytes go when the last end closes. */
	holder = open(path, O_RDWR | O_NONBLOCK);
	CHECK(holder >= 0);
	CHECK(!write_all(holder, "xy", 2));
	jobserver_init(&js);
	CHECK_INT(jobserver_connect(&js, mf), 0);
	CHECK(fcntl(js.rfd, F_GETFD) & FD_CLOEXEC);
	CHECK(fcntl(js.wfd, F_GETFD) & FD_CLOEXEC);
	CHECK_INT(jobserver_acquire(&js), 0);
	CHECK_INT(pending(holder), 1);
	jobserver_disconnect(&js);
	back = drain(holder);
	CHECK_STR(back, "yx");
	free(back);
	close(holder);
	free(path);
	free(mf);
}

/*
 * A pipe pool for a forked child, with tokens already in it, and a second
 * pipe on which the child says it is ready (so the parent waits on that, not
 * on a guess).
 */
struct child_pool {
	int p[2], sync[2];
	char *mf;
};

/* Open the pool with tokens in it, and fork: 0 in the child, as fork(). */
static pid_t child_pool_fork(struct child_pool *cp, const char *tokens)
{
	CHECK(!pipe(cp->p));
	CHECK(!pipe(cp->sync));
	if (*tokens)
		CHECK(!write_all(cp->p[1], tokens, strlen(tokens)));
	cp->mf = pipe_flags(cp->p[0], cp->p[1]);
	return fork();
}

/* In the child: connect js to the pool and catch signals. */
static int child_pool_connect(struct child_pool *cp, struct jobserver *js)
{
	jobserver_init(js);
	if (jobserver_connect(js, cp->mf))
		return -1;
	return jobserver_catch_signals(js);
}

/* In the child: tell the parent it is ready. */
static int child_pool_ready(struct child_pool *cp)
{
	return write(cp->sync[1], "r", 1) == 1 ? 0 : -1;
}

/* In the parent: wait until the child is ready. */
static void child_pool_wait_ready(struct child_pool *cp)
{
	char c;

	CHECK(read(cp->sync[0], &c, 1) == 1);
}

/* Check that the pool holds exactly want, then close and free it. */
static void child_pool_close(struct child_pool *cp, const char *want)
{
	char *back = drain(cp->p[0]);

	CHECK_STR(back, want);
	free(back);
	free(cp->mf);
	close(cp->p[0]);
	close(cp->p[1]);
	close(cp->sync[0]);
	close(cp->sync[1]);
}

/* In a child: block for a token that the parent writes after "ready". */
static void test_wakeup(void)
{
	struct child_pool cp;
	int status;
	pid_t pid = child_pool_fork(&cp, "");

	if (pid == 0) {
		struct jobserver js;
		int ret;
		char c;

		if (child_pool_connect(&cp, &js))
			_exit(100);
		if (child_pool_ready(&cp))
			_exit(101);
		ret = jobserver_acquire(&js);
		c = js.held >= 0 ? (char)js.held : 0;
		jobserver_disconnect(&js);
		_exit(ret == 0 ? (unsigned char)c : 102);
	}
	child_pool_wait_ready(&cp);
	CHECK(!write_all(cp.p[1], "z", 1));
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 'z');
	child_pool_close(&cp, "z");
}

/*
 * The signal path, in a child: blocked for a token in an empty pool, or
 * holding the token and waiting for events as exec's loop does, take SIGTERM;
 * the wait must give up, a held token go back, and the child die by SIGTERM.
 */
static void signal_case(int held)
{
	const char *pool = held ? "t" : "";
	struct child_pool cp;
	int status;
	pid_t pid = child_pool_fork(&cp, pool);

	if (pid == 0) {
		struct jobserver js;
		int sig;

		if (child_pool_connect(&cp, &js))
			_exit(100);
		if (held && jobserver_acquire(&js) != 0)
			_exit(101);
		if (child_pool_ready(&cp))
			_exit(102);
		if (!held && jobserver_acquire(&js) != -1)
			_exit(103);
		while (held && !jobserver_caught_signal(&js))
			if (jobserver_wait_event(&js))
				_exit(103);
		sig = jobserver_caught_signal(&js);
		if (jobserver_signal_count(&js) != 1)
			_exit(104);
		jobserver_disconnect(&js);
		jobserver_reraise(sig);
		_exit(105);
	}
	child_pool_wait_ready(&cp);
	if (held)
		CHECK_INT(pending(cp.p[0]), 0);
	CHECK(!kill(pid, SIGTERM));
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	if (WIFEXITED(status))
		fprintf(stderr, "signal child exited %d\n", WEXITSTATUS(status));
	child_pool_close(&cp, pool);
}

/* An inherited SIG_IGN stays: the handler is not installed over it. */
static void test_sig_ign_kept(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct jobserver js;
		int got_int, got_term;

		signal(SIGINT, SIG_IGN);
		jobserver_init(&js);
		if (jobserver_catch_signals(&js))
			_exit(100);
		raise(SIGINT);
		got_int = jobserver_caught_signal(&js);
		raise(SIGTERM);
		got_term = jobserver_caught_signal(&js);
		jobserver_disconnect(&js);
		/* Restored on disconnect: SIGINT is still ignored. */
		raise(SIGINT);
		_exit(got_int == 0 && got_term == SIGTERM ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
	char *dir = check_tmpdir("jobserver");

	check_init(argc, argv);
	TEST(test_parse(), "parse");
	TEST(test_dry_run(), "dry_run");
	TEST(test_keep_going(), "keep_going");
	TEST(test_pipe_tokens(), "pipe_tokens");
	TEST(test_unusable(dir), "unusable");
	TEST(test_fifo(dir), "fifo");
	TEST(test_wakeup(), "wakeup");
	TEST(signal_case(0), "signal_blocked");
	TEST(signal_case(1), "signal_held");
	TEST(test_sig_ign_kept(), "sig_ign_kept");
	free(dir);
	return check_done();
}
