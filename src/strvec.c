#include "strvec.h"
#include "buf.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an empty strvec points at, as git's strvec does: most of gen's
 * strvecs (a unit's link words, its variables) stay empty, and allocate
 * nothing. It never holds a string: the first push allocates. */
char *strvec_empty[] = { NULL };

void strvec_init(struct strvec *sv)
{
	*sv = (struct strvec)STRVEC_INIT;
}

void strvec_release(struct strvec *sv)
{
	if (sv->alloc) {
		for (size_t i = 0; i < sv->nr; i++)
			free(sv->v[i]);
		free(sv->v);
	}
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	sv->nr = 0;
	if (sv->alloc)
		sv->v[0] = NULL;
}

void strvec_push_nodup(struct strvec *sv, char *s)
{
	if (!sv->alloc)
		sv->v = NULL;
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strvec_push_nodup(sv, xstrvfmt(fmt, ap));
	va_end(ap);
}

void strvec_pushv(struct strvec *sv, const struct strvec *other)
{
	for (size_t i = 0; i < other->nr; i++)
		strvec_push(sv, other->v[i]);
}

void strvec_copy(struct strvec *dst, const struct strvec *src)
{
	strvec_init(dst);
	strvec_pushv(dst, src);
}

int strvec_find(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return (int)i;
	return -1;
}

void strvec_split(struct strvec *sv, const char *s, int unescape)
{
	struct buf w = BUF_INIT;

	for (s += strspn(s, " \t"); *s; s += strspn(s, " \t")) {
		buf_reset(&w);
		while (*s && *s != ' ' && *s != '\t') {
			if (unescape && *s == '\\' && s[1])
				s++;
			buf_addch(&w, *s++);
		}
		strvec_push(sv, buf_str(&w));
	}
	buf_release(&w);
}

int strvec_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strvec_split_at(struct strvec *sv, const char *s, int sep)
{
	const char *end;

	if (!*s)
		return;
	for (; (end = strchr(s, sep)); s = end + 1)
		strvec_push_nodup(sv, xstrndup(s, (size_t)(end - s)));
	strvec_push(sv, s);
}

void strvec_join(struct buf *b, const struct strvec *sv, const char *sep)
{
	for (size_t i = 0; i < sv->nr; i++) {
		if (i)
			buf_adds(b, sep);
		buf_adds(b, sv->v[i]);
	}
}
