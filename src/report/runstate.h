/* runstate: what the steps of one make run share, in OUT/.kwarm (the folder
 * of the generated Makefile's reports), plus the unit list of the plan
 * (planfile.h) the generator writes next to the Makefile:
 *
 *   state.lock           flock'd exclusively around every change below
 *   run/<tag>/           one folder per make run (tag: runid_tag);
 *                        created by the run's first step, which also removes
 *                        the folders of ended runs (so the folders there are
 *                        this run's and those of runs that overlapped it, e.g.
 *                        a warm-up of other goals into the same OUT), and the
 *                        temps that killed packs, summaries and traces left
 *                        in OUT and here (publish_remove_orphans)
 *     start              "START ZERO": the make's start, the trace's zero
 *                        (one line; a read without its newline came too early)
 *     units              the path of the run's plan (its Makefile's MAKEFILE.plan)
 *     total              units this run compiles: those of its goals that were
 *                        missing from the cache when its first compile began
 *     done               units finished so far (built, cached or failed)
 *     events             what each step did (events.h)
 *     failed, pending    which classes failed, and the goals' callables not
 *                        yet packed with a cursor in them (settle.h)
 *     summary            in a run without a settle list (settle.h, no
 *                        plan): present once a step wrote its summary.json
 *     final              present once a step printed the run's closing lines
 *     over               present once a step found nothing of the run's goals
 *                        left to do (progress.c)
 *     made               the entries this run's compile steps published (made.h)
 *     cache_unusable     why the cache could not take a result of this run
 *                        (the first reason; its units went to the private store)
 *     slot.N             job slots: a step holds the lowest N whose lock it
 *                        can take (flock LOCK_NB) while it runs; under
 *                        make -jN, N < the -j value. A compile writes its
 *                        start stamp into it (one byte, rewritten): a
 *                        file made and removed for it would cost more
 *     packing.<ckey>     flock'd by the pack of that callable from its start
 *                        until its event is in (its stamp appears before): a
 *                        pack whose stamp is there but not its event has not
 *                        ended yet, and its run has not either
 *   trace.json           the timeline (trace.h); a run that starts while
 *                        another runs joins its trace, else it starts a new one
 *   trace.prev.json      the previous trace
 *   summary.json         the account of the last runs (summary.h)
 *   private/             the private store (store.h)
 *   stamps/              which callable each output holds (plan.h)
 *
 * All of it is a report: nothing here ever fails a build. Failures leave the
 * report incomplete and are not reported.
 */
#ifndef KWARM_RUNSTATE_H
#define KWARM_RUNSTATE_H

#include "report/runid.h"
#include "strvec.h"

/* The folder below OUT, and the two in it that others fill: gen names them
 * in the Makefile, store.c and planfile.c build paths below them. */
#define RUNSTATE_DIR ".kwarm"
#define RUNSTATE_PRIVATE_DIR RUNSTATE_DIR "/private"
#define RUNSTATE_STAMPS_DIR RUNSTATE_DIR "/stamps"

#define RUNSTATE_CACHE_UNUSABLE "cache_unusable"
/* Slots past this are not looked for: make -j beyond it is not a warm-up. */
#define RUNSTATE_MAX_SLOTS 4096

struct runstate {
	char *kw_dir;		/* OUT/.kwarm */
	char *dir;		/* KW_DIR/run/<tag> */
	char *units;		/* the unit list file */
	char tag[RUNID_TAG_SIZE];
	int pid;		/* the make run's pid (the trace's pid) */
	double start;		/* its start in unix seconds */
	double zero;		/* the trace's zero: start, or that of the run whose
				 * trace this one joined */
	int slot;		/* the job slot held, -1 when none */
	int slot_fd;
	int pack_fd;		/* this pack's packing.<ckey>, -1 when none */
	int first;		/* this step started the run */
	int total_known;	/* total holds the run's total (runstate_total) */
	int total;
};

/* Join the run of this process in kw_dir (a new run starts a new trace);
 * units is the unit list's path. */
void runstate_open(struct runstate *rs, const char *kw_dir, const char *units);
/* Join the newest run recorded in kw_dir instead, creating nothing (for
 * reports made outside make); with none, an empty run. */
void runstate_open_last(struct runstate *rs, const char *kw_dir, const char *units);
/* Push the tags of the other runs whose folders are in KW_DIR/run. */
void runstate_other_runs(const struct runstate *rs, struct strvec *tags);
/* What the folder of run tag (one of runstate_other_runs) records: the path
 * of its plan (caller frees; NULL when unknown) and its start (0 when
 * unknown). */
void runstate_other_run(const struct runstate *rs, const char *tag, char **units,
			double *start);
/* Give back the slot and free rs. */
void runstate_release(struct runstate *rs);
/* Take the lowest free job slot (rs->slot, -1 when none could be taken). */
void runstate_take_slot(struct runstate *rs);
/* A pack step of callable ckey begins: hold its packing.<ckey>. */
void runstate_pack_begin(struct runstate *rs, const char *ckey);
/* Under the lock, once the pack's event is in: let packing.<ckey> go. */
void runstate_pack_end(struct runstate *rs);
/* True while the pack of callable ckey holds its packing.<ckey>. */
int runstate_pack_running(const struct runstate *rs, const char *ckey);
/* Lock KW_DIR/state.lock exclusively: an fd for runstate_unlock, or -1. */
int runstate_lock(const struct runstate *rs);
void runstate_unlock(int fd);
/* Under the lock: the run's total, computed by the first caller from the
 * unit list, the cache's manifests and goals (MAKECMDGOALS: "", "warmup" or
 * anything else = every unit; only warmup-CLASS words = those classes').
 * Kept in rs: a step reads it once. */
int runstate_total(struct runstate *rs, const char *cache_dir, const char *goals);
/* True when the run's total is there (runstate_total computed it), then kept
 * in rs; no lock needed: it only ever goes from missing to there. */
int runstate_total_fixed(struct runstate *rs);
/* The run's first step only (a no-op in the others): mark every entry of
 * goals that is in the cache as used now, so that 'kwarm cache prune' keeps
 * (CACHE_PRUNE_GRACE) what make has just found up to date and the run's packs
 * are about to read; and remove the temps that packs, summaries and traces
 * killed before their rename left (once a run). */
void runstate_claim_entries(const struct runstate *rs, const char *cache_dir, const char *goals);
/* Under the lock: add one to done and return it. */
int runstate_bump_done(const struct runstate *rs);
/* Under the lock: true when the run counted compiles (runstate_total) and
 * fewer have finished (runstate_bump_done). */
int runstate_compiles_pending(struct runstate *rs);
/* Under the lock: create the run's file name holding text; 1 when this call
 * created it, 0 when it was there (the first note stays) or cannot be made. */
int runstate_note(const struct runstate *rs, const char *name, const char *text);
/* The text of the run's file name (caller frees), or NULL when there is none. */
char *runstate_read_note(const struct runstate *rs, const char *name);
/* True when the run's marker file name exists. */
int runstate_marked(const struct runstate *rs, const char *name);
/* True when goals (MAKECMDGOALS) pick every class; otherwise the picked
 * classes are pushed onto picked. */
int runstate_goals_pick_all(const char *goals, struct strvec *picked);

#endif
