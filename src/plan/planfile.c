#include "plan/planfile.h"
#include "report/runstate.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "kwarm-plan 3 "
#define HEADER_SIZE 67	/* the magic, three numbers of 17 digits, blanks, newline */
#define SLOT_SIZE 76	/* 64 hex, blank, 10 digits, newline */
#define MAX_LINE 65536	/* the longest unit or callable line a lookup reads */
#define FIRST_READ 4096	/* what it reads first: most lines are far shorter */
#define MAX_COMMON (1 << 20)	/* the longest common words a reader takes */

struct planfile_slot {
	char key[DIGEST_HEX_SIZE];
	size_t at;		/* in the list */
};

void planfile_writer_init(struct planfile_writer *w, struct sink *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	/* The header, known at the end: its place for now. */
	w->header_at = sink_tell(out);
	buf_addf(&out->b, "%*s", HEADER_SIZE, "");
}

void planfile_writer_release(struct planfile_writer *w)
{
	free(w->slots);
	free(w->callable_at);
	memset(w, 0, sizeof(*w));
}

/* n in decimal, zero-padded to width digits: the plan has a few numbers a
 * unit, and printf's machinery was 2% of gen (26M instructions at 10k). */
static void add_number(struct buf *b, uint64_t n, int width)
{
	char digits[21], *p = digits + sizeof(digits);

	do {
		*--p = (char)('0' + n % 10);
		n /= 10;
	} while (n || digits + sizeof(digits) - p < width);
	buf_add(b, p, (size_t)(digits + sizeof(digits) - p));
}

/* Text of one line: a newline (and in fields, a tab) would end it early. */
static void add_text(struct buf *b, const char *s, int field)
{
	const char *stops = field ? "\n\t" : "\n";

	/* By spans: a plan holds a few hundred such bytes a unit. */
	for (;;) {
		size_t n = strcspn(s, stops);

		buf_add(b, s, n);
		if (!s[n])
			return;
		buf_addch(b, '?');
		s += n + 1;
	}
}

void planfile_add_common(struct planfile_writer *w, const char *const *words, size_t nr)
{
	struct buf text = BUF_INIT;

	if (w->list_at)
		BUG("planfile_add_common twice, or after the unit list began");
	w->list_at = sink_tell(w->out);
	for (size_t i = 0; i < nr; i++) {
		add_text(&text, words[i], 0);
		buf_addch(&text, '\n');
	}
	sink_flush(w->out);
	buf_addf(&w->out->b, "common %zu\n", text.len);
	buf_add(&w->out->b, text.s, text.len);
	buf_release(&text);
}

/* The unit list begins after the last section, with the common words. */
static struct buf *list(struct planfile_writer *w)
{
	if (!w->list_at)
		planfile_add_common(w, NULL, 0);
	sink_flush(w->out);
	return &w->out->b;
}

void planfile_add_class(struct planfile_writer *w, const char *name)
{
	buf_addf(list(w), "class %s\n", name);
}

void planfile_add_callable(struct planfile_writer *w, const char *ckey, const char *cls,
			   const char *stamp, const struct planfile_ref *ref)
{
	struct buf *b = list(w);

	ALLOC_GROW(w->callable_at, w->nr_callables + 1, w->alloc_callables);
	w->callable_at[w->nr_callables++] = sink_tell(w->out) - w->header_at;
	buf_addf(b, "callable %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %s ", ckey, ref->offset,
		 ref->len, ref->cmds_len, cls);
	add_text(b, stamp, 0);
	buf_addch(b, '\n');
}

