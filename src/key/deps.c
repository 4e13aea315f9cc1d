#include "key/deps.h"
#include "buf.h"
#include "hashmap.h"
#include "path.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const family_names[] = { "none", "gcc", "clang" };

int deps_family_parse(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(family_names); i++)
		if (!strcmp(word, family_names[i]))
			return (int)i;
	return -1;
}

const char *deps_family_name(enum deps_family f)
{
	return family_names[f];
}

/* "g++-12" -> "g++", "x86_64-linux-gnu-gcc-12" -> "gcc": the driver's name
 * without a version suffix or a target prefix. */
static int name_is(const char *base, const char *name)
{
	size_t n = strlen(name), len = strlen(base);
	const char *end = base + len;

	/* Drop "-12" or "-14.0" at the end. */
	while (end > base && ((end[-1] >= '0' && end[-1] <= '9') || end[-1] == '.'))
		end--;
	if (end > base && end[-1] == '-' && end < base + len)
		end--;
	else
		end = base + len;
	len = (size_t)(end - base);
	if (len < n || memcmp(end - n, name, n))
		return 0;
	return len == n || end[-(long)n - 1] == '-';
}

enum deps_family deps_family_named(const char *real)
{
	const char *slash = strrchr(real, '/'), *base = slash ? slash + 1 : real;

	if (name_is(base, "clang") || name_is(base, "clang++"))
		return DEPS_CLANG;
	if (name_is(base, "gcc") || name_is(base, "g++") || name_is(base, "cc") ||
	    name_is(base, "c++") || name_is(base, "cpp"))
		return DEPS_GCC;
	return DEPS_NONE;
}

enum deps_family deps_family_detect(const char *path)
{
	char *real = realpath(path, NULL);
	enum deps_family f = deps_family_named(real ? real : path);

	free(real);
	return f;
}

int deps_request(enum deps_family f, size_t nsources, const char *dfile,
		 struct strvec *argv_extra, struct strvec *env_extra)
{
	if (f == DEPS_NONE || !nsources)
		return -1;
	if (nsources == 1) {
		strvec_push(argv_extra, "-MD");
		strvec_push(argv_extra, "-MF");
		strvec_push(argv_extra, dfile);
		return 0;
	}
	if (f != DEPS_GCC)
		return -1;
	/* "FILE TARGET": gcc appends one rule per source, system headers included.
	 * A DEPENDENCIES_OUTPUT of the caller's would win over it. */
	strvec_pushf(env_extra, "SUNPRO_DEPENDENCIES=%s kwarm-deps", dfile);
	strvec_push(env_extra, "DEPENDENCIES_OUTPUT");
	return 0;
}

size_t deps_user_option(const struct strvec *argv, size_t i)
{
	const char *w = argv->v[i], *file;

	if (!strcmp(w, "-MD") || !strcmp(w, "-MMD"))
		return 1;
	/* Not the "-o {out}" after it: that compile fails as the words say. */
	if (!strcmp(w, "-MF"))
		return i + 1 < argv->nr && strcmp(argv->v[i + 1], "-o") ? 2 : 1;
	if (starts_with(w, "-MF"))
		return 1;
	/* -Wp,-MD,FILE and -Wp,-MMD,FILE alone: other words in the list stay. */
	if (starts_with(w, "-Wp,-MD,") || starts_with(w, "-Wp,-MMD,")) {
		file = strchr(w + 4, ',') + 1;
		return *file && !strchr(file, ',');
	}
	return 0;
}

/* End the word in w: a prerequisite once the rule's ':' was seen. */
static void end_word(struct buf *w, int in_prereqs, struct strvec *out)
{
	if (w->len && in_prereqs && strvec_find(out, w->s) < 0)
		strvec_push(out, w->s);
	buf_reset(w);
}

static void add_backslashes(struct buf *w, size_t n)
{
	while (n--)
		buf_addch(w, '\\');
}

/*
 * gcc and clang quote as GNU make reads: a blank after 2N+1 backslashes is N
 * backslashes and the blank, after 2N it is N backslashes and the name ends;
 * '#' gets one backslash (those before it are the name's own); '$' is '$$';
 * any other backslash is the name's own.
 */
void deps_parse(const char *text, size_t len, struct strvec *out)
{
	const char *p = text, *end = text + len;
	struct buf w = BUF_INIT;
	int in_prereqs = 0;

	while (p < end) {
		size_t run = 0;
		char c;

		while (p + run < end && p[run] == '\\')
			run++;
		c = p + run < end ? p[run] : '\0';
		if (run && (c == ' ' || c == '\t')) {
			add_backslashes(&w, run / 2);
			p += run - run % 2;	/* at the escaped blank, or the blank that ends it */
			if (run % 2) {
				buf_addch(&w, c);
				p += 2;
			}
		} else if (run && c == '#') {
			add_backslashes(&w, run - 1);
			buf_addch(&w, '#');
			p += run + 1;
		} else if (run && c == '\n') {
			add_backslashes(&w, run - 1);
			end_word(&w, in_prereqs, out);	/* a continued line */
			p += run + 1;
		} else if (run) {
			add_backslashes(&w, run);
			p += run;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			end_word(&w, in_prereqs, out);
			if (c == '\n')
				in_prereqs = 0;
			p++;
		} else if (!in_prereqs && c == ':' &&
			   (p + 1 == end || strchr(" \t\r\n", p[1]))) {
			buf_reset(&w);	/* the target itself is no input */
			in_prereqs = 1;
			p++;
		} else {
			if (c == '$' && p + 1 < end && p[1] == '$')
				p++;
			buf_addch(&w, c);
			p++;
		}
	}
	end_word(&w, in_prereqs, out);
	buf_release(&w);
}

