/* util: error reporting and allocation helpers shared by every module. */
#ifndef KWARM_UTIL_H
#define KWARM_UTIL_H

#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct stat;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The one reporter behind the macros below: "kwarm: PREFIX MSG" on stderr,
 * or MSG into why when it is not NULL; MSG with ": <strerror(errno)>"
 * appended when with_errno. errno is kept. -1. */
struct buf;
int report_to(struct buf *why, const char *prefix, int with_errno, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Print "kwarm: error: MSG" to stderr and return -1. */
#define error(...) error_to(NULL, __VA_ARGS__)
/* error() with ": <strerror(errno)>" appended; errno is kept (git's error_errno). */
#define error_errno(...) error_errno_to(NULL, __VA_ARGS__)
/* error() into why instead of stderr when why is not NULL: appended,
 * "; "-separated, for a caller that decides whether it is shown. -1. */
#define error_to(why, ...) report_to((why), "error: ", 0, __VA_ARGS__)
/* error_to() with ": <strerror(errno)>" appended; errno is kept. */
#define error_errno_to(why, ...) report_to((why), "error: ", 1, __VA_ARGS__)
/* "MSG: <strerror(errno)>", as error_errno() words it, in a new string
 * (caller frees); errno is kept. */
char *xstrfmt_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "kwarm: warning: MSG" to stderr. */
#define warning(...) (void)report_to(NULL, "warning: ", 0, __VA_ARGS__)
/* warning() with ": <strerror(errno)>" appended; errno is kept. */
#define warning_errno(...) (void)report_to(NULL, "warning: ", 1, __VA_ARGS__)
/* Print "kwarm: MSG" to stderr and exit(1). Only main and commands call it. */
#define die(...) (report_to(NULL, "", 0, __VA_ARGS__), exit(1))
/* die() with ": <strerror(errno)>" appended. */
#define die_errno(...) (report_to(NULL, "", 1, __VA_ARGS__), exit(1))
/* A broken invariant: print where and abort. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* Allocators that die on exhaustion; the caller frees. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrvfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Grow *p (of *alloc elements of size sz) so that it holds at least n. */
#define ALLOC_GROW(p, n, alloc) \
	do { \
		if ((n) > (alloc)) { \
			size_t alloc_grow_new_ = (alloc) ? (alloc) * 2 : 8; \
			if (alloc_grow_new_ < (n)) \
				alloc_grow_new_ = (n); \
			(p) = xrealloc((p), alloc_grow_new_ * sizeof(*(p))); \
			(alloc) = alloc_grow_new_; \
		} \
	} while (0)

/* The first byte of s below 0x20 or 0x7f (DEL), or 0: what make and the
 * shell cannot carry in a word. */
static inline int control_byte(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return *p;
	return 0;
}

/* True when s starts with prefix. Inline: with a literal prefix its length
 * is known where it is called (a manifest's lines are matched against ten). */
static inline int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}
/* Write all of buf to fd, retrying short writes and EINTR; 0 or -1 (errno set). */
int write_all(int fd, const void *buf, size_t len);
/* flock(fd, how), again after EINTR: 0, or -1 (errno set). */
int flock_retry(int fd, int how);
/* Create or truncate path and write data to it; 0 or -1 (errno set). */
int write_file(const char *path, const void *data, size_t len);
/* Read all of path into a malloc'd buffer (NUL-terminated); 0 or -1 with errno set. */
int read_file_all(const char *path, char **data, size_t *len);
/* The same from the open fd, left open; st (may be NULL) gets its fstat. */
int read_fd_all(int fd, char **data, size_t *len, struct stat *st);

/* Seconds on CLOCK_MONOTONIC, for measuring durations. */
double now_monotonic(void);
/* Seconds since the epoch on CLOCK_REALTIME, for timestamps. */
double now_wall(void);

struct buf;
/* Append word as sh reads it back as one word: bare when plain, else in
 * single quotes; for a make recipe (make set) each $ doubled too. */
void add_shell_word(struct buf *b, const char *word, int make);

#endif
