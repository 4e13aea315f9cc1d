#include "report/settle.h"
#include "buf.h"
#include "cache/cacheentry.h"
#include "hashmap.h"
#include "logappend.h"
#include "path.h"
#include "plan/planfile.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The head of pending, then the cursor at a fixed width (settle.h). */
#define PENDING_HEAD "kwarm-pending 3 "
#define AT_WIDTH 20
#define HEAD_LEN (sizeof(PENDING_HEAD) - 1 + AT_WIDTH + 1)
/* A line is a class name and a path: this holds the longest. A walk reads
 * FIRST_CHUNK first (it mostly stops within a line or two), doubling from
 * there as it goes on or meets a longer line. */
#define CHUNK 16384
#define FIRST_CHUNK 1024

void settle_note_failed(const struct runstate *rs, const struct strvec *owners)
{
	char *path = path_join(rs->dir, SETTLE_FAILED_FILE);
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < owners->nr; i++)
		buf_addf(&b, "%s\n", owners->v[i]);
	/* Created even with no class: the run has failed. */
	(void)logappend_line(NULL, path, b.s ? b.s : "", NULL);
	buf_release(&b);
	free(path);
}

void settle_failed_classes(const struct runstate *rs, struct strvec *out)
{
	char *path = path_join(rs->dir, SETTLE_FAILED_FILE), *text, *line, *nl;
	size_t len;

	if (!read_file_all(path, &text, &len)) {
		for (line = text; (nl = memchr(line, '\n', len - (size_t)(line - text))); line = nl + 1) {
			*nl = '\0';
			if (*line && strvec_find(out, line) < 0)
				strvec_push(out, line);
		}
		free(text);
	}
	free(path);
}

/* Set pending's cursor, in place at a fixed width as runstate_bump_done does. */
static int write_cursor(int fd, off_t at)
{
	char text[AT_WIDTH + 2];

	snprintf(text, sizeof(text), "%*lld\n", AT_WIDTH, (long long)at);
	return pwrite(fd, text, strlen(text), (off_t)strlen(PENDING_HEAD)) ==
	       (ssize_t)strlen(text) ? 0 : -1;
}

/* Whether the output of a callable whose stamp is at stamp is there. A
 * removed output, or a folder in its place, is packed again even with its
 * stamp there (the Makefile's forced rule): not settled before. */
static int output_there(const char *stamp)
{
	char *out = planfile_stamp_output(stamp);
	struct stat st;
	int there;

	if (!out)
		return 1;	/* not a stamp of the plan's: its stamp tells */
	there = !stat(out, &st) && !S_ISDIR(st.st_mode);	/* a folder is no output */
	free(out);
	return there;
}

/* Whether a callable with its stamp at stamp is packed and current. */
static int packed(const char *stamp)
{
	return !access(stamp, F_OK) && output_there(stamp);
}

static int time_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* A callable packed before this run: its stamp's time, and whether make
 * packs it again (an entry of its units missing or newer than the stamp). */
struct packed_before {
	struct timespec stamp;
	int again;
};

/* A class with such a callable: its newest entry, and how many callables. */
struct class_entries {
	struct timespec newest;
	int missing, callables;
};

/* The time of unit key's entry in cache_dir (its manifest, the make
 * target): 0, or -1 when it is missing. */
static int entry_time(struct buf *m, const char *cache_dir, const char *key,
		      struct timespec *t)
{
	struct stat st;

	buf_reset(m);
	cache_add_unit_path(m, cache_dir, key, CACHE_ENTRY_SUFFIX);
	if (stat(m->s, &st))
		return -1;
	*t = st.st_mtim;
	return 0;
}

struct exact {
	const char *cache_dir;
	struct packed_before *pb;	/* per callable */
	const char **ask;		/* per callable: its class when asked, else NULL */
	struct buf m;
};

static void check_unit(size_t i, const char *key, void *data)
{
	struct exact *x = data;
	struct timespec t;

	if (x->ask[i] && !x->pb[i].again &&
	    (entry_time(&x->m, x->cache_dir, key, &t) || time_before(&x->pb[i].stamp, &t)))
		x->pb[i].again = 1;
}

/* Fill pb[i].again for each callable i with ask[i] set: by its class's
 * entries first (exact for a class of one callable), by its own units from
 * the plan's sections only where the class has more and one is newer. */