/* The names in the folder dir that hold a backslash (memo: dir -> strvec). */
static const struct strvec *backslash_names(struct hashmap *memo, const char *dir)
{
	struct strvec *names = hashmap_get(memo, dir);
	struct dirent *de;
	DIR *d;

	if (names)
		return names;
	names = xcalloc(1, sizeof(*names));
	strvec_init(names);
	if ((d = opendir(dir))) {
		while ((de = readdir(d)))
			if (strchr(de->d_name, '\\'))
				strvec_push(names, de->d_name);
		closedir(d);
	}
	hashmap_put(memo, dir, names);
	return names;
}

/* The first len bytes of rest, each '/' read as the '\' clang wrote it for. */
static char *backslashed(const char *rest, size_t len)
{
	char *name = xstrndup(rest, len);

	for (char *q = name; (q = strchr(q, '/'));)
		*q++ = '\\';
	return name;
}

static void clang_expand(struct hashmap *memo, const char *dir, struct buf *shown,
			 const char *rest, struct strvec *out);

/* Go on from the name that the first len bytes of rest give in dir. */
static void clang_follow(struct hashmap *memo, const char *dir, struct buf *shown,
			 const char *rest, size_t len, struct strvec *out)
{
	char *name = backslashed(rest, len), *sub;
	size_t at = shown->len;

	buf_adds(shown, name);
	if (!rest[len]) {
		if (strvec_find(out, shown->s) < 0)
			strvec_push(out, shown->s);
	} else {
		sub = path_join(dir, name);
		buf_addch(shown, '/');
		clang_expand(memo, sub, shown, rest + len + 1, out);
		free(sub);
	}
	shown->s[shown->len = at] = '\0';
	free(name);
}

/* Every name that rest (under dir, shown so far as shown) may be: each '/'
 * may stand for a '\' where dir holds a name with one. */
static void clang_expand(struct hashmap *memo, const char *dir, struct buf *shown,
			 const char *rest, struct strvec *out)
{
	const struct strvec *odd = backslash_names(memo, dir);
	const char *slash = strchr(rest, '/');

	for (const char *q = odd->nr ? slash : NULL; q; q = strchr(q + 1, '/')) {
		const char *next = strchr(q + 1, '/');
		size_t len = next ? (size_t)(next - rest) : strlen(rest);
		char *name = backslashed(rest, len);

		if (strvec_find(odd, name) >= 0)
			clang_follow(memo, dir, shown, rest, len, out);
		free(name);
	}
	clang_follow(memo, dir, shown, rest, slash ? (size_t)(slash - rest) : strlen(rest), out);
}

/* Of several readings, those that name a file (relative to root); the plain
 * one when none does, so that a file gone is still reported. */
static void keep_existing(const char *root, const char *plain, struct strvec *cands,
			  struct strvec *out)
{
	size_t before = out->nr;

	for (size_t i = 0; i < cands->nr; i++) {
		char *path = path_join(root, cands->v[i]);
		struct stat st;

		if (cands->nr == 1 || !stat(path, &st))
			strvec_push(out, cands->v[i]);
		free(path);
	}
	if (out->nr == before)
		strvec_push(out, plain);
	strvec_clear(cands);
}

void deps_clang_names(const char *root, const struct strvec *names, struct strvec *out)
{
	struct hashmap memo;
	struct strvec cands = STRVEC_INIT;
	struct buf shown = BUF_INIT;

	hashmap_init(&memo);
	for (size_t i = 0; i < names->nr; i++) {
		const char *name = names->v[i];
		int abs = name[0] == '/';

		buf_reset(&shown);
		if (abs)
			buf_addch(&shown, '/');
		clang_expand(&memo, abs ? "/" : root, &shown, name + abs, &cands);
		keep_existing(root, name, &cands, out);
	}
	for (size_t i = 0; i < memo.nr; i++) {
		strvec_release(memo.entries[i].value);
		free(memo.entries[i].value);
	}
	hashmap_release(&memo);
	strvec_release(&cands);
	buf_release(&shown);
}

int deps_parse_file(const char *path, struct strvec *out)
{
	char *text;
	size_t len;

	if (read_file_all(path, &text, &len))
		return -1;
	deps_parse(text, len, out);
	free(text);
	return 0;
}