void planfile_add_unit(struct planfile_writer *w, const char *key, const struct strvec *owners,
		       const char *id, const char *label, const size_t *packs, size_t nr_packs)
{
	struct buf *b = list(w);
	struct planfile_slot *slot;

	ALLOC_GROW(w->slots, w->nr_slots + 1, w->alloc_slots);
	slot = &w->slots[w->nr_slots++];
	memcpy(slot->key, key, DIGEST_HEX_SIZE);
	slot->at = sink_tell(w->out) - w->list_at;
	buf_adds(b, "unit ");
	buf_adds(b, key);
	buf_addch(b, ' ');
	planfile_add_owners(b, owners);
	buf_addch(b, ' ');
	add_text(b, id, 1);
	buf_addch(b, '\t');
	add_text(b, label, 1);
	buf_addch(b, '\t');
	for (size_t i = 0; i < nr_packs; i++) {
		if (packs[i] >= w->nr_callables)
			BUG("unit %.12s in callable %zu of %zu", key, packs[i], w->nr_callables);
		if (i)
			buf_addch(b, ',');
		add_number(b, w->callable_at[packs[i]], 1);
	}
	buf_addch(b, '\n');
}

void planfile_begin_pack(struct planfile_writer *w, const char *desc, struct planfile_ref *ref)
{
	if (w->list_at)
		BUG("planfile_begin_pack after the unit list began");
	ref->offset = sink_tell(w->out) - w->header_at;
	ref->len = strlen(desc);
	buf_adds(&w->out->b, desc);
}

void planfile_add_record(struct planfile_writer *w, const char *key, const char *const *words,
			 size_t nr)
{
	struct buf *b = &w->out->b;

	sink_flush(w->out);
	buf_adds(b, "unit ");
	buf_adds(b, key);
	buf_addch(b, ' ');
	add_number(b, nr, 1);
	buf_addch(b, '\n');
	for (size_t i = 0; i < nr; i++) {
		add_text(b, words[i], 0);
		buf_addch(b, '\n');
	}
}

void planfile_end_pack(struct planfile_writer *w, struct planfile_ref *ref)
{
	ref->cmds_len = sink_tell(w->out) - w->header_at - ref->offset - ref->len;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct planfile_slot *)a)->key,
		      ((const struct planfile_slot *)b)->key);
}

void planfile_finish(struct planfile_writer *w)
{
	size_t list_at, index_at;
	char header[HEADER_SIZE + 1];

	list(w);	/* the common words at least */
	index_at = sink_tell(w->out) - w->header_at;
	list_at = w->list_at - w->header_at;
	if (w->nr_slots)	/* qsort's base must not be NULL, even for none */
		qsort(w->slots, w->nr_slots, sizeof(*w->slots), by_key);
	for (size_t i = 0; i < w->nr_slots; i++) {
		sink_flush(w->out);
		buf_adds(&w->out->b, w->slots[i].key);
		buf_addch(&w->out->b, ' ');
		add_number(&w->out->b, list_at + w->slots[i].at, 10);
		buf_addch(&w->out->b, '\n');
	}
	snprintf(header, sizeof(header), MAGIC "%017zu %017zu %017zu\n", list_at, index_at,
		  w->nr_slots);
	sink_patch(w->out, w->header_at, header, HEADER_SIZE);
}

/* Reading. */

struct header {
	uint64_t list_at, index_at, nr_units;
};

static int read_at(int fd, char *buf, size_t len, uint64_t at)
{
	ssize_t n = pread(fd, buf, len, (off_t)at);

	return n == (ssize_t)len ? 0 : -1;
}

static int read_header(int fd, struct header *h)
{
	char text[HEADER_SIZE + 1], *end;

	if (read_at(fd, text, HEADER_SIZE, 0) || memcmp(text, MAGIC, strlen(MAGIC)) ||
	    text[HEADER_SIZE - 1] != '\n')
		return -1;
	text[HEADER_SIZE] = '\0';
	errno = 0;
	h->list_at = strtoull(text + strlen(MAGIC), &end, 10);
	h->index_at = strtoull(end, &end, 10);
	h->nr_units = strtoull(end, &end, 10);
	return errno || *end != '\n' || h->list_at > h->index_at ? -1 : 0;
}

