/* cachelog: the event log and use times.
 *
 * CACHE/events.log, plain text, one event per line:
 *
 *     <unix seconds> SP <event> SP <key> [SP <seconds>] [SP <bytes>b] SP <run> LF
 *
 * e.g. "1718000000 miss 3f...a9 2.418 4242@1717999990.07". Events: miss (a compile ran and
 * published), wait-hit (a compile found the entry valid once it had the lock),
 * hit (a pack used an entry made before its make run began), corrupt (an entry
 * was found corrupt and removed), and the remote tier's (remote.h):
 * remote-hit (fetched, verified and published), remote-miss (the remote had
 * none), remote-error (a fault, or an object that failed the checks), upload.
 * The remote's lines carry "<bytes>b" after the seconds: what was transferred.
 * Appended and compacted through logappend.h (lock file CACHE/events.lock): a
 * line without its LF is not an event.
 *
 * <run> is the tag of the make run the step runs under (runid.h): every step
 * of one make run writes the same tag, two concurrent runs different ones; a
 * line without one is not an event.
 */
#include "cache/cachelog.h"
#include "buf.h"
#include "hashmap.h"
#include "logappend.h"
#include "path.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int valid_word(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n && n < max && !strpbrk(s, " \t\n");
}

/* One event line as the top of this file says (run: "" for none). */
static void add_line(struct buf *b, long long when, const char *event, const char *key,
		     double seconds, uint64_t bytes, const char *run)
{
	buf_addf(b, "%lld %s %s", when, event, key);
	if (isfinite(seconds) && seconds > 0)
		buf_addf(b, " %.3f", seconds);
	if (bytes)
		buf_addf(b, " %" PRIu64 "b", bytes);
	if (*run)
		buf_addf(b, " %s", run);
	buf_addch(b, '\n');
}

/* Append event for each valid one of keys[0..n) to cache_dir's log, at once. */
static void append_events(const char *cache_dir, const char *event, const char *const *keys,
			  size_t n, double seconds, uint64_t bytes)
{
	char run[RUNID_TAG_SIZE], *log, *lockpath;
	struct buf b = BUF_INIT;
	long long now = (long long)time(NULL);

	if (!cache_dir || !valid_word(event, sizeof(((struct cachelog_event *)0)->event)))
		return;
	runid_tag(run, sizeof(run));
	for (size_t i = 0; i < n; i++)
		if (valid_word(keys[i], DIGEST_HEX_SIZE))
			add_line(&b, now, event, keys[i], seconds, bytes, run);
	if (b.len) {
		log = path_join(cache_dir, CACHELOG_FILE);
		lockpath = path_join(cache_dir, CACHELOG_LOCK);
		/* An optimisation: a lost event only makes the figures less exact. */
		(void)logappend_line(lockpath, log, b.s, NULL);
		free(lockpath);
		free(log);
	}
	buf_release(&b);
}

void cachelog_event(const char *cache_dir, const char *event, const char *key, double seconds,
		    uint64_t bytes)
{
	append_events(cache_dir, event, &key, 1, seconds, bytes);
}

void cachelog_events(const char *cache_dir, const char *event, const struct strvec *keys)
{
	append_events(cache_dir, event, (const char *const *)keys->v, keys->nr, 0, 0);
}

/* Copy word into dst (n bytes): 1, or 0 when it is empty or does not fit. */
static int copy_word(char *dst, size_t n, const char *word)
{
	size_t len = strlen(word);

	if (!len || len >= n)
		return 0;
	memcpy(dst, word, len + 1);
	return 1;
}

int cachelog_parse_line(const char *line, size_t len, struct cachelog_event *ev)
{
	struct strvec w;
	char *copy, *end;
	int ret = -1, bad;

	if (memchr(line, '\0', len))
		return -1;
	copy = xstrndup(line, len);
	strvec_init(&w);
	strvec_split_at(&w, copy, ' ');
	free(copy);
	memset(ev, 0, sizeof(*ev));
	if (w.nr < 4 || *w.v[0] < '0' || *w.v[0] > '9' ||
	    !copy_word(ev->event, sizeof(ev->event), w.v[1]) ||
	    !copy_word(ev->key, sizeof(ev->key), w.v[2]) ||
	    !copy_word(ev->run, sizeof(ev->run), w.v[w.nr - 1]) || !strchr(ev->run, '@'))
		goto out;
	errno = 0;
	ev->when = strtoll(w.v[0], &end, 10);
	if (errno || *end)
		goto out;
	/* Between the key and the run tag: the seconds, then the bytes ("<n>b"). */
	for (size_t i = 3; i + 1 < w.nr; i++) {
		const char *f = w.v[i];
		size_t n = strlen(f);

		if (*f < '0' || *f > '9' || strchr(f, '@'))
			goto out;
		errno = 0;
		if (f[n - 1] == 'b') {
			ev->bytes = strtoull(f, &end, 10);
			bad = end != f + n - 1 || i + 2 != w.nr;
		} else {
			ev->seconds = strtod(f, &end);
			bad = *end || i != 3 || !isfinite(ev->seconds);
		}
		if (bad || errno)
			goto out;
	}
	ret = 0;
out:
	strvec_release(&w);
	return ret;
}

void cachelog_init(struct cachelog *log)
{
	memset(log, 0, sizeof(*log));
}

