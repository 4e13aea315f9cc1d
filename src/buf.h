/* buf: a growable, always NUL-terminated byte string (git's strbuf, smaller). */
#ifndef KWARM_BUF_H
#define KWARM_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	char *s;	/* always NUL-terminated; "" when empty */
	size_t len;
	size_t alloc;
};

#define BUF_INIT { .s = NULL, .len = 0, .alloc = 0 }

void buf_init(struct buf *b);
void buf_release(struct buf *b);
/* Make room for n more bytes. */
void buf_grow(struct buf *b, size_t n);
void buf_reset(struct buf *b);
void buf_add(struct buf *b, const void *data, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addch(struct buf *b, char c);
void buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Give the string to the caller (who frees it) and reset b. */
char *buf_detach(struct buf *b);
/* The string, or "" for an unused buf. */
const char *buf_str(const struct buf *b);

#endif