/* Copy a 64-hex key followed by a space from p; 0 or -1. */
static int take_key(char *dst, const char *p)
{
	if (strspn(p, "0123456789abcdef") != 64 || p[64] != ' ')
		return -1;
	memcpy(dst, p, 64);
	dst[64] = '\0';
	return 0;
}

#define STAMPS "/" RUNSTATE_STAMPS_DIR "/"

char *planfile_stamp_path(const char *out_dir, const char *out_path, const char *ckey)
{
	return xstrfmt("%s" STAMPS "%s/%s", out_dir, out_path + strlen(out_dir) + 1, ckey);
}

ssize_t planfile_stamp_out_len(const char *stamp)
{
	const char *at = NULL, *p;

	for (p = stamp; (p = strstr(p, STAMPS)); p++)
		at = p;
	return at ? at - stamp : -1;
}

char *planfile_stamp_output(const char *stamp)
{
	ssize_t out_len = planfile_stamp_out_len(stamp);
	const char *slash = strrchr(stamp, '/'), *rel = stamp + out_len + strlen(STAMPS);

	if (out_len < 0 || slash <= rel)
		return NULL;
	return xstrfmt("%.*s/%.*s", (int)out_len, stamp, (int)(slash - rel), rel);
}

void planfile_add_owners(struct buf *b, const struct strvec *owners)
{
	strvec_join(b, owners, ",");
}

void planfile_split_owners(struct strvec *owners, const char *s)
{
	strvec_split_at(owners, s, ',');
}

/* "A,B,C" of decimal numbers appended to *v (*nr of *alloc; caller frees);
 * 0 or -1. Digit by digit, the array grown once by the commas' count: every
 * step's report code loads the whole list (four times), and strtoull and an
 * array of each unit's own were a fifth of a tiny compile step's
 * instructions. */
static int parse_numbers(const char *s, uint64_t **v, size_t *nr, size_t *alloc)
{
	size_t n = 1;

	if (!*s)
		return 0;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	ALLOC_GROW(*v, *nr + n, *alloc);
	while (*s) {
		uint64_t x = 0;
		const char *start = s;

		for (; *s >= '0' && *s <= '9'; s++) {
			uint64_t d = (uint64_t)(*s - '0');

			if (x > UINT64_MAX / 10 || (x == UINT64_MAX / 10 && d > UINT64_MAX % 10))
				return -1;
			x = x * 10 + d;
		}
		if (s == start || (*s && *s != ','))
			return -1;
		(*v)[(*nr)++] = x;
		s += *s == ',';
	}
	return 0;
}

/* "<key> <owners> <id>\t<label>\t<packs>" (after "unit ") into u; its packs
 * into an array of its own, or with ul appended to ul's one (unit_packs_at). */
static int parse_unit(char *line, struct unitlist_unit *u, struct unitlist *ul)
{
	char *sp, *tab, *tab2;

	strvec_init(&u->owners);
	u->packs = NULL;
	u->nr_packs = 0;
	if (take_key(u->key, line) || !(sp = strchr(line + 65, ' ')) ||
	    !(tab = strchr(sp + 1, '\t')) || !(tab2 = strchr(tab + 1, '\t')))
		return -1;
	*sp = '\0';
	*tab = '\0';
	*tab2 = '\0';
	planfile_split_owners(&u->owners, line + 65);
	u->id = xstrdup(sp + 1);
	u->label = xstrdup(tab + 1);
	if (!ul) {
		size_t alloc = 0;

		return parse_numbers(tab2 + 1, &u->packs, &u->nr_packs, &alloc);
	}
	u->packs_at = ul->nr_packs;
	if (parse_numbers(tab2 + 1, &ul->packs, &ul->nr_packs, &ul->alloc_packs))
		return -1;
	u->nr_packs = ul->nr_packs - u->packs_at;
	return 0;
}

