/* summary: OUT/.kwarm/summary.json, the machine-readable account of the last
 * warm-up that did something, made (atomically) from the run's events
 * (events.h) and the unit list by the run's first step to end, each failed
 * step, and the step after which the run has nothing of its goals left (or,
 * once make stops on a failure, each step still under way: progress.c), so
 * it is complete whenever make stops (make -k included) at a cost per run,
 * not per step:
 *
 *   {"version": 1, "run": "<make pid>@<start>", "runs": ["<tag>", ...],
 *    "started": UNIX, "updated": UNIX, "wall_seconds": S,
 *    "units": {"built": N, "cached": N, "failed": N, "compile_seconds": S},
 *    "cache_unusable": null | "<why>",
 *    "remote": {"hits": N, "misses": N, "errors": N, "uploads": N,
 *               "bytes_fetched": N, "bytes_uploaded": N},
 *    "classes": [{"name": "TestX", "status": "built|cached|failed|pending",
 *                 "units": N, "units_built": N, "units_cached": N,
 *                 "units_failed": N, "compile_seconds": S, "pack_seconds": S,
 *                 "failed_units": ["<label>", ...]}, ...]}
 *
 * A class is failed when one of its units or packs failed in this run, built
 * when this run packed it, cached when every callable of it was already packed
 * and current, pending otherwise (not reached yet, or not a goal of the run).
 * cache_unusable says why the cache could not take a result of this run (its
 * disk full, read-only, not writable, no locks): those units were compiled
 * into the private store OUT/.kwarm/private and the callables are still right.
 * Seconds are this run's. The events counted are those of the writing run and
 * of every run that overlapped it (runstate.h: run/), so two warm-ups of other
 * goals (or of two Makefiles: the classes are those of every run's unit list)
 * into one OUT each leave a file that is right for both; "runs" lists them,
 * "started" is the earliest. The closing lines count the run's own. A run with nothing to do starts no step and leaves
 * the file alone; 'kwarm summary' rewrites it on demand.
 */
#ifndef KWARM_SUMMARY_H
#define KWARM_SUMMARY_H

#include "buf.h"
#include "report/runstate.h"

#define SUMMARY_FILE "summary.json"

/* Under the lock: rewrite KW_DIR/summary.json and set counts (may be NULL) to
 * the numbers of its classes that are built, cached, failed and pending (all
 * 0 without a unit list); 0, or -1 (not reported). */
int summary_write(const struct runstate *rs, int counts[4]);
/* Under the lock: append the closing lines of a failed run to out, "kwarm:
 * warm-up failed: F of N classes failed (...)" and one "kwarm: class X
 * failed: LABEL, ..." per failed class; the number of failed classes (0:
 * nothing appended). */
int summary_failures(const struct runstate *rs, struct buf *out);

#endif
