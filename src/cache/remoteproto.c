/* remoteproto: the remote cache tier's protocol.
 *
 * HTTP/1.1 (or https where libcurl has TLS), for any server that stores what
 * PUT sends and serves it back with GET (nginx with dav_methods PUT and
 * create_full_put_path on, Apache mod_dav, bazel-remote's HTTP mode):
 *
 *   GET URL/kwarm-entry-2/<key>    200: the entry file's bytes; 404, 410: a miss
 *   PUT URL/kwarm-entry-2/<key>    the entry file's bytes; any 2xx is success
 *
 * Any other status is a failure. Credentials: "Authorization: Bearer TOKEN"
 * when KWARM_REMOTE_TOKEN is set, and ~/.netrc when present
 * (CURL_NETRC_OPTIONAL). Redirects are not followed (a token must not
 * travel elsewhere).
 *
 * The requests are made by the helper kwarm-remote. kwarm (remote.c) starts
 * it when the remote is first asked, as
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
 *   answer   <HTTP status> <length>\n<length bytes: the object (a GET's 200)>
 *            error <length>\n<length bytes: why the transfer failed>
 *
 * Every message is a header line whose last word is its body's length in
 * decimal bytes, then the body.
 */
#include "cache/remoteproto.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
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

/* One message, head then body: 0, or -1 with errno set. */
static int send_message(struct remoteproto *p, const char *head, const void *body, size_t len)
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

int remoteproto_ask(struct remoteproto *p, const char *verb, const char *key, const void *body,
		    size_t len)
{
	char *head = xstrfmt("%s %s", verb, key);
	int ret = send_message(p, head, body, len);

	free(head);
	return ret;
}

int remoteproto_answered(const char *verb, const char *head, const struct buf *body, char **what)
{
	int get = !strcmp(verb, "GET");
	char *end;
	long status;

	if (!strcmp(head, "error")) {
		*what = xstrfmt("%s failed: %s", verb, buf_str(body));
		return -1;
	}
	status = strtol(head, &end, 10);
	if (status < 100 || *end) {
		*what = xstrfmt("its helper answered '%s'", head);
		return -1;
	}
	if (status >= 200 && status <= (get ? 200 : 299))
		return 1;
	if (get && (status == 404 || status == 410))
		return 0;
	*what = xstrfmt("%s answered HTTP %ld", verb, status);
	return -1;
}

int remoteproto_parse_request(char *head, const char **verb, const char **key)
{
	char *sp = strchr(head, ' ');

	if (!sp)
		return -1;
	*sp = '\0';
	*verb = head;
	*key = sp + 1;
	return (strcmp(*verb, "GET") && strcmp(*verb, "PUT")) || !**key ||
	       (*key)[strspn(*key, "0123456789abcdef")] ? -1 : 0;
}

void remoteproto_headers(struct strvec *headers)
{
	const char *token = getenv("KWARM_REMOTE_TOKEN");

	/* Large bodies would wait a second for a "100 Continue". */
	strvec_push(headers, "Expect:");
	if (token && *token)
		strvec_pushf(headers, "Authorization: Bearer %s", token);
}

int remoteproto_answer(struct remoteproto *p, const char *verb, long status,
		       const struct buf *body, const char *why)
{
	char word[32];

	if (why)
		return send_message(p, "error", why, strlen(why));
	snprintf(word, sizeof(word), "%ld", status);
	/* Only a GET's 200 carries an entry; other bodies are error pages. */
	if (strcmp(verb, "GET") || status != 200)
		return send_message(p, word, NULL, 0);
	return send_message(p, word, body->s, body->len);
}
