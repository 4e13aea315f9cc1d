/* run: start a command in a folder and capture its output (git's run-command,
 * much smaller). */
#ifndef KWARM_RUN_H
#define KWARM_RUN_H

#include "buf.h"

struct run_result {
	int exited;		/* 1: normal exit with status; 0: killed by signal */
	int status;		/* exit status, or the signal number */
};

/* Run argv (PATH lookup) with cwd dir, stdin from /dev/null, stdout and stderr
 * both appended to output. 0 when it ran (see res), -1 after reporting when it
 * could not be started. */
int run_capture(const char *const *argv, const char *dir, struct buf *output,
		struct run_result *res);
/* "exit status 1" / "killed by signal 11 (Segmentation fault)" into b. */
void run_describe(const struct run_result *res, struct buf *b);

#endif
