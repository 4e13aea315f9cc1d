#include "util.h"
#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* MSG, with ": <strerror(err)>" when err is not 0, into msg: the one wording
 * of a reason, whether printed, collected or returned. A stack buffer, so
 * that die() on exhausted memory still has its message. */
static void format_reason(char *msg, size_t size, int err, const char *fmt, va_list ap)
{
	size_t len;

	vsnprintf(msg, size, fmt, ap);
	len = strlen(msg);
	if (err)
		snprintf(msg + len, size - len, ": %s", strerror(err));
}

int report_to(struct buf *why, const char *prefix, int with_errno, const char *fmt, ...)
{
	int saved = errno;
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	format_reason(msg, sizeof(msg), with_errno ? saved : 0, fmt, ap);
	va_end(ap);
	if (!why) {
		/* One write per message, so that parallel jobs never interleave a line. */
		fprintf(stderr, "kwarm: %s%s\n", prefix, msg);
	} else {
		if (why->len)
			buf_adds(why, "; ");
		buf_adds(why, msg);
	}
	errno = saved;
	return -1;
}

char *xstrfmt_errno(const char *fmt, ...)
{
	int saved = errno;
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	format_reason(msg, sizeof(msg), saved, fmt, ap);
	va_end(ap);
	errno = saved;
	return xstrdup(msg);
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "kwarm: BUG: %s:%d: %s\n", file, line, msg);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die("out of memory (%zu bytes)", n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrvfmt(const char *fmt, va_list ap)
{
	char small[256];
	va_list copy;
	int n;
	char *p;

	/* Most strings fit the stack buffer: one formatting pass, not two. */
	va_copy(copy, ap);
	n = vsnprintf(small, sizeof(small), fmt, copy);
	va_end(copy);
	if (n < 0)
		BUG("bad format '%s'", fmt);
	p = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof(small))
		memcpy(p, small, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xstrvfmt(fmt, ap);
	va_end(ap);
	return p;
}

int flock_retry(int fd, int how)
{
	int ret;

	while ((ret = flock(fd, how)) && errno == EINTR)
		;
	return ret;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	int ret;

	if (fd < 0)
		return -1;
	ret = write_all(fd, data, len);
	if (close(fd))
		ret = -1;
	return ret;
}

int read_fd_all(int fd, char **data, size_t *len, struct stat *st)
{
	size_t alloc = 0, used = 0;
	char *buf = NULL;
	struct stat own;

	if (!st)
		st = &own;
	if (fstat(fd, st))
		memset(st, 0, sizeof(*st));
	if (st->st_size > 0) {
		/* Room for the NUL and for the read that finds the end. */
		alloc = (size_t)st->st_size + 2;
		buf = xmalloc(alloc);
	}
	for (;;) {
		ssize_t n;

		if (alloc - used < 2)
			ALLOC_GROW(buf, used + 4096, alloc);
		n = read(fd, buf + used, alloc - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return 0;
}

int read_file_all(const char *path, char **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, saved;

	if (fd < 0)
		return -1;
	ret = read_fd_all(fd, data, len, NULL);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

static double clock_seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double now_monotonic(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double now_wall(void)
{
	return clock_seconds(CLOCK_REALTIME);
}

/* True when word needs no shell quotes: letters, digits and _-+=/.,:@%, by
 * hand (strspn with this set costs gen more). */
static int shell_plain(const char *word)
{
	const char *p = word;

	for (; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("_-+=/.,:@%", *p))
			return 0;
	return p != word;
}

void add_shell_word(struct buf *b, const char *word, int make)
{
	if (shell_plain(word)) {
		buf_adds(b, word);
		return;
	}
	buf_addch(b, '\'');
	for (const char *p = word; *p; p++) {
		size_t n = strcspn(p, make ? "'$" : "'");

		buf_add(b, p, n);
		p += n;
		if (!*p)
			break;
		buf_adds(b, *p == '$' ? "$$" : "'\\''");
	}
	buf_addch(b, '\'');
}
