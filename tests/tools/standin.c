/*
 * kwarm-standin: a stand-in compiler for the tests and the benchmark.
 *
 * Usage, as a compiler: kwarm-standin [flags...] [-I dir...] -o OUT SOURCE...
 *
 * It sleeps for the cost written in the first source (so runs measure
 * scheduling, not the machine's cores) and writes an output that depends on
 * the arguments and the inputs and on nothing else.
 *
 * Environment:
 *   STANDIN_LOG    file to which one "start NS PID SOURCE" and one
 *                  "end NS PID SOURCE" line are appended (NS: CLOCK_MONOTONIC
 *                  nanoseconds); each line is one write() on an O_APPEND
 *                  descriptor, so concurrent processes never interleave
 *   STANDIN_SCALE  factor applied to the cost (default 0: no sleep)
 *
 * Lines of the first source it obeys (anywhere in the file):
 *   kwarm-cost: SECONDS         the compile's cost (a double)
 *   kwarm-cost(MACRO): SECONDS  the cost instead when MACRO is defined by a -D
 *                               argument (one source, two toolchains)
 *   kwarm-standin: block FILE   write a partial output (as a compiler does
 *                               mid-write), create FILE, then wait until
 *                               FILE.go exists
 *   kwarm-standin: crash        die by SIGSEGV
 *   kwarm-standin: fail         print a compiler-style error, exit 1
 *   kwarm-standin: empty        exit 0 without writing the output
 * The order is: log start, block, sleep, crash/fail/empty, write, log end.
 * A first source that is itself a stand-in output (a link or extract step
 * run through the stand-in) carries no directives: it only costs nothing.
 *
 * Output format (OUT):
 *   "kwarm-standin-output v1\n"
 *   "arg ARG\n"                    every argument but the "-o OUT" pair
 *   "source PATH LEN\n" CONTENT "\n"   every source, in order
 *   "header PATH LEN\n" CONTENT "\n"   every header a source names with
 *                                  #include "x", found next to that source or
 *                                  in an -I dir (one level, no recursion)
 *   "header NAME missing\n"        a named header that was not found
 * Lengths make the encoding unambiguous, so outputs differ iff inputs differ.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STANDIN_MAX_ARGS 4096
#define OUTPUT_MAGIC "kwarm-standin-output v1\n"

struct blob {
	char *data;
	size_t len;
};

struct outbuf {
	char *data;
	size_t len, alloc;
};

static void fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("kwarm-standin: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		fatal("out of memory");
	return q;
}

static void out_add(struct outbuf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->alloc) {
		b->alloc = (b->len + n + 1) * 2;
		b->data = xrealloc(b->data, b->alloc);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void out_str(struct outbuf *b, const char *s)
{
	out_add(b, s, strlen(s));
}

/* Reads a whole file; returns 0, or -1 with errno set. */
static int read_blob(const char *path, struct blob *out)
{
	int fd = open(path, O_RDONLY);
	size_t alloc = 4096;
	ssize_t n;

	if (fd < 0)
		return -1;
	out->data = xrealloc(NULL, alloc);
	out->len = 0;
	for (;;) {
		if (out->len == alloc) {
			alloc *= 2;
			out->data = xrealloc(out->data, alloc);
		}
		n = read(fd, out->data + out->len, alloc - out->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			free(out->data);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
	}
	close(fd);
	return 0;
}

static int write_all_fd(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One write() per line on an O_APPEND descriptor keeps lines whole. */
static void log_event(const char *what, const char *source)
{
	const char *path = getenv("STANDIN_LOG");
	char line[4096];
	int fd, n;

	if (!path || !*path)
		return;
	n = snprintf(line, sizeof(line), "%s %llu %ld %s\n", what,
		     (unsigned long long)now_ns(), (long)getpid(), source);
	if (n < 0 || (size_t)n >= sizeof(line))
		fatal("log line too long");
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		fatal("cannot open log '%s': %s", path, strerror(errno));
	if (write(fd, line, (size_t)n) != n)
		fatal("cannot write log '%s': %s", path, strerror(errno));
	close(fd);
}

static void sleep_seconds(double s)
{
	struct timespec req, rem;

	if (!(s > 0))
		return;
	req.tv_sec = (time_t)s;
	req.tv_nsec = (long)((s - (double)req.tv_sec) * 1e9);
	if (req.tv_nsec >= 1000000000L)
		req.tv_nsec = 999999999L;
	while (nanosleep(&req, &rem) < 0 && errno == EINTR)
		req = rem;
}

/* Finds NAME in a blob; returns the position just after it, or NULL. */
static const char *find_after(const struct blob *b, const char *from, const char *name)
{
	size_t nlen = strlen(name);
	const char *end = b->data + b->len;
	const char *p;

	for (p = from; p + nlen <= end; p++)
		if (!memcmp(p, name, nlen))
			return p + nlen;
	return NULL;
}

/* The word after "kwarm-standin: " (up to blanks or end of line), or "". */
static void directive_word(const char *p, const char *end, char *word, size_t size)
{
	size_t n = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && n + 1 < size)
		word[n++] = *p++;
	word[n] = '\0';
}

struct directives {
	double cost;
	int crash, fail, empty;
	char block[1024];
};

/* Whether the arguments define MACRO (-DMACRO, -DMACRO=V, -D MACRO, -D MACRO=V). */
static int defines(int argc, char **argv, const char *macro, size_t len)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-D") && i + 1 < argc)
			a = argv[++i];
		else if (!strncmp(a, "-D", 2))
			a += 2;
		else
			continue;
		if (!strncmp(a, macro, len) && (a[len] == '\0' || a[len] == '='))
			return 1;
	}
	return 0;
}

