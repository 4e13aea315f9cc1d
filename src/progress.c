#include "progress.h"
#include "annotate.h"
#include "buf.h"
#include "events.h"
#include "jobserver.h"
#include "summary.h"
#include "trace.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void progress_unit_start(struct runstate *rs, const char *cache_dir, const char *goals)
{
	int lock;

	runstate_take_slot(rs);
	lock = runstate_lock(rs);
	if (lock >= 0)
		(void)runstate_total(rs, cache_dir, goals);
	runstate_unlock(lock);
	runstate_claim_entries(rs, cache_dir, goals);
}

/* "A" or "A +2": the first class, and how many more share the unit. */
static void add_classes(struct buf *b, const struct strvec *owners)
{
	buf_adds(b, owners->nr ? owners->v[0] : "");
	if (owners->nr > 1)
		buf_addf(b, " +%zu", owners->nr - 1);
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
 * goals left, and no step said so before. */
static int closing_step(struct runstate *rs, const struct progress_step *st, int failed)
{
	if (failed)
		(void)runstate_mark(rs, "failed");
	else if (!runstate_marked(rs, "failed"))
		return 0;
	if (!jobserver_keep_going(getenv("MAKEFLAGS")))
		return failed;
	return !runstate_compiles_pending(rs) && summary_run_settled(rs, st->goals ? st->goals : "") &&
	       runstate_mark(rs, "final");
}

static void record(struct runstate *rs, const struct progress_step *st, int is_unit,
		   struct buf *line, struct buf *closing)
{
	struct trace_slice sl;
	struct strvec before;
	struct buf owners = BUF_INIT;
	struct event ev;
	int failed = !strcmp(st->status, "failed");
	int lock = runstate_lock(rs);

	strvec_init(&before);
	if (failed && st->github && lock >= 0)
		summary_failed_classes(rs, &before);
	memset(&ev, 0, sizeof(ev));
	ev.kind = is_unit ? EVENT_UNIT : EVENT_PACK;
	ev.key = st->key;
	ev.status = st->status;
	ev.seconds = st->t1 - st->t0;
	strvec_join(&owners, st->owners, ",");
	ev.owners = buf_str(&owners);
	ev.label = st->label;
	memset(&sl, 0, sizeof(sl));
	sl.name = st->label;
	sl.cat = is_unit ? "compile" : "pack";
	sl.t0 = st->t0;
	sl.t1 = st->t1;
	sl.key = st->key;
	sl.owners = st->owners;
	sl.cache = !is_unit ? NULL : !strcmp(st->status, "cached") ? "hit" : "miss";
	sl.status = st->status;
	if (lock >= 0) {
		events_append(rs->dir, &ev);
		trace_add_slice(rs->kw_dir, rs->zero, rs->pid,
				rs->slot < 0 ? RUNSTATE_MAX_SLOTS : rs->slot, &sl);
		if (is_unit) {
			int done = runstate_bump_done(rs), total = runstate_total(rs, "", "");

			buf_addf(line, "[%d/%d] %s %s (", done, total < done ? done : total,
				 st->status, st->label);
			add_classes(line, st->owners);
			buf_addf(line, ") %.2f s\n", st->t1 - st->t0);
		}
		if (failed || !is_unit)
			(void)summary_write(rs);
		if (failed && st->github)
			announce_failed_classes(st, is_unit, &before, line);
		if (closing_step(rs, st, failed))
			(void)summary_failures(rs, closing);
	}
	runstate_unlock(lock);
	strvec_release(&before);
	buf_release(&owners);
}

static void step_done(struct runstate *rs, const struct progress_step *st, int is_unit)
{
	struct buf line = BUF_INIT, closing = BUF_INIT;

	record(rs, st, is_unit, &line, &closing);
	fflush(stdout);
	fflush(stderr);
	/* One write each, so parallel steps never interleave within a line. */
	(void)write_all(1, line.s ? line.s : "", line.len);
	(void)write_all(2, closing.s ? closing.s : "", closing.len);
	buf_release(&line);
	buf_release(&closing);
}

void progress_unit_done(struct runstate *rs, const struct progress_step *st)
{
	step_done(rs, st, 1);
}

void progress_pack_done(struct runstate *rs, const struct progress_step *st)
{
	step_done(rs, st, 0);
}