/* "<ckey> <at> <len> <cmds> <class> <stamp>" (after "callable ") into c. */
static int parse_callable(char *line, struct unitlist_callable *c)
{
	char *p = line + 65, *sp;

	memset(c, 0, sizeof(*c));
	if (take_key(c->ckey, line))
		return -1;
	errno = 0;
	c->at = strtoull(p, &p, 10);
	c->len = strtoull(p, &p, 10);
	c->cmds = strtoull(p, &p, 10);
	if (errno || *p++ != ' ' || !(sp = strchr(p, ' ')) || sp == p)
		return -1;
	c->cls = xstrndup(p, (size_t)(sp - p));
	c->stamp = xstrdup(sp + 1);
	return 0;
}

void unitlist_callable_release(struct unitlist_callable *c)
{
	free(c->cls);
	free(c->stamp);
	memset(c, 0, sizeof(*c));
}

static void unit_release_fields(struct unitlist_unit *u)
{
	strvec_release(&u->owners);
	free(u->id);
	free(u->label);
	memset(u, 0, sizeof(*u));
}

void unitlist_unit_release(struct unitlist_unit *u)
{
	free(u->packs);
	unit_release_fields(u);
}

void unitlist_release(struct unitlist *ul)
{
	for (size_t i = 0; i < ul->nr_units; i++)
		unit_release_fields(&ul->units[i]);	/* packs: ul's */
	free(ul->packs);
	for (size_t i = 0; i < ul->nr_callables; i++)
		unitlist_callable_release(&ul->callables[i]);
	free(ul->units);
	free(ul->callables);
	strvec_release(&ul->classes);
	memset(ul, 0, sizeof(*ul));
}

static int parse_line(struct unitlist *ul, char *line)
{
	if (starts_with(line, "class ") && line[6]) {
		strvec_push(&ul->classes, line + 6);
	} else if (starts_with(line, "callable ")) {
		ALLOC_GROW(ul->callables, ul->nr_callables + 1, ul->alloc_callables);
		if (parse_callable(line + 9, &ul->callables[ul->nr_callables])) {
			unitlist_callable_release(&ul->callables[ul->nr_callables]);
			return -1;
		}
		ul->nr_callables++;
	} else if (starts_with(line, "unit ")) {
		ALLOC_GROW(ul->units, ul->nr_units + 1, ul->alloc_units);
		if (parse_unit(line + 5, &ul->units[ul->nr_units], ul)) {
			unit_release_fields(&ul->units[ul->nr_units]);
			return -1;
		}
		ul->nr_units++;
	} else {
		return -1;
	}
	return 0;
}

/* Past the common words at text's head, or NULL when they are not there. */
static char *skip_common(char *text)
{
	char *end;
	unsigned long long len;

	if (!starts_with(text, "common "))
		return NULL;
	errno = 0;
	len = strtoull(text + 7, &end, 10);
	if (errno || *end != '\n' || len > strlen(end + 1))
		return NULL;
	return end + 1 + len;
}

/* Parse the list's text (NUL-terminated, changed in place) into ul; 0 or -1. */
static int parse_list(struct unitlist *ul, char *text)
{
	char *line, *nl;

	if (!(line = skip_common(text)))
		return -1;
	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			return -1;
		*nl = '\0';
		if (parse_line(ul, line))
			return -1;
	}
	return 0;
}

int unitlist_load_gently(struct unitlist *ul, const char *path)
{
	struct header h;
	char *text = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;

	memset(ul, 0, sizeof(*ul));
	strvec_init(&ul->classes);
	if (fd >= 0 && !read_header(fd, &h)) {
		text = xmalloc(h.index_at - h.list_at + 1);
		if (!read_at(fd, text, h.index_at - h.list_at, h.list_at)) {
			text[h.index_at - h.list_at] = '\0';
			ret = parse_list(ul, text);
		}
	}
	if (!ret && ul->packs) {	/* it moved as it grew: point the units at it now */
		for (size_t i = 0; i < ul->nr_units; i++)
			ul->units[i].packs = ul->packs + ul->units[i].packs_at;
	}
	free(text);
	if (fd >= 0)
		close(fd);
	if (ret)
		unitlist_release(ul);
	return ret;
}