static void packs_again(const struct runstate *rs, const char *cache_dir,
			const struct unitlist *ul, struct packed_before *pb, const char **ask)
{
	struct hashmap classes;
	struct class_entries *ce = xcalloc(ul->nr_callables, sizeof(*ce));
	struct exact x = { .cache_dir = cache_dir, .pb = pb, .ask = ask, .m = BUF_INIT };
	int exact = 0;

	hashmap_init(&classes);
	for (size_t i = 0; i < ul->nr_callables; i++)
		if (ask[i] && !hashmap_get(&classes, ul->callables[i].cls))
			hashmap_put(&classes, ul->callables[i].cls, &ce[i]);
	for (size_t i = 0; i < ul->nr_callables; i++) {
		struct class_entries *c = hashmap_get(&classes, ul->callables[i].cls);

		if (c)
			c->callables++;
	}
	for (size_t i = 0; i < ul->nr_units; i++) {
		const struct unitlist_unit *u = &ul->units[i];
		struct timespec t;
		int stated = 0, missing = 0;

		for (size_t j = 0; j < u->owners.nr; j++) {
			struct class_entries *c = hashmap_get(&classes, u->owners.v[j]);

			if (!c)
				continue;
			if (!stated++)	/* one stat a unit, however many classes */
				missing = entry_time(&x.m, cache_dir, u->key, &t);
			if (missing)
				c->missing = 1;
			else if (time_before(&c->newest, &t))
				c->newest = t;
		}
	}
	for (size_t i = 0; i < ul->nr_callables; i++) {
		struct class_entries *c = ask[i] ? hashmap_get(&classes, ask[i]) : NULL;

		if (!c || (!c->missing && !time_before(&pb[i].stamp, &c->newest)))
			ask[i] = NULL;	/* every entry of its class is older */
		else if (c->callables == 1)
			pb[i].again = 1;
		else
			exact = 1;
	}
	/* A bad plan: packed again, so the run waits for the pack or its class. */
	if (exact && planfile_each_pack_unit(rs->units, check_unit, &x))
		for (size_t i = 0; i < ul->nr_callables; i++)
			pb[i].again |= !!ask[i];
	hashmap_release(&classes);
	buf_release(&x.m);
	free(ce);
}

/* Add the pending lines of ul's callables of goals to b. */
static void add_pending(const struct runstate *rs, const char *goals, const char *cache_dir,
			const struct unitlist *ul, struct buf *b)
{
	struct packed_before *pb = xcalloc(ul->nr_callables, sizeof(*pb));
	const char **ask = xcalloc(ul->nr_callables, sizeof(*ask));
	struct strvec picked;
	int all, asked = 0;

	strvec_init(&picked);
	all = runstate_goals_pick_all(goals, &picked);
	for (size_t i = 0; i < ul->nr_callables; i++) {
		const struct unitlist_callable *c = &ul->callables[i];
		struct stat st;

		if (!all && strvec_find(&picked, c->cls) < 0)
			continue;
		if (stat(c->stamp, &st) || !output_there(c->stamp)) {
			pb[i].again = 1;
		} else if (cache_dir) {
			pb[i].stamp = st.st_mtim;
			ask[i] = c->cls;
			asked = 1;
		}
	}
	/* Only with stamps there: a first warm-up stats no entry here. */
	if (asked)
		packs_again(rs, cache_dir, ul, pb, ask);
	for (size_t i = 0; i < ul->nr_callables; i++) {
		const struct unitlist_callable *c = &ul->callables[i];

		if (!pb[i].again)
			continue;
		if (ask[i])
			buf_addf(b, "%s %lld.%09ld %s\n", c->cls, (long long)pb[i].stamp.tv_sec,
				 (long)pb[i].stamp.tv_nsec, c->stamp);
		else
			buf_addf(b, "%s - %s\n", c->cls, c->stamp);
	}
	strvec_release(&picked);
	free(ask);
	free(pb);
}

/* Write the pending list of goals to path, its cursor at its first line; the
 * file open for reading and writing, or -1 without a unit list. The cursor is
 * 0 until the list is whole: a list cut short (a full disk, a step killed in
 * its write) reads as torn and is made again. */
static int write_pending(const struct runstate *rs, const char *goals, const char *cache_dir,
			 const char *path)
{
	struct buf b = BUF_INIT;
	struct unitlist ul;
	int fd = -1;

	if (!unitlist_load_gently(&ul, rs->units)) {
		buf_addf(&b, "%s%*d\n", PENDING_HEAD, AT_WIDTH, 0);
		add_pending(rs, goals, cache_dir, &ul, &b);
		unitlist_release(&ul);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd >= 0 && (write_all(fd, b.s, b.len) || write_cursor(fd, (off_t)HEAD_LEN))) {
			close(fd);
			fd = -1;
		}
	}
	buf_release(&b);
	return fd;
}

