#include "jobserver.h"
#include "strvec.h"
#include "os.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLUS_HINT "is the make recipe that runs kwarm missing a '+' prefix?"
#define FALLBACK "going on with one job slot"

/* The handlers' state: signals are per process, so this is too. */
static volatile sig_atomic_t caught_sig;
static volatile sig_atomic_t caught_count;
static int wake_fd = -1;
static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
static struct sigaction saved_actions[ARRAY_SIZE(caught_signals)];

/* Parse a decimal int from s into *v; the end pointer in *end; 0 or -1. */
static int parse_int(const char *s, const char **end, int *v)
{
	char *e;
	long n;

	errno = 0;
	n = strtol(s, &e, 10);
	if (e == s || errno || n < INT_MIN || n > INT_MAX)
		return -1;
	*v = (int)n;
	*end = e;
	return 0;
}

void jobserver_parse(const char *makeflags, struct jobserver_auth *auth)
{
	struct strvec words = STRVEC_INIT;
	const char *last_auth = NULL, *last_fds = NULL;
	const char *s;

	*auth = (struct jobserver_auth){ .kind = JOBSERVER_NONE, .rfd = -1, .wfd = -1 };
	strvec_split(&words, makeflags ? makeflags : "", 1);
	/* After "--" come variable assignments, which may hold a fake. */
	for (size_t i = 0; i < words.nr && strcmp(words.v[i], "--"); i++) {
		if (starts_with(words.v[i], "--jobserver-auth="))
			last_auth = words.v[i] + strlen("--jobserver-auth=");
		else if (starts_with(words.v[i], "--jobserver-fds="))
			last_fds = words.v[i] + strlen("--jobserver-fds=");
	}
	if (last_auth || last_fds)
		auth->value = xstrdup(last_auth ? last_auth : last_fds);
	strvec_release(&words);
	if (!auth->value)
		return;

	s = auth->value;
	auth->kind = JOBSERVER_UNKNOWN;
	if (starts_with(s, "fifo:")) {
		if (s[5]) {
			auth->kind = JOBSERVER_FIFO;
			auth->path = s + 5;
		}
		return;
	}
	if (parse_int(s, &s, &auth->rfd) || *s++ != ',' ||
	    parse_int(s, &s, &auth->wfd) || *s) {
		auth->rfd = auth->wfd = -1;
		return;
	}
	auth->kind = auth->rfd < 0 || auth->wfd < 0 ? JOBSERVER_DISABLED : JOBSERVER_FDS;
}

void jobserver_auth_release(struct jobserver_auth *auth)
{
	free(auth->value);
	*auth = (struct jobserver_auth){ .kind = JOBSERVER_NONE, .rfd = -1, .wfd = -1 };
}

/* True when make's single-letter flags, the first MAKEFLAGS word when it has
 * no leading '-' and only letters, hold one of letters. */
static int first_word_has(const char *makeflags, const char *letters)
{
	struct strvec words = STRVEC_INIT;
	int has = 0;

	strvec_split(&words, makeflags ? makeflags : "", 1);
	if (words.nr && words.v[0][0] != '-') {
		const char *c = words.v[0];

		while (isalpha((unsigned char)*c))
			c++;
		has = !*c && strpbrk(words.v[0], letters);
	}
	strvec_release(&words);
	return has;
}

int jobserver_dry_run(const char *makeflags)
{
	return first_word_has(makeflags, "ntq");
}

int jobserver_keep_going(const char *makeflags)
{
	return first_word_has(makeflags, "k");
}

void jobserver_init(struct jobserver *js)
{
	*js = (struct jobserver){ .rfd = -1, .wfd = -1, .held = -1, .wake = { -1, -1 } };
}

/* Check that an inherited fd is an open FIFO with the right access mode. */
static const char *check_inherited_fd(int fd, int for_reading, struct stat *st)
{
	int acc;

	if (fcntl(fd, F_GETFD) < 0)
		return "is closed";
	if (fstat(fd, st) < 0)
		return "cannot be inspected";
	if (!S_ISFIFO(st->st_mode))
		return "is not a pipe";
	acc = fcntl(fd, F_GETFL);
	if (acc < 0)
		return "cannot be inspected";
	acc &= O_ACCMODE;
	if (for_reading && acc == O_WRONLY)
		return "is not open for reading";
	if (!for_reading && acc == O_RDONLY)
		return "is not open for writing";
	return NULL;
}

