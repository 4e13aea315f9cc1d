/* inputs: MAKEFILE.inputs, what remakes the Makefile (written and read in
 * inputs.c). */
#ifndef KWARM_INPUTS_H
#define KWARM_INPUTS_H

#include "buf.h"
#include "makefile.h"
#include "plan/plan.h"
#include "sink.h"

/* Write MAKEFILE.inputs of plan into out (opts as makefile_write takes them). */
void inputs_write(struct sink *out, const struct plan *plan, const struct makefile_options *opts);
/* The first input of makefile (from its watch list in MAKEFILE.inputs) that
 * changed since makefile was written, into changed: a missing or newer input,
 * a new entry; makefile itself when it or the list cannot be read. 0, or -1
 * after reporting a damaged list. */
int inputs_changed(const char *makefile, struct buf *changed);

#endif