/* The cursor of pending's head; 0 when the head is not whole (a step that
 * died while it wrote the list). */
static off_t read_cursor(int fd)
{
	char head[HEAD_LEN + 1];
	ssize_t n = pread(fd, head, HEAD_LEN, 0);

	if (n != (ssize_t)HEAD_LEN || memcmp(head, PENDING_HEAD, strlen(PENDING_HEAD)) ||
	    head[HEAD_LEN - 1] != '\n')
		return 0;
	head[HEAD_LEN] = '\0';
	return (off_t)strtoll(head + strlen(PENDING_HEAD), NULL, 10);
}

struct cursor {
	const struct runstate *rs;
	struct strvec failed;
	int failed_read;
};

/* Whether the stamp of a callable whose stamp was at time was (settle.h, "-"
 * for none) says it is packed in this run. */
static int packed_since(const char *stamp, const char *was)
{
	struct stat st;
	char *end;
	long long sec;
	long nsec;

	if (!strcmp(was, "-"))
		return packed(stamp);
	if (stat(stamp, &st) || !output_there(stamp))
		return 0;
	sec = strtoll(was, &end, 10);
	nsec = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
	/* The pack publishes a new stamp: any other time is a later pack's. */
	return st.st_mtim.tv_sec != sec || st.st_mtim.tv_nsec != nsec;
}

/* Whether the callable of line "CLASS WAS STAMP" is settled. */
static int settled(struct cursor *c, char *line)
{
	char *sp = strchr(line, ' '), *stamp, *ckey;

	if (!sp || !(stamp = strchr(sp + 1, ' ')))
		return 1;	/* not a callable */
	*sp = '\0';
	*stamp++ = '\0';
	ckey = strrchr(stamp, '/');	/* a stamp is <...>/<ckey> (plan.h) */
	/* A pack writes its stamp before its event: not settled till it ends. */
	if (packed_since(stamp, sp + 1) && !(ckey && runstate_pack_running(c->rs, ckey + 1)))
		return 1;
	/* Only once a stamp is missing: runs without a failure never read it. */
	if (!c->failed_read) {
		settle_failed_classes(c->rs, &c->failed);
		c->failed_read = 1;
	}
	return strvec_find(&c->failed, line) >= 0;
}

/* Move *at past the settled callables of fd; 1 when it reached the end. */
static int walk(struct cursor *c, int fd, off_t *at)
{
	char *chunk = xmalloc(CHUNK + 1);
	size_t size = FIRST_CHUNK;
	ssize_t n;
	int end = 0;

	for (;; size = size < CHUNK ? 2 * size : CHUNK) {
		char *line = chunk, *nl;

		n = pread(fd, chunk, size, *at);
		if (n <= 0) {
			end = !n;
			break;
		}
		chunk[n] = '\0';
		while ((nl = memchr(line, '\n', (size_t)(chunk + n - line)))) {
			*nl = '\0';
			if (!settled(c, line))
				goto out;
			*at += nl + 1 - line;
			line = nl + 1;
		}
		if (line == chunk && ((size_t)n < size || size == CHUNK))
			break;	/* a torn last line: not the end */
	}
out:
	free(chunk);
	return end;
}

int settle_done(const struct runstate *rs, const char *goals, const char *cache_dir, int *made)
{
	char *path = path_join(rs->dir, "pending");
	struct cursor c = { .rs = rs };
	off_t at = 0, was;
	int fd, done = 0, made_now = 0;

	strvec_init(&c.failed);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		at = read_cursor(fd);
	if (at < (off_t)HEAD_LEN) {
		/* The first asker's, or one torn by a step that died writing it. */
		if (fd >= 0)
			close(fd);
		fd = write_pending(rs, goals, cache_dir, path);
		at = (off_t)HEAD_LEN;
		made_now = fd < 0 ? -1 : 1;
	}
	if (fd < 0)
		goto out;
	was = at;
	done = walk(&c, fd, &at);
	if (at != was)
		(void)write_cursor(fd, at);	/* only when it moved */
	close(fd);
out:
	if (made)
		*made = made_now;
	strvec_release(&c.failed);
	free(path);
	return done;
}
