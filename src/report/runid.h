/* runid: which make run a step belongs to.
 *
 * A step's make run is its nearest ancestor named make or gmake (the step
 * itself when there is none), found by walking its ancestors (os.h:
 * os_process_info) once per process. Its tag, "<pid>@<start>", the start in
 * unix seconds with two decimals from the whole-second boot time and the
 * start in clock ticks, is the same in every step of one make run and
 * differs between two concurrent runs: the run
 * folders (runstate.h), the cache's event log (cachelog.h) and the remote's
 * markers (remote.h) are keyed by it.
 */
#ifndef KWARM_RUNID_H
#define KWARM_RUNID_H

#include <stddef.h>

/* Room for a tag and its NUL. */
#define RUNID_TAG_SIZE 48

/* The tag of this process's make run (read once per process). */
void runid_tag(char *tag, size_t size);
/* Start time (unix seconds) of this process's make run: entries older than
 * this were there before the run began; -1 when the system cannot tell. */
double runid_start(void);
/* Whether the make of tag still runs: its pid is alive and, when the tag has
 * a start, it is that process's (not a reused pid). */
int runid_alive(const char *tag);

#endif
