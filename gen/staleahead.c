/* The remake check ahead of its answer (staleahead.h). The checking process
 * listens on a socket of the abstract namespace, which leaves no file
 * behind; it watches the make's end, so it never outlives it, and it holds
 * none of make's fds (a pipe read to its end would wait for it). Whatever
 * goes wrong, the answer side checks for itself: the same answer, later. */
#include "staleahead.h"
#include "inputs.h"
#include "os.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The answer's first byte: nothing changed, the path that changed follows,
 * or no answer (a damaged list: the asker checks, and says why). */
#define ANSWER_NONE 'n'
#define ANSWER_CHANGED 'c'
#define ANSWER_UNKNOWN 'e'

/* The fds the checking process keeps: 3 and 4, all others closed. */
#define LISTEN_FD 3
#define WATCH_FD 4

/* Put fd a at LISTEN_FD and fd b at WATCH_FD (either may sit at the
 * other's place now: both go up first). */
static void keep_fds(int a, int b)
{
	int high_a = fcntl(a, F_DUPFD, 64), high_b = fcntl(b, F_DUPFD, 64);

	if (high_a < 0 || high_b < 0 || dup2(high_a, LISTEN_FD) < 0 || dup2(high_b, WATCH_FD) < 0)
		_exit(1);
	os_close_fds_above(WATCH_FD);
}

__attribute__((noreturn))
static void answer_when_asked(const char *makefile, int listen_fd, int watch_fd)
{
	struct buf changed = BUF_INIT, answer = BUF_INIT;
	int null = open("/dev/null", O_RDWR);
	struct pollfd pfd[2];

	/* Nothing of make's: its $(shell) reads our stdout to its end. */
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(1);
	keep_fds(listen_fd, watch_fd);
	listen_fd = LISTEN_FD;
	watch_fd = WATCH_FD;

	if (inputs_changed(makefile, &changed))
		buf_addch(&answer, ANSWER_UNKNOWN);
	else if (changed.len)
		buf_addf(&answer, "%c%s", ANSWER_CHANGED, changed.s);
	else
		buf_addch(&answer, ANSWER_NONE);

	pfd[0].fd = listen_fd;
	pfd[1].fd = watch_fd;
	pfd[0].events = pfd[1].events = POLLIN;
	for (;;) {
		int fd;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (pfd[1].revents)
			_exit(0);
		if (!pfd[0].revents)
			continue;
		fd = accept(listen_fd, NULL, NULL);
		if (fd < 0)
			continue;
		write_all(fd, answer.s, answer.len);
		_exit(0);
	}
}

int stale_ahead_start(const char *makefile, long make_pid, struct buf *token)
{
	unsigned char nonce[8];
	int listen_fd = -1, watch_fd = -1;
	pid_t pid;

	if (os_random(nonce, sizeof(nonce)))
		return -1;
	buf_addf(token, "kwarm-stale-%ld-", make_pid);
	for (size_t i = 0; i < sizeof(nonce); i++)
		buf_addf(token, "%02x", nonce[i]);
	listen_fd = os_listen_local(token->s);
	watch_fd = listen_fd < 0 ? -1 : os_watch_exit(make_pid);
	fflush(NULL);
	pid = watch_fd < 0 ? -1 : fork();
	if (pid == 0)
		answer_when_asked(makefile, listen_fd, watch_fd);
	if (listen_fd >= 0)
		close(listen_fd);
	if (watch_fd >= 0)
		close(watch_fd);
	if (pid < 0) {
		buf_reset(token);
		return -1;
	}
	return 0;
}

/* A token stale_ahead_start could have made (it goes into a socket's name). */
static int token_ok(const char *token)
{
	size_t n = strlen(token);

	return n && n < 80 && starts_with(token, "kwarm-stale-") &&
	       strspn(token, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

int stale_ahead_answer(const char *token, const char *makefile, struct buf *changed)
{
	int fd = token_ok(token) ? os_connect_local(token) : -1;
	char *text = NULL;
	size_t len = 0;

	if (fd >= 0) {
		int got = !read_fd_all(fd, &text, &len, NULL) && len;

		close(fd);
		if (got && text[0] == ANSWER_NONE && len == 1) {
			free(text);
			return 0;
		}
		if (got && text[0] == ANSWER_CHANGED && len > 1) {
			buf_add(changed, text + 1, len - 1);
			free(text);
			return 0;
		}
		free(text);
	}
	return inputs_changed(makefile, changed);
}
