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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

void cachelog_event(const char *cache_dir, const char *event, const char *key, double seconds)
{
	cachelog_event_bytes(cache_dir, event, key, seconds, 0);
}

/* Append the lines in b to cache_dir's log, at once. */
static void append_lines(const char *cache_dir, const struct buf *b)
{
	char *log = path_join(cache_dir, CACHELOG_FILE);
	char *lockpath = path_join(cache_dir, CACHELOG_LOCK);

	/* An optimisation: a lost event only makes the figures less exact. */
	(void)logappend_line(lockpath, log, b->s, NULL);
	free(lockpath);
	free(log);
}

void cachelog_event_bytes(const char *cache_dir, const char *event, const char *key,
			  double seconds, uint64_t bytes)
{
	char run[RUNID_TAG_SIZE];
	struct buf b = BUF_INIT;

	if (!cache_dir || !valid_word(event, sizeof(((struct cachelog_event *)0)->event)) ||
	    !valid_word(key, DIGEST_HEX_SIZE))
		return;
	runid_tag(run, sizeof(run));
	add_line(&b, (long long)time(NULL), event, key, seconds, bytes, run);
	append_lines(cache_dir, &b);
	buf_release(&b);
}

void cachelog_events(const char *cache_dir, const char *event, const struct strvec *keys)
{
	char run[RUNID_TAG_SIZE];
	struct buf b = BUF_INIT;
	long long now = (long long)time(NULL);

	if (!cache_dir || !valid_word(event, sizeof(((struct cachelog_event *)0)->event)))
		return;
	runid_tag(run, sizeof(run));
	for (size_t i = 0; i < keys->nr; i++)
		if (valid_word(keys->v[i], DIGEST_HEX_SIZE))
			add_line(&b, now, event, keys->v[i], 0, 0, run);
	if (b.len)
		append_lines(cache_dir, &b);
	buf_release(&b);
}

int cachelog_parse_line(const char *line, size_t len, struct cachelog_event *ev)
{
	char *copy, *p, *end, *word;
	int ret = -1;

	if (memchr(line, '\0', len))
		return -1;
	copy = xstrndup(line, len);
	p = copy;
	if (*p < '0' || *p > '9')
		goto out;
	errno = 0;
	ev->when = strtoll(p, &end, 10);
	if (errno || *end != ' ')
		goto out;
	word = end + 1;
	p = strchr(word, ' ');
	if (!p || p == word || (size_t)(p - word) >= sizeof(ev->event))
		goto out;
	memcpy(ev->event, word, (size_t)(p - word));
	ev->event[p - word] = '\0';
	word = p + 1;
	p = strchr(word, ' ');
	if (!p)
		p = word + strlen(word);
	if (p == word || (size_t)(p - word) >= sizeof(ev->key))
		goto out;
	memcpy(ev->key, word, (size_t)(p - word));
	ev->key[p - word] = '\0';
	ev->seconds = 0;
	ev->bytes = 0;
	ev->run[0] = '\0';
	ev->run_index = 0;
	/* The optional seconds come first, then bytes ("<n>b"); a run tag has an '@'. */
	if (*p && !memchr(p + 1, '@', strcspn(p + 1, " ")) && p[strcspn(p + 1, " ")] != 'b') {
		if (p[1] < '0' || p[1] > '9')
			goto out;
		errno = 0;
		ev->seconds = strtod(p + 1, &end);
		if (errno || (*end && *end != ' ') || !isfinite(ev->seconds))
			goto out;
		p = end;
	}
	if (*p && p[strcspn(p + 1, " ")] == 'b' && !memchr(p + 1, '@', strcspn(p + 1, " "))) {
		if (p[1] < '0' || p[1] > '9')
			goto out;
		errno = 0;
		ev->bytes = strtoull(p + 1, &end, 10);
		if (errno || *end != 'b' || (end[1] && end[1] != ' '))
			goto out;
		p = end + 1;
	}
	word = p + !!*p;
	if (!*word || strchr(word, ' ') || !strchr(word, '@') || strlen(word) >= sizeof(ev->run))
		goto out;
	memcpy(ev->run, word, strlen(word) + 1);
	ret = 0;
out:
	free(copy);
	return ret;
}

void cachelog_init(struct cachelog *log)
{
	log->v = NULL;
	log->nr = log->alloc = 0;
	log->nr_runs = 0;
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

static const enum fate fates[] = { FATE_HIT, FATE_WAIT_HIT, FATE_MISS };

void cachelog_tally(const struct cachelog *log, size_t run, struct cachelog_tally *t)
{
	struct hashmap seen;	/* "<run index> <key>" -> its fate so far */
	struct hashmap runs;	/* run index -> itself, to count them */

	memset(t, 0, sizeof(*t));
	hashmap_init(&seen);
	hashmap_init(&runs);
	for (size_t i = 0; i < log->nr; i++) {
		const struct cachelog_event *ev = &log->v[i];
		enum fate f = FATE_NONE;
		char *id;
		void *old;

		if (run != CACHELOG_ALL_RUNS && ev->run_index != run)
			continue;
		id = xstrfmt("%zu", ev->run_index);
		if (!hashmap_get(&runs, id)) {
			hashmap_put(&runs, id, (void *)&fates[0]);
			t->runs++;
		}
		free(id);

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
		/* The value is a pointer into the static fates[]: no allocation. */
		id = xstrfmt("%zu %s", ev->run_index, ev->key);
		old = hashmap_get(&seen, id);
		if (!old || *(const enum fate *)old < f)
			hashmap_put(&seen, id, (void *)&fates[f - 1]);
		free(id);
	}
	for (size_t i = 0; i < seen.nr; i++) {
		enum fate f = *(const enum fate *)seen.entries[i].value;

		if (f == FATE_HIT)
			t->hits++;
		else if (f == FATE_WAIT_HIT)
			t->wait_hits++;
		else
			t->misses++;
	}
	hashmap_release(&seen);
	hashmap_release(&runs);
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
	for (size_t i = 0; i < log.nr; i++) {
		const struct cachelog_event *ev = &log.v[i];

		if (ev->run_index < first)
			continue;
		add_line(out, (long long)ev->when, ev->event, ev->key, ev->seconds, ev->bytes,
			 ev->run);
	}
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
