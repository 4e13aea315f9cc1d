#include "report/progress.h"
#include "report/annotate.h"
#include "buf.h"
#include "report/events.h"
#include "jobserver.h"
#include "report/settle.h"
#include "report/summary.h"
#include "report/trace.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void progress_unit_start(struct runstate *rs)
{
	runstate_take_slot(rs);
}

void progress_unit_bookkeeping(struct runstate *rs, const char *cache_dir, const char *goals)
{
	int lock;

	/* Fixed by the run's first compile: the later ones skip the lock. */
	if (!runstate_total_fixed(rs)) {
		lock = runstate_lock(rs);
		if (lock >= 0)
			(void)runstate_total(rs, cache_dir, goals);
		runstate_unlock(lock);
	}
	runstate_claim_entries(rs, cache_dir, goals);
}

/* Print a ::error line for each owner class that had no failure before. */
static void announce_failed_classes(const struct progress_step *st, int is_unit,
				    const struct strvec *before, struct buf *out)
{
	for (size_t i = 0; i < st->owners->nr; i++) {
		const char *cls = st->owners->v[i];

		if (strvec_find(before, cls) < 0) {
			char *msg = is_unit ? xstrfmt("class %s failed: %s did not compile", cls,
						      st->label)
					    : xstrfmt("class %s failed at the pack step", cls);

			annotate_error(out, "kwarm", msg);
			free(msg);
		}
	}
}

/* Under the lock: true when this step ends a run that had a failure: make
 * stops after this failed step (no -k), or keeps going and has nothing of its
 * goals left (over), and no step said so before. */
static int closing_step(struct runstate *rs, int failed, int over, int keep_going)
{
	/* First what is known without a look at the run's folder. */
	if (keep_going && !over)
		return 0;
	if (!failed && !runstate_marked(rs, SETTLE_FAILED_FILE))
		return 0;
	if (!keep_going)
		return failed;
	return runstate_note(rs, "final", "");
}

/* Under the lock: whether this step rewrites summary.json. Not every step: the
 * file lists every class, so that would make the run's reporting quadratic.
 * These keep it complete whenever make stops: the run's first step to end
 * (the file names this run from then on: the one that made settle's list,
 * marked instead when there is no list), a failed step, a step after which
 * the run is over (nothing of its goals left, no compile to come), and once a
 * step failed without -k (make starts nothing more), each step still under
 * way. */
static int rewrites_summary(struct runstate *rs, int made, int failed, int over,
			    int keep_going)
{
	return made > 0 || (made < 0 && runstate_note(rs, "summary", "")) || failed || over ||
	       (!keep_going && runstate_marked(rs, SETTLE_FAILED_FILE));
}

/* Under the lock: the unit's progress line. */
static void progress_line(struct runstate *rs, const struct progress_step *st, struct buf *line)
{
	int done = runstate_bump_done(rs), total = runstate_total(rs, "", "");

	/* "(A)" or "(A +2)": the first class, and how many more share the unit. */
	buf_addf(line, "[%d/%d] %s %s (%s", done, total < done ? done : total, st->status,
		 st->label, st->owners->nr ? st->owners->v[0] : "");
	if (st->owners->nr > 1)
		buf_addf(line, " +%zu", st->owners->nr - 1);
	buf_addf(line, ") %.2f s\n", st->t1 - st->t0);
}

/* What a step was, for what it records. */
enum step_kind { STEP_UNIT, STEP_PACK, STEP_PACKED_BEFORE };

/* Under the lock: what each step records, O(1) in the number of classes and
 * units but for the summary's rewrites (rewrites_summary). A pack step that
 * found its callable packed records nothing of its own: only what makes the
 * run's end right. */
static void record_locked(struct runstate *rs, const struct progress_step *st,
			  enum step_kind kind, struct buf *line, struct buf *closing)
{
	int is_unit = kind == STEP_UNIT;
	struct event ev = {
		.kind = is_unit ? EVENT_UNIT : EVENT_PACK, .key = st->key, .status = st->status,
		.seconds = st->t1 - st->t0, .owners = st->owners, .label = st->label,
	};
	struct strvec before;
	int failed = !strcmp(st->status, "failed");
	int keep_going = jobserver_keep_going(getenv("MAKEFLAGS")), over, made;

	strvec_init(&before);
	if (failed && st->github)
		settle_failed_classes(rs, &before);
	if (failed)
		settle_note_failed(rs, st->owners);
	if (kind != STEP_PACKED_BEFORE) {
		events_append(rs->dir, &ev);
		if (!is_unit)
			runstate_pack_end(rs);	/* its event is in: it ended */
		trace_add_slice(rs->kw_dir, rs->zero, rs->pid,
				rs->slot < 0 ? RUNSTATE_MAX_SLOTS : rs->slot, &ev, st->t0, st->t1,
				st->by);
	}
	if (is_unit)
		progress_line(rs, st, line);
	/* Callables whose stamp is there but whose units' entries were gone
	 * are packed again after their compiles: not over before those. */
	over = settle_done(rs, st->goals ? st->goals : "", st->cache_dir, &made) &&
	       !runstate_compiles_pending(rs);
	if (over && runstate_note(rs, "over", "") == 0 && kind == STEP_PACKED_BEFORE)
		over = 0;	/* make's last walk finds many packed: one rewrite will do */
	if (rewrites_summary(rs, made, failed, over, keep_going))
		(void)summary_write(rs, NULL);
	if (failed && st->github)
		announce_failed_classes(st, is_unit, &before, line);
	if (closing_step(rs, failed, over, keep_going))
		(void)summary_failures(rs, closing);
	strvec_release(&before);
}

static void step_done(struct runstate *rs, const struct progress_step *st, enum step_kind kind)
{
	struct buf line = BUF_INIT, closing = BUF_INIT;
	int lock = runstate_lock(rs);

	if (lock >= 0)
		record_locked(rs, st, kind, &line, &closing);
	fflush(stdout);
	fflush(stderr);
	/* One write each, so parallel steps never interleave within a line; before
	 * the lock goes, so no step's line comes after the closing lines. */
	(void)write_all(1, line.s ? line.s : "", line.len);
	(void)write_all(2, closing.s ? closing.s : "", closing.len);
	runstate_unlock(lock);
	buf_release(&line);
	buf_release(&closing);
}

void progress_unit_done(struct runstate *rs, const struct progress_step *st)
{
	step_done(rs, st, STEP_UNIT);
}

void progress_pack_done(struct runstate *rs, const struct progress_step *st)
{
	step_done(rs, st, STEP_PACK);
}

void progress_pack_found(struct runstate *rs, const char *goals, const char *cache_dir)
{
	static const struct strvec none = STRVEC_INIT;
	struct progress_step st = { .label = "", .key = "", .owners = &none, .status = "packed",
				    .goals = goals, .cache_dir = cache_dir };

	step_done(rs, &st, STEP_PACKED_BEFORE);
}
