/* packnow: the pack a compile step makes at once. GNU make tries each
 * prerequisite of warmup once per pass down its list and waits for a job
 * slot inside that walk, so a pack whose units still ran when the walk
 * reached it waited until the walk had started the warm-up's last unit (at
 * -j8 on the suite, up to 12 s after its units ended). No order of the list
 * cures that for every -j. So the step that publishes a callable's last
 * missing unit packs the callable itself, in the job slot it already holds,
 * right after its own report:
 *
 * - only callables of the run's goals (warmup, or no goal: every class;
 *   warmup-CLASS: those classes; any other goal asks for no pack here), found
 *   from the unit's line in the plan (planfile.h: where its callables' lines
 *   lie), never from the whole unit list;
 * - only when each unit of the callable has its entry for this run: the
 *   cache's (make's target), or a private store entry this run's step made
 *   (made.h; a private unit is compiled again by every run, and the entry
 *   a past run left must not be packed); a stat each, the last units first, up to the first missing, from the last 4 KB of
 *   its description, then all of it: a step of a large callable most often
 *   stops within a few lines);
 * - under the callable's packing.<ckey> (runstate_pack_begin), not waited
 *   for: a step that holds it packs, another step goes on; one that finds the
 *   callable packed and current (pack_current) does not pack it again;
 * - not once the run has failed without -k (make starts nothing more);
 * - gently (pack_run_gently): a unit missing, corrupt, or made in the run
 *   by another process (this run's own are in its made table) leaves
 *   everything, quietly, to the Makefile's pack recipe, which still runs
 *   (make found the stamp missing or older) and then finds the callable
 *   packed (cmd/pack.c) or packs it with its full checks and reports.
 *
 * A pack made here reports as the pack step does (its "packed" line, event,
 * trace slice on this step's slot, summary and settle). */
#ifndef KWARM_PACKNOW_H
#define KWARM_PACKNOW_H

#include "report/runstate.h"

#include <stdint.h>

struct packnow {
	const char *plan;		/* MAKEFILE.plan */
	const char *key;		/* the unit the step published */
	const uint64_t *packs;		/* its callables' lines (planfile_lookup) */
	size_t nr_packs;
	const char *cache_dir, *private_dir;	/* private_dir may be NULL */
	const char *goals;		/* the make run's goals */
	int github;			/* --format github */
};

/* Pack each callable of pn's unit that is now whole (see above); quiet
 * unless it packs one. */
void packnow(struct runstate *rs, const struct packnow *pn);

#endif
