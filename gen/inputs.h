/* inputs: what remakes the Makefile: its rule, and MAKEFILE.inputs, the list
 * kwarm stale reads (written and read in inputs.c). */
#ifndef KWARM_INPUTS_H
#define KWARM_INPUTS_H

#include "buf.h"
#include "makefile.h"
#include "plan/plan.h"
#include "sink.h"

/* Write the rule that remakes the Makefile of plan into b, at the Makefile's
 * end, and MAKEFILE.inputs into list (opts as makefile_write takes them). */
void inputs_write(struct buf *b, struct sink *list, const struct plan *plan,
		  const struct makefile_options *opts);
/* Whether the Makefile of plan starts its remake check when make begins to
 * read it (staleahead.h): a watch list this long takes longer to check than
 * the process that checks ahead takes to start. */
#define WATCH_AHEAD_MIN 4096
int inputs_check_ahead(const struct plan *plan);
/* The first input of makefile (from its watch list in MAKEFILE.inputs) that
 * changed since makefile was written, into changed: a missing or newer input,
 * a new entry; makefile itself when it or the list cannot be read. 0, or -1
 * after reporting a damaged list. */
int inputs_changed(const char *makefile, struct buf *changed);

#endif
