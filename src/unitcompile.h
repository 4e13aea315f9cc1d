/* unitcompile: compile one unit into the cache. The step behind `kwarm
 * compile` (a unit's Makefile recipe) and behind a pack that finds a unit's
 * entry corrupt or missing (it compiles the unit again in the same run, under
 * the job slot it holds).
 *
 * Under the entry's lock: a valid entry is a hit after wait; a corrupt one is
 * removed with one warning and compiled again. The compile runs beside the
 * entry, the key is computed again from the files really compiled (nothing is
 * cached under a stale key), and the result is published by rename. When the
 * cache cannot take it (unusable, no locks, its disk full, read-only, not
 * writable), the unit compiles into the private store instead: one warning
 * per make run (its marker: warned.<run tag> in the private store), the
 * reason noted in the run's reports, and no error line or compiler output
 * from the attempt that the private compile made good. */
#ifndef KWARM_UNITCOMPILE_H
#define KWARM_UNITCOMPILE_H

#include "key/deps.h"
#include "report/runstate.h"
#include "strvec.h"
#include "plan/planfile.h"
#include "key/unitkey.h"

struct compile_job {
	const char *cache, *key, *label;	/* the root and the platform are uc's */
	const char *owner_list;		/* --owners A,B (the last one given) */
	struct strvec owners;		/* the unit's classes: its split, or the plan's */
	const char *private_dir;	/* where results go when the cache cannot be used */
	const char *id;			/* stable identity for the durations record */
	const char *state, *goals;	/* runstate folder, the make run's goals */
	const char *plan;		/* MAKEFILE.plan: the unit list; label, id,
					 * owners by key */
	const char *remote;		/* the remote cache's URL (remote.h), or NULL */
	const char *format;		/* --format, or NULL: $GITHUB_ACTIONS decides */
	int github;			/* annotate failures for GitHub Actions */
	int annotated;			/* a failure was annotated already */
	enum deps_family family;	/* how the compiler lists what it read */
	int deps_in_memory;		/* it is gcc itself, run directly */
	struct strvec launcher;
	struct unit_command uc;
	struct runstate *rs;		/* the run's reports, or NULL */
	int bookkeeping_due;		/* progress_unit_bookkeeping not done yet */
	char *classes;			/* the owners as "A, B", for messages */
	/* An attempt in the cache whose failure a private compile may make
	 * good: while holding, its failure blocks, their compiler output and
	 * its error lines wait until it is known whether they count. */
	int holding;
	struct buf held, held_output, held_errors;
	struct unitlist_unit found;	/* what the plan said, when it was asked */
};

void compile_job_init(struct compile_job *j);
void compile_job_release(struct compile_job *j);
/* Read the words of `kwarm compile` after its name (options, "--", the
 * command; the job keeps pointers to argv's strings). 0; PARSE_HELP
 * (parseopt.h) for -h; or -1 with *bad set to what is wrong (caller frees). */
int compile_job_parse(struct compile_job *j, int argc, char **argv, char **bad);
/* Make the unit's entry valid: wait for its lock, use it when valid (*cached
 * set), else remove a corrupt one and compile. 0, or -1 after reporting. */
int compile_job_run(struct compile_job *j, int *cached);
/* compile_job_run between the run's progress lines when j->rs is set; a
 * cached unit's line only with show_cached (a pack's restores are its own). */
int compile_job_run_shown(struct compile_job *j, int *cached, int show_cached);

#endif
