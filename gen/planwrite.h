/* planwrite: the plan's side file (planfile.h, MAKEFILE.plan) written from
 * the plan: the callables' descriptions with their units' compile records,
 * the unit list and its index. */
#ifndef KWARM_PLANWRITE_H
#define KWARM_PLANWRITE_H

#include "plan/plan.h"
#include "plan/planfile.h"

/* Write the side file of plan into out (sink.h); refs[i] (nr_callables of them, file
 * left alone) receives where callable i's section lies. */
void planwrite(const struct plan *plan, struct sink *out, struct planfile_ref *refs);

#endif
