/* run: start a command in a folder and capture its output (git's run-command,
 * much smaller). */
#ifndef KWARM_RUN_H
#define KWARM_RUN_H

#include "buf.h"

#include <sys/types.h>

struct run_result {
	int exited;		/* 1: normal exit with status; 0: killed by signal */
	int status;		/* exit status, or the signal number */
};

/* Run argv (PATH lookup) with cwd dir, stdin from /dev/null, stdout and stderr
 * both appended to output. 0 when it ran (see res), -1 when it could not be
 * started, with the reason in why (error_to: on stderr when why is NULL). */
int run_capture(const char *const *argv, const char *dir, struct buf *output,
		struct run_result *res, struct buf *why);
/* run_capture, calling meanwhile(data) once the command has started: work
 * that need not wait for it is done while it runs (NULL: none). */
int run_capture_meanwhile(const char *const *argv, const char *dir, struct buf *output,
			  struct run_result *res, struct buf *why,
			  void (*meanwhile)(void *), void *data);
/* Start argv (a path, no PATH lookup) with its stdin and stdout on one end
 * of a socket pair; *fd is the other end (close-on-exec). 0, or -1 with the
 * reason in why (error_to: on stderr when why is NULL). The caller closes
 * *fd and waits for *pid (run_wait). */
int run_start_socket(const char *const *argv, pid_t *pid, int *fd, struct buf *why);
/* Wait for pid to end (its status is not wanted). */
void run_wait(pid_t pid);
/* "exit status 1" / "killed by signal 11 (Segmentation fault)" into b. */
void run_describe(const struct run_result *res, struct buf *b);

#endif
