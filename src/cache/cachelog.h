/* cachelog: the cache's event log (what each warm-up hit, waited for, compiled,
 * found corrupt or asked of the remote), and its figures.
 *
 * All of it is an optimisation and a report: nothing here ever fails a build.
 */
#ifndef KWARM_CACHELOG_H
#define KWARM_CACHELOG_H

#include <stddef.h>
#include <stdint.h>

#include "key/digest.h"
#include "report/runid.h"

struct strvec;

/* The log's and its lock's file names inside the cache folder. */
#define CACHELOG_FILE "events.log"
#define CACHELOG_LOCK "events.lock"

/* cachelog_tally's run for every run. */
#define CACHELOG_ALL_RUNS ((size_t)-1)

/* Compaction: past CACHELOG_COMPACT_BYTES, keep the last CACHELOG_KEEP_RUNS runs. */
#define CACHELOG_COMPACT_BYTES (1024 * 1024)
#define CACHELOG_KEEP_RUNS 50

struct cachelog_event {
	int64_t when;			/* unix seconds */
	char event[16];			/* "miss", "wait-hit", "hit", "corrupt", ... */
	char key[DIGEST_HEX_SIZE];	/* the unit's key */
	double seconds;			/* 0 when the line has none */
	uint64_t bytes;			/* "<n>b": bytes a remote event moved; 0 when none */
	char run[RUNID_TAG_SIZE];	/* runid_tag */
	size_t run_index;		/* runs numbered in order of first event (load) */
};

struct cachelog {
	struct cachelog_event *v;	/* in file order */
	size_t nr, alloc;
	size_t nr_runs;
};

/* Figures of a stretch of the log; a unit counts once per run, as its best
 * known fate: miss over wait-hit over hit. */
struct cachelog_tally {
	size_t runs, hits, wait_hits, misses, corrupt;
	double compile_seconds;		/* sum over every miss line */
	size_t remote_hits, remote_misses, remote_errors, uploads;	/* each line counts */
	uint64_t remote_bytes_in, remote_bytes_out;
};

/* Append an event line (cachelog.c) to CACHE/events.log, under this make run's
 * tag; seconds <= 0 and bytes 0 are left out. Failures are ignored. */
void cachelog_event(const char *cache_dir, const char *event, const char *key, double seconds,
		    uint64_t bytes);
/* The same event for each of keys, in one append (a pack step's hits). */
void cachelog_events(const char *cache_dir, const char *event, const struct strvec *keys);

/* Parse one line (without its LF); 0, or -1 when it is not an event. */
int cachelog_parse_line(const char *line, size_t len, struct cachelog_event *ev);
void cachelog_init(struct cachelog *log);
void cachelog_release(struct cachelog *log);
/* Read CACHE/events.log (missing = empty; torn or garbled lines skipped) and
 * number its runs: one per run tag. 0, or -1 after reporting. */
int cachelog_load(struct cachelog *log, const char *cache_dir);
/* Tally the events of run (a run_index, or CACHELOG_ALL_RUNS) into t. */
void cachelog_tally(const struct cachelog *log, size_t run, struct cachelog_tally *t);
/* When the log is past max_bytes, rewrite it keeping the last keep_runs runs
 * (skipped while another process compacts). 0, or -1 after reporting. */
int cachelog_compact(const char *cache_dir, size_t max_bytes, size_t keep_runs);

#endif
