/* strvec: a growable NULL-terminated array of owned strings (an argv). */
#ifndef KWARM_STRVEC_H
#define KWARM_STRVEC_H

#include <stddef.h>

struct buf;

struct strvec {
	char **v;	/* NULL-terminated; never NULL after strvec_init */
	size_t nr;
	size_t alloc;
};

extern char *strvec_empty[];
#define STRVEC_INIT { .v = strvec_empty, .nr = 0, .alloc = 0 }

void strvec_init(struct strvec *sv);
void strvec_release(struct strvec *sv);
/* Drop the strings, keep the room. */
void strvec_clear(struct strvec *sv);
/* Append a copy of s. */
void strvec_push(struct strvec *sv, const char *s);
/* Append s itself; sv takes ownership. */
void strvec_push_nodup(struct strvec *sv, char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append copies of every string of other. */
void strvec_pushv(struct strvec *sv, const struct strvec *other);
/* Copy of src into a freshly initialised dst. */
void strvec_copy(struct strvec *dst, const struct strvec *src);
/* Index of s in sv, or -1. */
int strvec_find(const struct strvec *sv, const char *s);
/* Push the words of s, separated by spaces and tabs; with unescape, "\X" is
 * X and does not end a word (as make writes MAKEFLAGS). */
void strvec_split(struct strvec *sv, const char *s, int unescape);
/* qsort's comparison of two elements of a strvec's v (char *), by strcmp. */
int strvec_cmp(const void *a, const void *b);
/* Append the fields of s split at sep ("" has none, "a," has "a" and ""). */
void strvec_split_at(struct strvec *sv, const char *s, int sep);
/* Append sv's strings to b, sep between each two. */
void strvec_join(struct buf *b, const struct strvec *sv, const char *sep);

#endif
