/* remoteproto: the remote cache tier's protocol (see remoteproto.c): the HTTP
 * requests, and what kwarm and its helper kwarm-remote, which makes them, say
 * to each other over one socket. The helper alone links libcurl, so that
 * kwarm, started once per compile, is linked fully static. */
#ifndef KWARM_REMOTEPROTO_H
#define KWARM_REMOTEPROTO_H

#include "buf.h"
#include "strvec.h"

/* The helper's program name, looked up beside kwarm's own. */
#define REMOTEPROTO_HELPER "kwarm-remote"
/* The URL path element objects live under: the entry schema. */
#define REMOTEPROTO_LAYOUT "kwarm-entry-2"
/* No entry is larger: anything bigger is not one of ours. */
#define REMOTEPROTO_MAX_OBJECT (1024LL * 1024 * 1024)

/* One end of the conversation: where it reads and writes, and what it has
 * read ahead. */
struct remoteproto {
	int fd_in, fd_out;
	size_t at, len;
	char in[4096];
};

void remoteproto_init(struct remoteproto *p, int fd_in, int fd_out);
/* Read one message into head and body (replaced), a body of at most max
 * bytes: 1, 0 at the end of input, -1 with *why (static) when the input is
 * not a message or cannot be read. */
int remoteproto_recv(struct remoteproto *p, struct buf *head, struct buf *body, size_t max,
		     const char **why);

/* kwarm: ask for key's object, verb "GET", or "PUT" with the entry file as
 * body; 0, or -1 with errno set (never SIGPIPE on a socket). */
int remoteproto_ask(struct remoteproto *p, const char *verb, const char *key, const void *body,
		    size_t len);
/* kwarm: what the answer head (its body in body) to a request verb means: 1
 * done (a GET's object is the body), 0 a GET's miss, -1 a failure, *what
 * saying which (caller frees). */
int remoteproto_answered(const char *verb, const char *head, const struct buf *body, char **what);

/* The helper: the verb and key of a request head (cut in two), 0; -1 when
 * head is not a request. */
int remoteproto_parse_request(char *head, const char **verb, const char **key);
/* The helper: the request headers to send beyond libcurl's own. */
void remoteproto_headers(struct strvec *headers);
/* The helper: answer request verb with HTTP status and the response's body,
 * or with why the transfer failed when why is not NULL. */
int remoteproto_answer(struct remoteproto *p, const char *verb, long status,
		       const struct buf *body, const char *why);

#endif
