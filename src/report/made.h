/* made: which cache entries this make run's compile steps published, or took
 * in (fetched from the remote, or found published by another process when
 * the entry's lock came free) once they found them read from this run's
 * files, so that its packs need not check them again (an entry made during
 * the run by another process is checked: pack.h); and which private store
 * entries, so that a compile step packs a callable only from this run's
 * (packnow.h).
 * One file per run, run/<tag>/made (runstate.h), a hash table of fixed slots that steps fill in place:
 *
 *   slot i, at byte 128 * i:  <64 hex: key><64 hex: the artifact's digest>
 *                             or 128 zero bytes (free; a hole reads so)
 *
 * There are 2 * total slots (total: the units the run compiles, at least 32
 * slots); a key's first slot is its first 15 hex digits modulo that, then the
 * next ones in turn, a key's later publish taking its earlier slot. Writers
 * hold an flock on the file; readers read the slots of the units they pack,
 * whose steps have ended. A slot not found (full table, no total, a failed
 * write) only means that entry is checked: nothing depends on a record. Both
 * digests are in it, so that an entry replaced since (the same key, other
 * bytes) is not taken for this run's. Removed with the run's folder: one file
 * whatever the number of units. */
#ifndef KWARM_MADE_H
#define KWARM_MADE_H

#include "report/runstate.h"

#include <stdint.h>

/* Record that this run's compile step published entry key, whose artifact's
 * digest is sha; silent. */
void made_mark(struct runstate *rs, const char *key, const char *sha);

/* The table, for the checks of one step: opened at its first look, as most
 * steps never need it. */
struct made_table {
	struct runstate *rs;	/* the run's until the table is opened, then NULL */
	int fd;			/* -1 when the run has none, or not yet opened */
	uint64_t slots;
};

/* Set t up for run rs (NULL: no run, so no entry is this run's); opens
 * nothing. */
void made_init(struct made_table *t, struct runstate *rs);
/* True when this run's compile step published entry key with an artifact of
 * digest sha (NULL: of any digest). */
int made_has(struct made_table *t, const char *key, const char *sha);
/* Close t if it was opened; made_init sets it up again. */
void made_close(struct made_table *t);

#endif
