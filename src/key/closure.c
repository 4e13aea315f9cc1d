/*
 * The include closure of a unit, over-approximated: #if is not evaluated, every
 * line that reads as an #include directive counts (even one inside a multi-line
 * block comment, which is safe), and for #include_next every match in the
 * search list is followed. Missing the file the compiler reads would let an
 * edit reuse a stale cache entry; an extra file only costs a recompile.
 */
#include "key/closure.h"
#include "batchread.h"
#include "buf.h"
#include "key/incdirs.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum directive_kind {
	INC_QUOTE, INC_ANGLE, INC_QUOTE_NEXT, INC_ANGLE_NEXT, INC_MACRO,
	HAS_QUOTE, HAS_ANGLE	/* __has_include("name"), __has_include(<name>): a probe */
};

static const char *const kind_names[] = {
	"quote", "angle", "quote-next", "angle-next", "macro", "has-quote", "has-angle"
};

struct directive {
	enum directive_kind kind;
	unsigned line;	/* in its file, from 1 */
	char *text;	/* the name between the delimiters, or the macro text */
};

struct scan {
	struct filestamp stamp;
	char hex[DIGEST_HEX_SIZE];
	struct directive *d;
	size_t nr, alloc;
	int unkeyed;	/* CLOSURE_CLOCK, CLOSURE_MTIME, CLOSURE_ASM_FILE */
};

/* Probe results (closure.h's), stored as non-NULL pointers in cc->probes. */
enum probe { PROBE_NONE = CLOSURE_NONE, PROBE_FILE = CLOSURE_FILE, PROBE_DIR = CLOSURE_DIR };

void closure_cache_init(struct closure_cache *cc)
{
	hashmap_init(&cc->scans);
	hashmap_init(&cc->probes);
	hashmap_init(&cc->tools);
	hashmap_init(&cc->listings);
	hashmap_init(&cc->resolutions);
	filehash_init(&cc->files);
	cc->reads = 0;
	cc->env_hex[0] = '\0';
	strvec_init(&cc->env_dirs);
	cc->env_dirs_read = 0;
	cc->tool_memo_dir = NULL;
	cc->why = NULL;
	cc->snapshot = 0;
	cc->entry_missed = 0;
	cc->entries_listed = 0;
	hashmap_init(&cc->entries);
	buf_init(&cc->data);
	cc->batch = NULL;
	cc->batch_tried = 0;
}

static void scan_clear(struct scan *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->d[i].text);
	free(s->d);
	s->d = NULL;
	s->nr = s->alloc = 0;
}

void closure_cache_release(struct closure_cache *cc)
{
	for (size_t i = 0; i < cc->scans.nr; i++) {
		scan_clear(cc->scans.entries[i].value);
		free(cc->scans.entries[i].value);
	}
	hashmap_release(&cc->scans);
	hashmap_release(&cc->probes);
	filehash_release(&cc->files);
	for (size_t i = 0; i < cc->tools.nr; i++)
		free(cc->tools.entries[i].value);
	hashmap_release(&cc->tools);
	incdirs_release(cc);
	hashmap_release(&cc->entries);
	buf_release(&cc->data);
	strvec_release(&cc->env_dirs);
	cc->env_dirs_read = 0;
	cc->reads = 0;
	closure_prefetch_end(cc);
	cc->batch_tried = 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

/* Skip blanks and block comments that close on this line; a comment that runs
 * past the line hides the rest of it. */
static const char *skip_blank(const char *p, const char *end)
{
	for (;;) {
		while (p < end && is_blank(*p))
			p++;
		if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
			const char *close = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);

			if (!close)
				return end;
			p = close + 2;
			continue;
		}
		return p;
	}
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void add_directive(struct scan *s, enum directive_kind kind, unsigned line,
			  const char *text, size_t len)
{
	ALLOC_GROW(s->d, s->nr + 1, s->alloc);
	s->d[s->nr].kind = kind;
	s->d[s->nr].line = line;
	s->d[s->nr].text = xstrndup(text, len);
	s->nr++;
}

/* Every __has_include("name") or __has_include(<name>) of a directive line: the
 * answer depends on whether a file exists, which no dependency list records. */
