/* planwrite: the plan's side file (planfile.h, MAKEFILE.plan) written from
 * the plan: the callables' descriptions with their units' compile records,
 * the unit list and its index. */
#ifndef KWARM_PLANWRITE_H
#define KWARM_PLANWRITE_H

#include "buf.h"
#include "plan.h"
#include "planfile.h"

/* Append the side file of plan to out; refs[i] (nr_callables of them, file
 * left alone) receives where callable i's section lies. */
void planwrite(const struct plan *plan, struct buf *out, struct planfile_ref *refs);

#endif
