/* cachemaint: what is in a cache folder (scan), whether it is sound (verify),
 * and removing what is old, too much or left behind (prune), without racing a
 * warm-up that uses the same cache. The layout is cache.h's. */
#ifndef KWARM_CACHEMAINT_H
#define KWARM_CACHEMAINT_H

#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"

/* Entries used more recently than this (seconds) are never pruned. */
#define CACHE_PRUNE_GRACE 3600

struct cache_unit_entry {
	char key[DIGEST_HEX_SIZE];
	uint64_t bytes;			/* of its file: artifact and manifest */
	double last_use;		/* max(atime, mtime) of its file */
	int removed, busy;		/* by prune; held by a compile when prune came */
};

/* A temp file some process made: a temp in units/, a probe in tmp/ (their
 * names: cacheentry.h). */
struct cache_temp {
	char *path;			/* owned */
	long pid;
	double mtime;
};

/* A memo under tools/: a compiler's identity (toolid.c) or search list
 * (searchlist.c). Only saves work: one removed is made again. */
struct cache_memo {
	char *path;			/* owned */
	uint64_t bytes;
	double last_use;		/* max(atime, mtime) */
};

struct cache_scan {
	struct cache_unit_entry *units;	/* sorted by key */
	size_t nr_units, alloc_units;
	struct cache_temp *temps;
	size_t nr_temps, alloc_temps;	/* other files are left alone */
	struct cache_memo *memos;
	size_t nr_memos, alloc_memos;
};

void cache_scan_init(struct cache_scan *s);
void cache_scan_release(struct cache_scan *s);
/* List c's units, temps and memos into s (cleared first); 0, or -1 after reporting. */
int cache_scan_run(struct cache_scan *s, const struct cache *c);

struct cache_verify_result {
	size_t checked;			/* unit entries */
	size_t bad, removed, busy;
};

/* Check every entry and temp, naming each bad one; with repair,
 * remove them. Entries whose lock is held are skipped (busy). Reading keeps
 * the manifests' use times. 0, or -1 after reporting a failure to look. */
int cache_verify(const struct cache *c, int repair, struct cache_verify_result *r);

struct cache_prune_options {
	double max_age;			/* seconds since last use; < 0: no age limit */
	uint64_t max_size;		/* bytes; 0: no size limit */
	double now;			/* unix seconds */
};

struct cache_prune_result {
	size_t units, temps, busy;	/* removed (busy: skipped) */
	size_t memos;			/* removed */
	uint64_t bytes;				/* freed by units */
	uint64_t total_after;			/* bytes of units left */
};

/* Remove unit entries unused for max_age, then the least recently used
 * entries while the total is above max_size, then orphaned temps, and memos
 * unused for max_age. Entries used within CACHE_PRUNE_GRACE and entries whose
 * lock is held stay. 0, or -1 after reporting (what could go, went). */
int cache_prune(const struct cache *c, const struct cache_prune_options *o,
		struct cache_prune_result *r);

/* Parse a size "123", "500K", "500M", "2G", "1T" (powers of 1024, optional
 * trailing "B" or "iB"); 0, or -1 when malformed. */
int cache_parse_size(const char *s, uint64_t *bytes);

#endif
