/* trace: OUT/.kwarm/trace.json, the warm-up's timeline in Chrome trace-event
 * JSON, and trace.prev.json, the one before:
 *
 *   [
 *   {"name":"process_name","ph":"M","pid":PID,"tid":0,
 *    "args":{"name":"kwarm warm-up (make PID)"}},
 *   {"name":LABEL,"cat":"compile"|"pack","ph":"X","ts":US,"dur":US,"pid":PID,
 *    "tid":SLOT,"args":{"unit":LABEL,"classes":[CLASS,...],"key":KEY,
 *    ["cache":"hit"|"miss",]["by":"compile",]"status":STATUS}},
 *                  (cache: compiles only; by: a pack made by the compile step
 *                  of its callable's last unit, src/pack/packnow.h)
 *   ...
 *   ]
 *
 * One process per make run (pid: the make's), one row per job slot (tid), ts
 * in microseconds from the zero of the run that began the trace. The array is
 * always closed: each addition writes over the closing "\n]\n" and writes it
 * again after itself, in one write, under the run state's lock. A trace
 * without it (torn, or not kwarm's) is left as it is, as is a missing one. Nothing here ever fails a build; failures are not reported.
 */
#ifndef KWARM_TRACE_H
#define KWARM_TRACE_H

#include "report/events.h"

#define TRACE_FILE "trace.json"
#define TRACE_PREV_FILE "trace.prev.json"

/* A run's first step, under the lock: with join, add the make run pid as one
 * more process to the trace in kw_dir; else keep the trace as the previous
 * one and start a new one with that process. */
void trace_begin(const char *kw_dir, int pid, int join);
/* Under the lock: add the slice of step ev (a unit's compile or a callable's
 * pack, named by its label) of make run pid on row tid, from t0 to t1 (unix
 * seconds, now_wall) counted from zero, to the trace in kw_dir; by: NULL, or
 * the step that made a pack ("compile"). */
void trace_add_slice(const char *kw_dir, double zero, int pid, int tid, const struct event *ev,
		     double t0, double t1, const char *by);

#endif
