/* progress: what a finished step tells the user and the run's reports. One
 * short line per unit, "[done/total] built|cached|failed LABEL (CLASS) 1.23 s",
 * where total counts the units this run compiles (runstate_total) and done
 * those finished; the event (events.h), trace slice (trace.h) and, at the
 * points that keep it complete (progress.c: rewrites_summary), the summary
 * (summary.h); under --format github, a "::error" line per failed class; and
 * once a run that had a failure is over, its closing lines on stderr
 * (summary_failures): from the failed step when make stops there (no -k in
 * MAKEFLAGS), else from the step after which make -k has nothing left. */
#ifndef KWARM_PROGRESS_H
#define KWARM_PROGRESS_H

#include "report/runstate.h"

struct progress_step {
	const char *label;	/* the unit's label, or the callable's "class X" */
	const char *key;	/* unit key or callable key */
	const struct strvec *owners;	/* the unit's classes, or the pack's class */
	const char *status;	/* "built", "cached", "packed" or "failed" */
	double t0, t1;		/* now_wall() at the start and the end */
	int github;		/* print ::error lines for newly failed classes */
	const char *goals;	/* the make run's goals (MAKECMDGOALS), or NULL */
	const char *cache_dir;	/* the units' cache, or NULL */
	const char *by;		/* a pack made by another step ("compile"), or NULL */
};

/* A compile begins: take a job slot. */
void progress_unit_start(struct runstate *rs);
/* Once per compile step, while its compiler runs (else before the step
 * publishes anything or ends): fix the run's total when no step did, and
 * first in the run, claim the goals' entries (runstate_claim_entries). Off
 * the path from make's start to the first compiler: that work is O(units). */
void progress_unit_bookkeeping(struct runstate *rs, const char *cache_dir, const char *goals);
/* A compile ended: record it, print its progress line. */
void progress_unit_done(struct runstate *rs, const struct progress_step *st);
/* A pack ended: record it (it prints its own line). */
void progress_pack_done(struct runstate *rs, const struct progress_step *st);
/* A pack step found its callable packed already (by the compile step of its
 * last unit, packnow.h): it records nothing of its own, but may be the run's
 * last step, so it does what makes the run's end right (summary, closing
 * lines). */
void progress_pack_found(struct runstate *rs, const char *goals, const char *cache_dir);

#endif