static void read_directives(const struct blob *src, int argc, char **argv,
			    struct directives *d)
{
	const char *end = src->data + src->len;
	const char *p;

	memset(d, 0, sizeof(*d));
	if (src->len >= strlen(OUTPUT_MAGIC) && !memcmp(src->data, OUTPUT_MAGIC, strlen(OUTPUT_MAGIC)))
		return;
	p = find_after(src, src->data, "kwarm-cost:");
	if (p) {
		char num[64];
		directive_word(p, end, num, sizeof(num));
		d->cost = strtod(num, NULL);
	}
	for (p = src->data; (p = find_after(src, p, "kwarm-cost(")); ) {
		const char *close_paren = memchr(p, ')', (size_t)(end - p));
		char num[64];
		if (!close_paren || close_paren + 1 >= end || close_paren[1] != ':' ||
		    memchr(p, '\n', (size_t)(close_paren - p)))
			continue;
		if (!defines(argc, argv, p, (size_t)(close_paren - p)))
			continue;
		directive_word(close_paren + 2, end, num, sizeof(num));
		d->cost = strtod(num, NULL);
	}
	for (p = src->data; (p = find_after(src, p, "kwarm-standin:")); ) {
		char word[64];
		directive_word(p, end, word, sizeof(word));
		if (!strcmp(word, "crash")) {
			d->crash = 1;
		} else if (!strcmp(word, "fail")) {
			d->fail = 1;
		} else if (!strcmp(word, "empty")) {
			d->empty = 1;
		} else if (!strcmp(word, "block")) {
			const char *q = p;
			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			q += strlen("block");
			directive_word(q, end, d->block, sizeof(d->block));
		}
	}
}

static void block_on(const char *file)
{
	char go[1100];
	int fd;

	if (snprintf(go, sizeof(go), "%s.go", file) >= (int)sizeof(go))
		fatal("block path too long");
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		fatal("cannot create '%s': %s", file, strerror(errno));
	close(fd);
	/* A test synchronisation hook: poll until the test lets us go. */
	while (access(go, F_OK) < 0)
		sleep_seconds(0.01);
}

static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Resolves NAME next to SOURCE, then in each -I dir; returns a malloc'ed path or NULL. */
static char *resolve_header(const char *source, const char *name,
			    const char **idirs, int nidirs)
{
	const char *slash = strrchr(source, '/');
	size_t cap = strlen(source) + strlen(name) + 2;
	char *path;
	int i;

	for (i = 0; i < nidirs; i++)
		if (strlen(idirs[i]) + strlen(name) + 2 > cap)
			cap = strlen(idirs[i]) + strlen(name) + 2;
	path = xrealloc(NULL, cap);
	if (name[0] == '/')
		snprintf(path, cap, "%s", name);
	else if (slash)
		snprintf(path, cap, "%.*s/%s", (int)(slash - source), source, name);
	else
		snprintf(path, cap, "%s", name);
	if (is_file(path))
		return path;
	for (i = 0; i < nidirs && name[0] != '/'; i++) {
		snprintf(path, cap, "%s/%s", idirs[i], name);
		if (is_file(path))
			return path;
	}
	free(path);
	return NULL;
}

static void add_entry(struct outbuf *o, const char *kind, const char *path,
		      const struct blob *b)
{
	char head[64];

	out_str(o, kind);
	out_str(o, " ");
	out_str(o, path);
	snprintf(head, sizeof(head), " %zu\n", b->len);
	out_str(o, head);
	out_add(o, b->data, b->len);
	out_str(o, "\n");
}