/* Walk the sections in text: a description begins with its first line
 * (packdesc.h), a record's n words are skipped by their count. */
static int each_pack_unit(char *text, void (*fn)(size_t i, const char *key, void *data),
			  void *data)
{
	char *line = text, *nl, *end;
	size_t i = 0, skip = 0;

	for (; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if (skip) {
			skip--;
		} else if (starts_with(line, "kwarm-pack ")) {
			i++;
		} else if (starts_with(line, "unit ")) {
			if (!i || strlen(line) < 71 || line[69] != ' ')
				return -1;
			line[69] = '\0';
			errno = 0;
			skip = strtoul(line + 70, &end, 10);
			if (errno || *end)
				return -1;
			fn(i - 1, line + 5, data);
		}
	}
	return *line || skip ? -1 : 0;
}

int planfile_each_pack_unit(const char *path,
			    void (*fn)(size_t i, const char *key, void *data), void *data)
{
	struct header h;
	char *text = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;

	if (fd >= 0 && !read_header(fd, &h) && h.list_at >= HEADER_SIZE &&
	    h.list_at - HEADER_SIZE < SIZE_MAX) {
		text = xmalloc(h.list_at - HEADER_SIZE + 1);
		if (!read_at(fd, text, h.list_at - HEADER_SIZE, HEADER_SIZE)) {
			text[h.list_at - HEADER_SIZE] = '\0';
			ret = each_pack_unit(text, fn, data);
		}
	}
	free(text);
	if (fd >= 0)
		close(fd);
	return ret;
}

int unitlist_unit_owned_by(const struct unitlist_unit *u, const char *cls)
{
	return strvec_find(&u->owners, cls) >= 0;
}

/* The line at offset at of fd, NUL-terminated without its newline, into
 * line (MAX_LINE + 1 bytes); 0, or -1 when there is none. */
static int read_line_at(int fd, uint64_t at, char *line)
{
	ssize_t n = pread(fd, line, FIRST_READ, (off_t)at);
	char *nl;

	if (n == FIRST_READ && !memchr(line, '\n', FIRST_READ))
		n = pread(fd, line, MAX_LINE, (off_t)at);
	if (n <= 0)
		return -1;
	line[n] = '\0';
	if (!(nl = strchr(line, '\n')))
		return -1;
	*nl = '\0';
	return 0;
}

/* Read the unit line at offset at into u, checking its key. */
static int read_unit(int fd, uint64_t at, const char *key, struct unitlist_unit *u)
{
	char *line = xmalloc(MAX_LINE + 1);
	int ret = -1;

	if (!read_line_at(fd, at, line) && starts_with(line, "unit "))
		ret = parse_unit(line + 5, u, NULL) || strcmp(u->key, key) ? -1 : 0;
	free(line);
	return ret;
}