static void scan_has_include(struct scan *s, unsigned line, const char *p, const char *end)
{
	static const char word[] = "__has_include";

	while ((p = memmem(p, (size_t)(end - p), word, sizeof(word) - 1))) {
		const char *close;

		p += sizeof(word) - 1;
		if (end - p >= 5 && !memcmp(p, "_next", 5))
			p += 5;
		p = skip_blank(p, end);
		if (p == end || *p != '(')
			continue;
		p = skip_blank(p + 1, end);
		if (p == end || (*p != '"' && *p != '<'))
			continue;
		close = memchr(p + 1, *p == '"' ? '"' : '>', (size_t)(end - p - 1));
		if (!close)
			return;
		add_directive(s, *p == '"' ? HAS_QUOTE : HAS_ANGLE, line, p + 1, (size_t)(close - p - 1));
		p = close + 1;
	}
}

/* One line: optional blanks, '#', optional blanks, include or include_next, then
 * "name", <name> or anything else (a macro, recorded by its text). */
static void scan_line(struct scan *s, unsigned line, const char *p, const char *end)
{
	int next = 0;
	const char *close;

	p = skip_blank(p, end);
	if (p == end || *p != '#')
		return;
	p = skip_blank(p + 1, end);
	if (end - p >= 2 && (!memcmp(p, "if", 2) || !memcmp(p, "el", 2)))
		scan_has_include(s, line, p, end);
	if (end - p < 7 || memcmp(p, "include", 7))
		return;
	p += 7;
	if (end - p >= 5 && !memcmp(p, "_next", 5)) {
		p += 5;
		next = 1;
	}
	if (p < end && is_ident(*p))
		return;	/* #includes, #include_foo: not a directive we know */
	p = skip_blank(p, end);
	if (p < end && (*p == '"' || *p == '<')) {
		close = memchr(p + 1, *p == '"' ? '"' : '>', (size_t)(end - p - 1));
		if (close) {
			enum directive_kind kind = *p == '"' ? (next ? INC_QUOTE_NEXT : INC_QUOTE)
							     : (next ? INC_ANGLE_NEXT : INC_ANGLE);

			add_directive(s, kind, line, p + 1, (size_t)(close - p - 1));
			return;
		}
	}
	while (end > p && is_blank(end[-1]))
		end--;
	add_directive(s, INC_MACRO, line, p, (size_t)(end - p));
}

/* The time macros and the assembler's file directives anywhere in the text
 * (a comment too: that costs a compile at most). Three searches of the
 * bytes, not a look at every line. */
static int scan_unkeyed(const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	int found = memmem(data, len, "__DATE__", 8) ? CLOSURE_CLOCK : 0;

	while ((p = memmem(p, (size_t)(end - p), "__TIME", 6))) {
		p += 6;
		if (end - p >= 2 && !memcmp(p, "__", 2))
			found |= CLOSURE_CLOCK;
		else if (end - p >= 7 && !memcmp(p, "STAMP__", 7))
			found |= CLOSURE_MTIME;
	}
	for (p = data; (p = memmem(p, (size_t)(end - p), ".inc", 4)); ) {
		p += 4;
		if ((end - p >= 3 && !memcmp(p, "bin", 3)) || (end - p >= 4 && !memcmp(p, "lude", 4)))
			found |= CLOSURE_ASM_FILE;
	}
	return found;
}

static void scan_text(struct scan *s, const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	unsigned line = 0;

	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;	/* a UTF-8 byte order mark */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		scan_line(s, ++line, p, eol);
		p = nl ? nl + 1 : end;
	}
}

/* Read all of fd into b (emptied first; its room is kept from file to file).
 * 0 or -1 with errno set. */
