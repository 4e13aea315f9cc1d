/* staleahead: the Makefile's remake check (inputs_changed) started when make
 * begins to read the Makefile and answered when it has read it: the check's
 * stats run on the other core meanwhile, not after the reading (at 100k
 * units: 110k stats, over a tenth of a make -q). */
#ifndef KWARM_STALEAHEAD_H
#define KWARM_STALEAHEAD_H

#include "buf.h"

/* Start checking makefile's inputs in a process of its own that keeps the
 * answer until it is asked for or process make_pid (the make reading the
 * Makefile) ends; the name to ask it by into token. 0; or -1 when it cannot
 * start (token empty: stale_ahead_answer then checks itself). */
int stale_ahead_start(const char *makefile, long make_pid, struct buf *token);
/* The answer of the check token names (as inputs_changed gives it), or, when
 * there is none to be had (no token, the check failed or is gone), the check
 * made now. */
int stale_ahead_answer(const char *token, const char *makefile, struct buf *changed);

#endif
