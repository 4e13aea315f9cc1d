/* remoteproto: the messages between kwarm (remote.c) and kwarm-remote.
 *
 * kwarm starts the helper when the remote is first asked, as
 *
 *   kwarm-remote URL CONNECT_MS TOTAL_MS
 *
 * its stdin and stdout one end of a socket pair; the helper reads
 * KWARM_REMOTE_TOKEN and ~/.netrc itself (no credential on a command line)
 * and ends at the end of its input. One request at a time, each answered
 * before the next, so that neither side waits on the other's reading:
 *
 *   request  GET <key> 0\n
 *            PUT <key> <length>\n<length bytes: the entry file>
 *   answer   <HTTP status> <length>\n<length bytes: the body>
 *            error <length>\n<length bytes: why the transfer failed>
 *
 * Every message is a header line whose last word is its body's length in
 * decimal bytes, then the body.
 */
#include "cache/remoteproto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Longer than any header line: two words and a length. */
#define HEAD_MAX 256

void remoteproto_init(struct remoteproto *p, int fd_in, int fd_out)
{
	p->fd_in = fd_in;
	p->fd_out = fd_out;
	p->at = p->len = 0;
}

/* All of data to fd: send() on a socket, for MSG_NOSIGNAL; write() else. */
static int send_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, data, len, MSG_NOSIGNAL);
		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int remoteproto_send(struct remoteproto *p, const char *head, const void *body, size_t len)
{
	struct buf line = BUF_INIT;
	int ret;

	buf_addf(&line, "%s %zu\n", head, len);
	ret = send_all(p->fd_out, line.s, line.len);
	if (!ret && len)
		ret = send_all(p->fd_out, body, len);
	buf_release(&line);
	return ret;
}

/* Read more input: its size, 0 at its end, -1 on an error. */
static ssize_t fill(struct remoteproto *p)
{
	ssize_t n;

	do
		n = read(p->fd_in, p->in, sizeof(p->in));
	while (n < 0 && errno == EINTR);
	p->at = 0;
	p->len = n > 0 ? (size_t)n : 0;
	return n;
}

/* The next n bytes into b: 0, or -1 when the input ends or fails first. */
static int take(struct remoteproto *p, struct buf *b, size_t n)
{
	size_t k;

	while (n) {
		if (p->at == p->len && fill(p) <= 0)
			return -1;
		k = p->len - p->at < n ? p->len - p->at : n;
		buf_add(b, p->in + p->at, k);
		p->at += k;
		n -= k;
	}
	return 0;
}

int remoteproto_recv(struct remoteproto *p, struct buf *head, struct buf *body, size_t max,
		     const char **why)
{
	char *nl, *sp, *end;
	unsigned long long len;
	ssize_t n;

	buf_reset(head);
	buf_reset(body);
	for (;;) {
		if (p->at == p->len) {
			n = fill(p);
			if (n <= 0) {
				*why = n < 0 ? "its answer cannot be read" : "it ended in a message";
				return !head->len && !n ? 0 : -1;
			}
		}
		nl = memchr(p->in + p->at, '\n', p->len - p->at);
		buf_add(head, p->in + p->at, nl ? (size_t)(nl - (p->in + p->at)) : p->len - p->at);
		p->at = nl ? (size_t)(nl + 1 - p->in) : p->len;
		if (head->len > HEAD_MAX) {
			*why = "a header line is too long";
			return -1;
		}
		if (nl)
			break;
	}
	sp = strrchr(buf_str(head), ' ');
	errno = 0;
	len = sp ? strtoull(sp + 1, &end, 10) : 0;
	if (!sp || end == sp + 1 || *end || errno || len > max) {
		*why = "a header line has no length, or too large a one";
		return -1;
	}
	head->len = (size_t)(sp - head->s);
	head->s[head->len] = '\0';
	if (take(p, body, (size_t)len)) {
		*why = "a message is cut short";
		return -1;
	}
	return 1;
}