static int read_fd(int fd, struct buf *b)
{
	buf_reset(b);
	for (;;) {
		ssize_t n;

		/* Room for a small source and the read that finds its end. */
		if (b->alloc - b->len < 4096)
			buf_grow(b, b->alloc < 65536 ? 65536 : b->alloc);
		n = read(fd, b->s + b->len, b->alloc - b->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return 0;
		b->len += (size_t)n;
		b->s[b->len] = '\0';
	}
}

/* Fill s from a file's bytes (data[len] is NUL). */
static void scan_fill(struct scan *s, const char *data, size_t len)
{
	digest_bytes_hex(data, len, s->hex);
	scan_text(s, data, len);
	s->unkeyed = scan_unkeyed(data, len);
}

/* A file seen before that may be used as it was scanned. */
static int still_valid(struct closure_cache *cc, const char *abs, const struct scan *s)
{
	struct filestamp now;
	struct stat st;

	if (cc->snapshot)
		return 1;
	if (stat(abs, &st))
		return 0;
	filestamp_from_stat(&now, &st);
	return !S_ISDIR(st.st_mode) && filestamp_equal(&s->stamp, &now);
}

/* Read the file at abs into cc->data. Outside a snapshot, its stamp goes in
 * *stamp, or zeroes when it was rewritten while being read (no real file has
 * inode 0: the next use reads it again); a snapshot reads it once, and needs
 * no stamp. 0 or -1 with errno set. */
static int read_file(struct closure_cache *cc, const char *abs, struct filestamp *stamp)
{
	struct filestamp before, after;
	struct stat st;
	int fd = open(abs, O_RDONLY | O_CLOEXEC), saved;

	memset(stamp, 0, sizeof(*stamp));
	if (fd < 0)
		return -1;
	if (!cc->snapshot) {
		if (fstat(fd, &st))
			goto fail;
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			goto fail;
		}
		filestamp_from_stat(&before, &st);
	}
	/* A folder fails here with EISDIR too. */
	if (read_fd(fd, &cc->data))
		goto fail;
	if (!cc->snapshot) {
		if (fstat(fd, &st))
			goto fail;
		filestamp_from_stat(&after, &st);
		if (filestamp_equal(&before, &after) && after.size == cc->data.len)
			*stamp = before;
	}
	close(fd);
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/* The scanned form of the file at abs, read at most once while its stamp holds;
 * NULL with errno set when it cannot be read. */
static struct scan *get_scan(struct closure_cache *cc, const char *abs)
{
	struct scan *s = hashmap_get(&cc->scans, abs);
	struct filestamp stamp;

	/* A file seen before is checked by its stamp; a new one is opened
	 * straight away (most of gen's sources are read once). */
	if (s && still_valid(cc, abs, s))
		return s;
	if (read_file(cc, abs, &stamp))
		return NULL;
	cc->reads++;
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		hashmap_put(&cc->scans, abs, s);
	}
	scan_clear(s);
	s->stamp = stamp;
	scan_fill(s, cc->data.s, cc->data.len);
	return s;
}

/* Scan the files[0..n) read whole into cc's memo (abs: their absolute
 * paths, freed here). */
static void take_batch(struct closure_cache *cc, struct batchread_file *files, char **abs,
		       size_t n)
{
	batchread_run(cc->batch, files, n);
	for (size_t i = 0; i < n; i++) {
		if (files[i].data) {
			struct scan *s = xcalloc(1, sizeof(*s));

			/* No stamp: only a snapshot reads ahead. */
			scan_fill(s, files[i].data, files[i].len);
			hashmap_put(&cc->scans, abs[i], s);
			cc->reads++;
		}
		free(abs[i]);
	}
}

void closure_prefetch(struct closure_cache *cc, const char *root, const struct strvec *paths)
{
	struct batchread_file files[BATCHREAD_FILES];
	char *abs[BATCHREAD_FILES], *abs_root;
	size_t n = 0;

	if (!cc->snapshot)
		return;
	if (!cc->batch_tried) {
		cc->batch = batchread_new();
		cc->batch_tried = 1;
	}
	if (!cc->batch)
		return;
	abs_root = path_normalize(root);
	for (size_t i = 0; i < paths->nr; i++) {
		char *a = path_join_physical(abs_root, paths->v[i]);
		int again = hashmap_get(&cc->scans, a) != NULL;

		for (size_t j = 0; j < n && !again; j++)
			again = !strcmp(abs[j], a);
		if (again) {
			free(a);
			continue;
		}
		abs[n] = a;
		files[n].path = a;
		if (++n == BATCHREAD_FILES) {
			take_batch(cc, files, abs, n);
			n = 0;
		}
	}
	if (n)
		take_batch(cc, files, abs, n);
	free(abs_root);
}

void closure_prefetch_end(struct closure_cache *cc)
{
	batchread_free(cc->batch);
	cc->batch = NULL;
}

static void add_lookups(const struct scan *s, struct strvec *out)
{
	for (size_t i = 0; i < s->nr; i++)
		strvec_pushf(out, "%s\t%s", kind_names[s->d[i].kind], s->d[i].text);
}

int closure_scanned_lookups(struct closure_cache *cc, const char *abs, struct strvec *out)
{
	struct scan *s = hashmap_get(&cc->scans, abs);

	if (!s || !still_valid(cc, abs, s))
		return 0;
	add_lookups(s, out);
	return 1;
}

void closure_text_lookups(const char *data, size_t len, struct strvec *out)
{
	struct scan s = { .nr = 0 };

	scan_text(&s, data, len);
	add_lookups(&s, out);
	scan_clear(&s);
}

