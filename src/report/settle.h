/* settle: whether a make run has nothing of its goals left to do, in time
 * that does not grow with the number of classes: the steps ask after every
 * compile and pack. Files in the run's folder (runstate.h):
 *
 *   failed       present once a step of the run failed; one line per class
 *                that failed (a unit's classes, a pack's class), as noted
 *   pending      the first asker's list of the goals' callables that make
 *                packs in this run, their stamp or output missing or their
 *                stamp older than an entry of their units (missing entries
 *                are compiled first): "kwarm-pending 3 AT" LF, then
 *                "CLASS WAS STAMP" LF each, WAS "-" or, for a stamp there,
 *                its time "SEC.NSEC"; AT, a cursor in the head so that a step opens one file,
 *                is the byte offset of the first callable not yet known
 *                settled, 20 wide, rewritten in place and only ever moved on;
 *                0 until the list is whole (one cut short is made again)
 *
 * A callable is settled when its stamp and its output exist (packed and
 * current, by any run; a removed output is packed again), its stamp is not
 * the one of time WAS (packed again) and no pack of it
 * runs (runstate_pack_running), or its class failed in this run (make -k
 * skips its pack; the unit list knows classes, not callables, so any failure
 * of its class will do).
 * Each step checks from the cursor on and stops at the first callable not
 * settled: over a run every callable is passed once, so a step costs O(1)
 * amortised, and the list is made once per run.
 */
#ifndef KWARM_SETTLE_H
#define KWARM_SETTLE_H

#include "report/runstate.h"
#include "strvec.h"

/* The run folder's file that is there once a step of the run failed. */
#define SETTLE_FAILED_FILE "failed"

/* Under the lock: note that the classes owners failed in rs's run. */
void settle_note_failed(const struct runstate *rs, const struct strvec *owners);
/* Under the lock: push the classes noted failed in rs's run onto out. */
void settle_failed_classes(const struct runstate *rs, struct strvec *out);
/* Under the lock: true when every callable of goals (MAKECMDGOALS, see
 * runstate_goals_pick_all) of rs's unit list is settled, its units' entries
 * in cache_dir (NULL: stamps are not checked against entries); never without a
 * unit list. *made (may be NULL): 1 when this call made the list (the run's
 * first step to ask, as every step asks as it ends: the first to end), 0 when
 * it was there, -1 when it cannot be made (no unit list). */
int settle_done(const struct runstate *rs, const char *goals, const char *cache_dir, int *made);

#endif