static int open_fds(struct jobserver *js, int rfd, int wfd)
{
	struct stat rst, wst;
	const char *why;
	int fd = rfd, flags;

	why = check_inherited_fd(rfd, 1, &rst);
	if (!why) {
		fd = wfd;
		why = check_inherited_fd(wfd, 0, &wst);
	}
	if (why) {
		warning("jobserver unavailable: fd %d named in MAKEFLAGS %s (" PLUS_HINT "); " FALLBACK,
			fd, why);
		return 1;
	}
	if (rst.st_dev != wst.st_dev || rst.st_ino != wst.st_ino) {
		warning("jobserver unavailable: fds %d and %d named in MAKEFLAGS are not one pipe ("
			PLUS_HINT "); " FALLBACK, rfd, wfd);
		return 1;
	}

	/*
	 * O_NONBLOCK lives in the file description, which make and every sibling
	 * share: a private one from /dev/fd is ours to change. Without /dev/fd, a
	 * description make already made non-blocking (4.3 does) can be shared.
	 */
	js->rfd = os_reopen_fd(rfd, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (js->rfd < 0) {
		flags = fcntl(rfd, F_GETFL);
		if (flags >= 0 && (flags & O_NONBLOCK))
			js->rfd = fcntl(rfd, F_DUPFD_CLOEXEC, 0);
	}
	if (js->rfd < 0) {
		warning_errno("jobserver unavailable, " FALLBACK ": cannot reopen fd %d", rfd);
		return 1;
	}
	js->wfd = fcntl(wfd, F_DUPFD_CLOEXEC, 0);
	if (js->wfd < 0) {
		warning_errno("jobserver unavailable, " FALLBACK ": cannot duplicate fd %d", wfd);
		close(js->rfd);
		js->rfd = -1;
		return 1;
	}
	return 0;
}

static int open_fifo(struct jobserver *js, const char *path)
{
	struct stat st;
	int flags;

	js->rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (js->rfd < 0) {
		warning_errno("jobserver unavailable, " FALLBACK ": cannot open fifo '%s'", path);
		return 1;
	}
	if (fstat(js->rfd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		warning("jobserver unavailable: '%s' is not a fifo; " FALLBACK, path);
		goto fail;
	}
	/* Non-blocking, so that a strange node can never hang the open; we read it, so a FIFO has a reader. */
	js->wfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (js->wfd < 0) {
		warning_errno("jobserver unavailable, " FALLBACK ": cannot open fifo '%s' for writing",
			      path);
		goto fail;
	}
	/* This description is private (we opened it), so it is ours to change. */
	flags = fcntl(js->wfd, F_GETFL);
	if (flags >= 0)
		fcntl(js->wfd, F_SETFL, flags & ~O_NONBLOCK);
	return 0;
fail:
	close(js->rfd);
	js->rfd = -1;
	return 1;
}

int jobserver_connect(struct jobserver *js, const char *makeflags)
{
	struct jobserver_auth auth;
	int ret = 1;

	if (js->rfd >= 0)
		BUG("jobserver_connect called twice");
	jobserver_parse(makeflags, &auth);
	switch (auth.kind) {
	case JOBSERVER_NONE:
		break;
	case JOBSERVER_DISABLED:
		warning("jobserver unavailable: make passed no pool ('--jobserver-auth=%s', "
			PLUS_HINT "); " FALLBACK, auth.value);
		break;
	case JOBSERVER_UNKNOWN:
		warning("jobserver unavailable: unknown form '%s' in MAKEFLAGS; " FALLBACK, auth.value);
		break;
	case JOBSERVER_FDS:
		ret = open_fds(js, auth.rfd, auth.wfd);
		break;
	case JOBSERVER_FIFO:
		ret = open_fifo(js, auth.path);
		break;
	}
	jobserver_auth_release(&auth);
	js->gone = 0;
	return ret;
}

int jobserver_connected(const struct jobserver *js)
{
	return js->rfd >= 0 && !js->gone;
}

static void drain_wake(struct jobserver *js)
{
	char junk[64];

	while (read(js->wake[0], junk, sizeof(junk)) > 0)
		;
}

int jobserver_acquire(struct jobserver *js)
{
	struct pollfd pfd[2] = {
		{ .fd = js->rfd, .events = POLLIN },
		{ .fd = js->wake[0], .events = POLLIN },	/* poll skips a negative fd */
	};
	unsigned char c;
	ssize_t n;

	if (js->held >= 0)
		BUG("a second jobserver token");
	if (!jobserver_connected(js))
		return 1;
	for (;;) {
		if (caught_sig)
			return -1;
		n = read(js->rfd, &c, 1);
		if (n == 1) {
			js->held = c;
			return 0;
		}
		if (n == 0) {
			warning("the jobserver pool is gone; " FALLBACK);
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			warning_errno("cannot read the jobserver pool, " FALLBACK);
			break;
		}
		/* Empty, or a sibling won the token we were woken for: wait again. */
		if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
			warning_errno("cannot poll the jobserver pool, " FALLBACK);
			break;
		}
		if (pfd[1].revents)
			drain_wake(js);
	}
	js->gone = 1;
	return 1;
}

void jobserver_release(struct jobserver *js)
{
	char c;

	if (js->held < 0)
		return;
	c = (char)js->held;
	js->held = -1;
	if (write_all(js->wfd, &c, 1) < 0)
		warning_errno("cannot give a token back to the jobserver");
}

void jobserver_disconnect(struct jobserver *js)
{
	jobserver_release(js);
	if (js->rfd >= 0)
		close(js->rfd);
	if (js->wfd >= 0)
		close(js->wfd);
	js->rfd = js->wfd = -1;
	if (js->catching) {
		for (size_t i = 0; i < ARRAY_SIZE(caught_signals); i++)
			sigaction(caught_signals[i], &saved_actions[i], NULL);
		wake_fd = -1;
		close(js->wake[0]);
		close(js->wake[1]);
		js->wake[0] = js->wake[1] = -1;
		js->catching = 0;
	}
}

/* A signal wakes the waiter through the self-pipe; SIGCHLD is no stop. */
static void on_signal(int sig)
{
	int saved_errno = errno;
	char c = 0;

	if (sig != SIGCHLD) {
		caught_sig = sig;
		caught_count++;
	}
	if (wake_fd >= 0 && write(wake_fd, &c, 1) < 0) {
		/* Full pipe: a wake-up is already pending, which is all we need. */
	}
	errno = saved_errno;
}

int jobserver_catch_signals(struct jobserver *js)
{
	if (js->catching)
		return 0;
	if (wake_fd >= 0)
		BUG("a second jobserver catches signals");
	if (os_pipe_cloexec(js->wake, 1) < 0) {
		js->wake[0] = js->wake[1] = -1;
		return error_errno("cannot create the jobserver self-pipe");
	}
	wake_fd = js->wake[1];
	caught_sig = 0;
	caught_count = 0;
	for (size_t i = 0; i < ARRAY_SIZE(caught_signals); i++) {
		int sig = caught_signals[i];
		struct sigaction sa = { .sa_handler = on_signal };

		sigaction(sig, NULL, &saved_actions[i]);
		/* Whoever started us ignores it on purpose (e.g. a background job). */
		if (sig != SIGCHLD && !(saved_actions[i].sa_flags & SA_SIGINFO) &&
		    saved_actions[i].sa_handler == SIG_IGN)
			continue;
		sigemptyset(&sa.sa_mask);
		if (sig == SIGCHLD)
			sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
		sigaction(sig, &sa, NULL);
	}
	js->catching = 1;
	return 0;
}

int jobserver_caught_signal(const struct jobserver *js)
{
	(void)js;
	return caught_sig;
}

unsigned jobserver_signal_count(const struct jobserver *js)
{
	(void)js;
	return (unsigned)caught_count;
}

int jobserver_wait_event(struct jobserver *js)
{
	struct pollfd pfd = { .fd = js->wake[0], .events = POLLIN };

	if (js->wake[0] < 0)
		return -1;
	if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
		return error_errno("cannot poll the jobserver self-pipe");
	drain_wake(js);
	return 0;
}

void jobserver_reraise(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t set;

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}