static enum probe probe(struct closure_cache *cc, const char *abs)
{
	uintptr_t known = (uintptr_t)hashmap_get(&cc->probes, abs);
	enum probe what = PROBE_NONE;
	struct stat st;

	if (known)
		return (enum probe)known;
	if (!stat(abs, &st))
		what = S_ISDIR(st.st_mode) ? PROBE_DIR : PROBE_FILE;
	hashmap_put(&cc->probes, abs, (void *)(uintptr_t)what);
	return what;
}

int closure_probe(struct closure_cache *cc, const char *abs)
{
	return (int)probe(cc, abs);
}



struct walk {
	struct closure_cache *cc;
	const char *root;
	struct strvec dirs;		/* the -I dirs, absolute */
	struct hashmap visited;		/* absolute path -> (void *)1 */
	struct hashmap searched;	/* absolute folder -> (void *)1 */
	struct closure *out;
	struct buf gch;			/* a candidate's NAME.gch (its room is reused) */
};

/* A new file at cand would appear in its folder, or, if that is missing, in
 * the nearest folder above it that exists: that folder's mtime changes. */
static void note_searched(struct walk *w, const char *cand)
{
	char *dir = path_dirname(cand);

	while (strcmp(dir, "/") && probe(w->cc, dir) != PROBE_DIR) {
		char *up = path_dirname(dir);

		free(dir);
		dir = up;
	}
	hashmap_put(&w->searched, dir, (void *)1);
	free(dir);
}

static int visit(struct walk *w, const char *abs, const char *source);

/* The closure file vis (taken) with its digest. */
static void add_file(struct walk *w, char *vis, const char hex[DIGEST_HEX_SIZE])
{
	struct closure *c = w->out;

	ALLOC_GROW(c->files, c->nr + 1, c->alloc);
	c->files[c->nr].path = vis;
	memcpy(c->files[c->nr].hex, hex, DIGEST_HEX_SIZE);
	c->nr++;
}

/* gcc looks for cand.gch before cand in each folder, and takes it while it
 * is valid, without a look at cand's text nor a line in its dependency
 * output: its digest is the closure's too (a folder of them is unkeyed). */
static int precompiled(struct walk *w, const char *cand)
{
	struct buf *gch = &w->gch;
	char hex[DIGEST_HEX_SIZE];
	enum probe what;

	buf_reset(gch);
	buf_adds(gch, cand);
	buf_adds(gch, ".gch");
	what = probe(w->cc, gch->s);
	if (what == PROBE_DIR)
		w->out->unkeyed |= CLOSURE_PCH_DIR;
	if (what != PROBE_FILE || hashmap_get(&w->visited, gch->s))
		return 0;
	if (filehash_get(&w->cc->files, gch->s, hex))
		return error_errno_to(w->cc->why, "cannot read '%s'", gch->s);
	hashmap_put(&w->visited, gch->s, (void *)1);
	add_file(w, path_visible(w->root, gch->s), hex);
	return 0;
}

static int try_candidate(struct walk *w, const char *cand, const char *from,
			 const struct directive *d, int *found)
{
	int probe_only = d->kind == HAS_QUOTE || d->kind == HAS_ANGLE;
	char *vis;
	int ret;

	note_searched(w, cand);
	if (!probe_only && precompiled(w, cand))
		return -1;
	if (probe(w->cc, cand) != PROBE_FILE)
		return 0;
	*found = 1;
	vis = path_visible(w->root, cand);
	strvec_pushf(&w->out->edges, "%s\t%s\t%s\t%s", from, kind_names[d->kind], d->text, vis);
	free(vis);
	ret = probe_only ? 0 : visit(w, cand, NULL);
	return ret;
}

/* Resolve one directive of the file at from (visible) in folder; record edges and
 * visit what it reaches. */