int planfile_read_callables(const char *path, const uint64_t *ats, size_t n,
			    struct unitlist_callable *cs)
{
	char *line = xmalloc(MAX_LINE + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t i = 0;

	memset(cs, 0, n * sizeof(*cs));
	for (; fd >= 0 && i < n; i++)
		if (read_line_at(fd, ats[i], line) || !starts_with(line, "callable ") ||
		    parse_callable(line + 9, &cs[i]))
			break;
	free(line);
	if (fd >= 0)
		close(fd);
	if (i == n)
		return 0;
	for (size_t j = 0; j <= i && j < n; j++)
		unitlist_callable_release(&cs[j]);
	return -1;
}

int planfile_lookup(const char *path, const char *key, struct unitlist_unit *u)
{
	char rec[SLOT_SIZE + 1];
	struct header h;
	uint64_t lo = 0, hi;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	memset(u, 0, sizeof(*u));
	if (fd < 0)
		return error_errno("cannot read the plan '%s'", path);
	if (read_header(fd, &h))
		goto bad;
	for (hi = h.nr_units; lo < hi;) {
		uint64_t mid = lo + (hi - lo) / 2;
		int cmp;

		if (read_at(fd, rec, SLOT_SIZE, h.index_at + mid * SLOT_SIZE))
			goto bad;
		cmp = strncmp(rec, key, 64);
		if (!cmp) {
			rec[SLOT_SIZE] = '\0';
			if (read_unit(fd, strtoull(rec + 65, NULL, 10), key, u))
				goto bad;
			ret = 1;
			break;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	close(fd);
	return ret;
bad:
	unitlist_unit_release(u);
	close(fd);
	return error("'%s' is not a plan kwarm gen wrote; run 'kwarm gen' again", path);
}

int planfile_read(const char *path, uint64_t offset, uint64_t len, const char *what,
		  char **text, struct buf *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = -1;

	*text = NULL;
	if (fd < 0)
		return error_errno_to(why, "cannot read %s in '%s'", what, path);
	if (len < SIZE_MAX) {
		*text = xmalloc(len + 1);
		ret = read_at(fd, *text, len, offset);
	}
	close(fd);
	if (ret) {
		free(*text);
		*text = NULL;
		return error_to(why, "%s in '%s' are shorter than the Makefile says; run make again",
				what, path);
	}
	(*text)[len] = '\0';
	return 0;
}

int planfile_find_record(char *text, const char *key, struct strvec *words)
{
	char *line = text, *nl;

	while ((nl = strchr(line, '\n'))) {
		char *end;
		unsigned long n;
		int mine;

		*nl = '\0';
		if (!starts_with(line, "unit ") || strlen(line) < 71 || line[69] != ' ')
			return -1;
		mine = !strncmp(line + 5, key, 64);
		errno = 0;
		n = strtoul(line + 70, &end, 10);
		if (errno || *end)
			return -1;
		line = nl + 1;
		for (unsigned long i = 0; i < n; i++, line = nl + 1) {
			if (!(nl = strchr(line, '\n')))
				return -1;
			*nl = '\0';
			if (mine)
				strvec_push(words, line);
		}
		if (mine)
			return 0;
	}
	return -1;
}

/* The common words of fd (at the unit list's head), pushed onto words; 0 or
 * -1. */
static int read_common(int fd, struct strvec *words)
{
	char *line = xmalloc(MAX_LINE + 1), *text = NULL, *end, *nl;
	unsigned long long len;
	struct header h;
	int ret = -1;

	if (read_header(fd, &h) || read_line_at(fd, h.list_at, line) ||
	    !starts_with(line, "common "))
		goto out;
	errno = 0;
	len = strtoull(line + 7, &end, 10);
	if (errno || *end || len > MAX_COMMON)
		goto out;
	text = xmalloc(len + 1);
	if (read_at(fd, text, len, h.list_at + strlen(line) + 1))
		goto out;
	text[len] = '\0';
	for (end = text; (nl = strchr(end, '\n')); end = nl + 1) {
		*nl = '\0';
		strvec_push(words, end);
	}
	ret = *end ? -1 : 0;
out:
	free(text);
	free(line);
	return ret;
}

int planfile_compile_words(const char *path, char *records, const char *key,
			   struct strvec *words)
{
	struct unitlist_unit u;
	struct buf owners = BUF_INIT;
	int fd, ret = -1;

	if (planfile_lookup(path, key, &u) != 1)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !read_common(fd, words)) {
		const char *own[8] = { "--key", key, "--unit", u.label, "--id", u.id, "--owners" };

		planfile_add_owners(&owners, &u.owners);
		own[7] = buf_str(&owners);
		for (size_t i = 0; i < ARRAY_SIZE(own); i++)
			strvec_push(words, own[i]);
		ret = planfile_find_record(records, key, words);
	}
	if (fd >= 0)
		close(fd);
	buf_release(&owners);
	unitlist_unit_release(&u);
	return ret;
}