/* Appends every header SOURCE names with #include "x". */
static void add_headers(struct outbuf *o, const char *source, const struct blob *src,
			const char **idirs, int nidirs)
{
	const char *end = src->data + src->len;
	const char *p = src->data;

	while ((p = find_after(src, p, "#include"))) {
		const char *q = p, *close_quote;
		char *name, *path;
		struct blob h;

		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q >= end || *q != '"')
			continue;
		q++;
		close_quote = memchr(q, '"', (size_t)(end - q));
		if (!close_quote || memchr(q, '\n', (size_t)(close_quote - q)))
			continue;
		name = strndup(q, (size_t)(close_quote - q));
		if (!name)
			fatal("out of memory");
		path = resolve_header(source, name, idirs, nidirs);
		if (path && !read_blob(path, &h)) {
			add_entry(o, "header", name, &h);
			free(h.data);
		} else {
			out_str(o, "header ");
			out_str(o, name);
			out_str(o, " missing\n");
		}
		free(path);
		free(name);
		p = close_quote;
	}
}

/* Options whose value is the next argument (and is neither a source nor an -I dir). */
static int takes_value(const char *a)
{
	static const char *const opts[] = {
		"-D", "-U", "-include", "-isystem", "-iquote", "-x", "-MF", "-MT", "-MQ",
		"-L", "-l", "-e", "-T", NULL,
	};
	int i;

	for (i = 0; opts[i]; i++)
		if (!strcmp(a, opts[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *sources[STANDIN_MAX_ARGS], *idirs[STANDIN_MAX_ARGS];
	int nsources = 0, nidirs = 0, i;
	const char *out = "a.out";
	const char *scale_env = getenv("STANDIN_SCALE");
	double scale = scale_env ? strtod(scale_env, NULL) : 0;
	struct outbuf o = { 0 };
	struct directives d;
	struct blob first;
	int fd;

	if (argc > STANDIN_MAX_ARGS)
		fatal("too many arguments");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--version")) {
			puts("kwarm-standin 1");
			return 0;
		}
		if (!strcmp(a, "-o")) {
			if (i + 1 >= argc)
				fatal("missing argument to '-o'");
			out = argv[++i];
		} else if (!strncmp(a, "-o", 2)) {
			out = a + 2;
		} else if (!strcmp(a, "-I")) {
			if (i + 1 >= argc)
				fatal("missing argument to '-I'");
			idirs[nidirs++] = argv[++i];
		} else if (!strncmp(a, "-I", 2)) {
			idirs[nidirs++] = a + 2;
		} else if (takes_value(a)) {
			i++;
		} else if (a[0] != '-' || !a[1]) {
			sources[nsources++] = a;
		}
	}
	if (!nsources)
		fatal("no input files");

	log_event("start", sources[0]);
	if (read_blob(sources[0], &first) < 0) {
		fprintf(stderr, "kwarm-standin: cannot read '%s': %s\n", sources[0], strerror(errno));
		log_event("end", sources[0]);
		return 1;
	}
	read_directives(&first, argc, argv, &d);
	if (d.block[0]) {
		/* Caught mid-write: whoever runs us must not keep this. */
		int part = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

		if (part < 0 || write(part, "kwarm-standin-partial\n", 22) != 22)
			fatal("cannot write '%s': %s", out, strerror(errno));
		close(part);
		block_on(d.block);
	}
	sleep_seconds(d.cost * scale);
	if (d.crash) {
		fflush(NULL);
		/* A sanitizer build would catch the signal and exit 1 instead. */
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	if (d.fail || d.empty) {
		free(first.data);
		if (d.fail)
			fprintf(stderr, "%s:1:1: error: standin failure requested\n", sources[0]);
		log_event("end", sources[0]);
		return d.fail ? 1 : 0;
	}

	out_str(&o, OUTPUT_MAGIC);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "-o", 2))
			continue;
		out_str(&o, "arg ");
		out_str(&o, argv[i]);
		out_str(&o, "\n");
	}
	for (i = 0; i < nsources; i++) {
		struct blob b;
		if (i == 0) {
			b = first;
		} else if (read_blob(sources[i], &b) < 0) {
			fprintf(stderr, "kwarm-standin: cannot read '%s': %s\n",
				sources[i], strerror(errno));
			log_event("end", sources[0]);
			return 1;
		}
		add_entry(&o, "source", sources[i], &b);
		add_headers(&o, sources[i], &b, idirs, nidirs);
		if (i)
			free(b.data);
	}
	free(first.data);

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0 || write_all_fd(fd, o.data, o.len) < 0 || close(fd) < 0) {
		fprintf(stderr, "kwarm-standin: cannot write '%s': %s\n", out, strerror(errno));
		log_event("end", sources[0]);
		return 1;
	}
	free(o.data);
	log_event("end", sources[0]);
	return 0;
}
