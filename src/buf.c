#include "buf.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b)
{
	*b = (struct buf)BUF_INIT;
}

void buf_release(struct buf *b)
{
	free(b->s);
	buf_init(b);
}

void buf_grow(struct buf *b, size_t n)
{
	if (b->len + n + 1 > b->alloc) {
		size_t want = b->alloc ? b->alloc * 2 : 64;

		if (want < b->len + n + 1)
			want = b->len + n + 1;
		b->s = xrealloc(b->s, want);
		b->alloc = want;
		b->s[b->len] = '\0';
	}
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void buf_add(struct buf *b, const void *data, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->s + b->len, data, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addch(struct buf *b, char c)
{
	if (b->len + 2 > b->alloc)
		buf_grow(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	char small[256];
	int in_place = b->alloc - b->len >= sizeof(small);
	va_list ap;
	int n;

	/* One formatting pass (most of gen's cost was formatting twice): into
	 * the spare room when there is plenty, else into a stack buffer; a
	 * second pass only for text longer than the room it had. */
	va_start(ap, fmt);
	n = in_place ? vsnprintf(b->s + b->len, b->alloc - b->len, fmt, ap)
		     : vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		BUG("bad format '%s'", fmt);
	if (!in_place && (size_t)n < sizeof(small)) {
		buf_add(b, small, (size_t)n);
		return;
	}
	if ((size_t)n >= b->alloc - b->len) {
		buf_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

char *buf_detach(struct buf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	buf_init(b);
	return s;
}

const char *buf_str(const struct buf *b)
{
	return b->s ? b->s : "";
}