void cachelog_release(struct cachelog *log)
{
	free(log->v);
	cachelog_init(log);
}

/* Number the runs (see the top of this file). */
static void assign_runs(struct cachelog *log)
{
	struct hashmap tags;	/* run tag -> index + 1, as a pointer-sized integer */

	hashmap_init(&tags);
	log->nr_runs = 0;
	for (size_t i = 0; i < log->nr; i++) {
		struct cachelog_event *ev = &log->v[i];
		void *known = hashmap_get(&tags, ev->run);

		if (known) {
			ev->run_index = (size_t)(uintptr_t)known - 1;
			continue;
		}
		ev->run_index = log->nr_runs++;
		hashmap_put(&tags, ev->run, (void *)(uintptr_t)(ev->run_index + 1));
	}
	hashmap_release(&tags);
}

/* Parse the log's text into log (a logappend_parse_fn). */
static void parse_text(const char *text, size_t len, void *data)
{
	struct cachelog *log = data;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			break;	/* torn last line */
		ALLOC_GROW(log->v, log->nr + 1, log->alloc);
		if (!cachelog_parse_line(p, (size_t)(nl - p), &log->v[log->nr]))
			log->nr++;
		p = nl + 1;
	}
	assign_runs(log);
}

int cachelog_load(struct cachelog *log, const char *cache_dir)
{
	return logappend_load(cache_dir, CACHELOG_FILE, parse_text, log);
}

/* A unit's fate in a run, best last. */
enum fate { FATE_NONE, FATE_HIT, FATE_WAIT_HIT, FATE_MISS };

void cachelog_tally(const struct cachelog *log, size_t run, struct cachelog_tally *t)
{
	struct hashmap seen;	/* "<run index> <key>" -> its fate so far, as an integer */
	size_t *counts[] = { [FATE_HIT] = &t->hits, [FATE_WAIT_HIT] = &t->wait_hits,
			     [FATE_MISS] = &t->misses };

	memset(t, 0, sizeof(*t));
	/* Every run has an event: its index is that of its first one (load). */
	t->runs = run == CACHELOG_ALL_RUNS ? log->nr_runs : run < log->nr_runs;
	hashmap_init(&seen);
	for (size_t i = 0; i < log->nr; i++) {
		const struct cachelog_event *ev = &log->v[i];
		enum fate f = FATE_NONE;
		char *id;

		if (run != CACHELOG_ALL_RUNS && ev->run_index != run)
			continue;
		if (!strcmp(ev->event, "hit"))
			f = FATE_HIT;
		else if (!strcmp(ev->event, "wait-hit"))
			f = FATE_WAIT_HIT;
		else if (!strcmp(ev->event, "miss"))
			f = FATE_MISS;
		else if (!strcmp(ev->event, "corrupt"))
			t->corrupt++;
		else if (!strcmp(ev->event, "remote-hit"))
			t->remote_hits++, t->remote_bytes_in += ev->bytes;
		else if (!strcmp(ev->event, "remote-miss"))
			t->remote_misses++;
		else if (!strcmp(ev->event, "remote-error"))
			t->remote_errors++;
		else if (!strcmp(ev->event, "upload"))
			t->uploads++, t->remote_bytes_out += ev->bytes;
		if (f == FATE_MISS)
			t->compile_seconds += ev->seconds;
		if (f == FATE_NONE)
			continue;
		id = xstrfmt("%zu %s", ev->run_index, ev->key);
		if ((uintptr_t)hashmap_get(&seen, id) < f)	/* absent: NULL, FATE_NONE */
			hashmap_put(&seen, id, (void *)(uintptr_t)f);
		free(id);
	}
	for (size_t i = 0; i < seen.nr; i++)
		(*counts[(uintptr_t)seen.entries[i].value])++;
	hashmap_release(&seen);
}

struct compaction {
	size_t max_bytes, keep_runs;
};

/* The compaction (logappend_rewrite_fn): past max_bytes, the last keep_runs
 * runs (another process may have compacted the log meanwhile). */
static int compact(const char *text, size_t len, struct buf *out, void *data)
{
	const struct compaction *c = data;
	struct cachelog log;
	size_t first;

	if (len <= c->max_bytes)
		return 0;
	cachelog_init(&log);
	parse_text(text, len, &log);
	first = log.nr_runs > c->keep_runs ? log.nr_runs - c->keep_runs : 0;
	for (const struct cachelog_event *ev = log.v; ev < log.v + log.nr; ev++)
		if (ev->run_index >= first)
			add_line(out, (long long)ev->when, ev->event, ev->key, ev->seconds,
				 ev->bytes, ev->run);
	cachelog_release(&log);
	return 1;
}

int cachelog_compact(const char *cache_dir, size_t max_bytes, size_t keep_runs)
{
	char *path = path_join(cache_dir, CACHELOG_FILE), *lockpath;
	struct compaction c = { max_bytes, keep_runs };
	struct stat st;
	int ret = 0;

	/* The size first: most calls have nothing to do. */
	if (!stat(path, &st) && (size_t)st.st_size > max_bytes) {
		lockpath = path_join(cache_dir, CACHELOG_LOCK);
		ret = logappend_compact(lockpath, path, 0, compact, &c, NULL);
		free(lockpath);
	}
	free(path);
	return ret;
}