static int follow(struct walk *w, const char *from, const char *folder, const struct directive *d)
{
	int next = d->kind == INC_QUOTE_NEXT || d->kind == INC_ANGLE_NEXT;
	int quoted = d->kind == INC_QUOTE || d->kind == INC_QUOTE_NEXT || d->kind == HAS_QUOTE;
	int found = 0;

	if (d->kind == INC_MACRO || !d->text[0]) {
		strvec_pushf(&w->out->edges, "%s\t%s\t%s\t", from, kind_names[d->kind], d->text);
		if (d->kind == INC_MACRO && !w->out->macro_at)
			w->out->macro_at = xstrfmt("%s:%u", from, d->line);
		return 0;
	}
	if (d->text[0] == '/') {
		char *cand = path_join_physical("/", d->text);
		int ret = try_candidate(w, cand, from, d, &found);

		free(cand);
		if (ret)
			return -1;
	} else {
		/* The including file's folder comes first for "name" only. */
		for (size_t i = quoted ? 0 : 1; i <= w->dirs.nr; i++) {
			char *cand = path_join_physical(i ? w->dirs.v[i - 1] : folder, d->text);
			int ret = try_candidate(w, cand, from, d, &found);

			free(cand);
			if (ret)
				return -1;
			/* #include_next continues past the including file's own folder,
			 * which we do not track: follow every match instead. */
			if (found && !next)
				break;
		}
	}
	if (!found)
		strvec_pushf(&w->out->edges, "%s\t%s\t%s\t", from, kind_names[d->kind], d->text);
	return 0;
}

/* Visit the file at abs (source: the path as given, for sources only). */
static int visit(struct walk *w, const char *abs, const char *source)
{
	struct closure *c = w->out;
	struct scan *s;
	char *vis, *folder;
	int ret = 0;

	if (hashmap_get(&w->visited, abs))
		return 0;
	hashmap_put(&w->visited, abs, (void *)1);
	vis = path_visible(w->root, abs);
	s = get_scan(w->cc, abs);
	if (!s) {
		if (source)
			ret = error_errno_to(w->cc->why, "cannot read source '%s'", source);
		else
			ret = error_errno_to(w->cc->why, "cannot read header '%s'", vis);
		free(vis);
		return ret;
	}
	add_file(w, vis, s->hex);
	c->unkeyed |= s->unkeyed;
	folder = path_dirname(abs);
	/* s stays valid below: each file is visited once, so nothing rescans it. */
	for (size_t i = 0; i < s->nr && !ret; i++)
		ret = follow(w, vis, folder, &s->d[i]);
	free(folder);
	return ret;
}

int closure_compute(struct closure_cache *cc, const char *root, const struct strvec *sources,
		    const struct strvec *include_dirs, struct closure *out)
{
	struct walk w;
	char *abs_root = path_normalize(root);
	int ret = 0;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->edges);
	strvec_init(&out->dirs);
	if (abs_root[0] != '/')
		BUG("closure root '%s' is not absolute", root);
	w.cc = cc;
	w.root = abs_root;
	w.out = out;
	strvec_init(&w.dirs);
	hashmap_init(&w.visited);
	hashmap_init(&w.searched);
	buf_init(&w.gch);
	for (size_t i = 0; i < include_dirs->nr; i++) {
		strvec_push_nodup(&w.dirs, path_join_physical(abs_root, include_dirs->v[i]));
	}
	for (size_t i = 0; i < sources->nr && !ret; i++) {
		char *abs = path_join_physical(abs_root, sources->v[i]);

		ret = visit(&w, abs, sources->v[i]);
		free(abs);
	}
	if (!ret) {
		for (size_t i = 0; i < w.searched.nr; i++)
			strvec_push_nodup(&out->dirs, path_visible(abs_root, w.searched.entries[i].key));
		qsort(out->dirs.v, out->dirs.nr, sizeof(char *), strvec_cmp);
	} else {
		closure_release(out);
	}
	hashmap_release(&w.searched);
	buf_release(&w.gch);
	hashmap_release(&w.visited);
	strvec_release(&w.dirs);
	free(abs_root);
	return ret;
}

void closure_release(struct closure *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->files[i].path);
	free(c->files);
	c->files = NULL;
	c->nr = c->alloc = 0;
	c->unkeyed = 0;
	free(c->macro_at);
	c->macro_at = NULL;
	strvec_release(&c->edges);
	strvec_release(&c->dirs);
}

void closure_digest(const struct closure *c, struct digest *d)
{
	digest_add_str(d, "closure", "kwarm-closure-1");
	digest_add_u64(d, "files", c->nr);
	for (size_t i = 0; i < c->nr; i++) {
		digest_add_str(d, "path", c->files[i].path);
		digest_add_str(d, "sha256", c->files[i].hex);
	}
	digest_add_u64(d, "edges", c->edges.nr);
	for (size_t i = 0; i < c->edges.nr; i++)
		digest_add_str(d, "edge", c->edges.v[i]);
}

const struct strvec *closure_searched_dirs(const struct closure *c)
{
	return &c->dirs;
}
