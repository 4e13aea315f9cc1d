/* durations: the record of how long each compile unit took, kept in the cache
 * folder (CACHE/durations.log) so that it outlives a cleaned out folder and is
 * shared by every checkout and CI runner that uses the same cache; the
 * generator reads it to start the longest known work first.
 *
 * Units are named by a stable identity (class/callable/unit name), not by key,
 * so the record survives edits: an edited source still has its old duration.
 */
#ifndef KWARM_DURATIONS_H
#define KWARM_DURATIONS_H

#include <stddef.h>

#include "hashmap.h"

struct buf;

/* The log's file name inside the cache folder, and the lock's. */
#define DURATIONS_LOG "durations.log"
#define DURATIONS_LOCK "durations.lock"

struct durations {
	struct hashmap map;	/* id -> malloc'd double (seconds), owned */
};

/* Append "seconds\tid\n" to CACHE/durations.log in one O_APPEND write, and
 * compact the log when it has grown past ~4 lines per id. An id holding a tab
 * or newline (or empty) is refused silently. 0 or -1, a compaction's failure
 * said in why (error_to: on stderr when why is NULL); callers may ignore it. */
int durations_record(const char *cache_dir, const char *id, double seconds, struct buf *why);

void durations_init(struct durations *d);
/* Free the ids and values. */
void durations_release(struct durations *d);
/* Read CACHE/durations.log (missing = empty); an id's last line wins; torn or
 * garbled lines are skipped. 0, or -1 after reporting a read error. */
int durations_load(struct durations *d, const char *cache_dir);
/* The seconds recorded for id, or -1 when unknown. */
double durations_get(const struct durations *d, const char *id);
/* Durations within this ratio of a longer one order as equals (spec order). */
#define DURATIONS_SIMILAR 0.85

/* Write into order a permutation of 0..n-1, longest secs first; secs[i] < 0
 * (unknown) counts as the average of the known ones (1.0 when none is). A run
 * of durations each within DURATIONS_SIMILAR of the run's longest keeps the
 * original order, so the result is deterministic and a class's units of
 * about the same length stay together. */
void durations_order(const double *secs, size_t n, size_t *order);
/* Into out, each of secs as the mean of its run of alike ones in that
 * order (unknown = the average): what a recorded run's noise leaves of the
 * durations, for a model of the schedule. out may be secs. */
void durations_alike(const double *secs, size_t n, double *out);

#endif
