/* remoteproto: what kwarm and its helper kwarm-remote say to each other over
 * one socket (see remoteproto.c for the messages). The helper alone links
 * libcurl, so that kwarm, started once per compile, is linked fully static. */
#ifndef KWARM_REMOTEPROTO_H
#define KWARM_REMOTEPROTO_H

#include "buf.h"

/* The helper's program name, looked up beside kwarm's own. */
#define REMOTEPROTO_HELPER "kwarm-remote"

/* One end of the conversation: where it reads and writes, and what it has
 * read ahead. */
struct remoteproto {
	int fd_in, fd_out;
	size_t at, len;
	char in[4096];
};

void remoteproto_init(struct remoteproto *p, int fd_in, int fd_out);
/* Send one message, head then body: 0, or -1 with errno set (never SIGPIPE
 * on a socket). */
int remoteproto_send(struct remoteproto *p, const char *head, const void *body, size_t len);
/* Read one message into head and body (replaced), a body of at most max
 * bytes: 1, 0 at the end of input, -1 with *why (static) when the input is
 * not a message or cannot be read. */
int remoteproto_recv(struct remoteproto *p, struct buf *head, struct buf *body, size_t max,
		     const char **why);

#endif
