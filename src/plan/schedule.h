/* schedule: the warm-up's list of steps (the order of `warmup`'s
 * prerequisites, which make -jN starts down) and a model of make running it,
 * by which gen chooses, for each -j, between the recorded longest-first order
 * and spec order: longest-first only where the model finds it faster, so a
 * record with nothing to exploit (the suite: units alike but for one run's
 * noise) leaves spec order.
 *
 * Longest-first is not always the faster list. At make -j2 on qwen3_decode
 * (an 8.4 s unit, a 6.6 s one, 36 of 1.2 s) it runs the two long units on two
 * slots and fills both with short ones, so one slot runs 20 steps; spec order
 * happens to put both long units on one slot of 14. Each step costs kwarm's
 * and make's own work besides the compiler, so the slot with more steps ends
 * later: 40 ms a run at the bench's scale, while at -j8 longest-first is 15%
 * faster. No single order is best at every -j, and make 4.3 says -j only
 * after it has parsed the Makefile (in MAKEFLAGS, seen by secondary
 * expansion), so the Makefile names both lists and the -j values that take
 * spec order.
 */
#ifndef KWARM_SCHEDULE_H
#define KWARM_SCHEDULE_H

#include "plan/plan.h"

/* The highest -j the choice looks at: above it, longest-first. */
#define SCHEDULE_MAX_JOBS 32

/* One prerequisite of warmup: a unit (index into plan->units) or a
 * callable's pack (index into plan->callables). */
struct schedule_step {
	size_t index;
	int pack;
};

/* The warm-up list for the unit order order (indexes into plan->units, every
 * unit once): the units in that order, each callable's pack right after its
 * last unit (callables whose last unit is the same in spec order). The step
 * of a callable's last unit packs it (packnow), so make's pack step only
 * finds it packed; make passes over a pack whose units still run until the
 * list's last unit has started, and these short steps then fill the slots
 * the compiles' ragged end leaves idle; a pack whose units need no compile is
 * ready when make reaches it (bench/results/2026-12-02-order-inline.txt:
 * never worse in the model than 8 places later). steps has room for
 * plan->nr_units + plan->nr_callables. */
void schedule_list(const struct plan *plan, const size_t *order, struct schedule_step *steps);

/* The seconds make -jN takes down the steps (schedule_list's) in the model:
 * one pass, each step waiting for a free slot, a pack whose units still run
 * passed over until the pass ends and then started as they finish, in list
 * order. A unit costs secs[its index], plus pack_secs for each callable it
 * is the last to finish of (its step packs them); make's pack step then
 * costs check_secs. */
double schedule_makespan(const struct plan *plan, const struct schedule_step *steps,
			 const double *secs, double pack_secs, double check_secs, size_t jobs);

/* Set plan->spec_jobs: bit N unless, by the record (each unit's seconds, an
 * unknown one the average) and the model, plan->lpt is faster than spec
 * order at make -jN by more than noise (N from 2 to SCHEDULE_MAX_JOBS, as
 * far as the model's budget goes); where the two tie, also with the long
 * units late, spec order stays. 0 without a record, or when plan->lpt is
 * spec order. */
void schedule_choose(struct plan *plan);

#endif
