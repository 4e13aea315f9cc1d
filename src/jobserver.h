/* jobserver: a client of GNU make's jobserver (the token pool behind -jN).
 *
 * - Make advertises the pool in MAKEFLAGS. Only the last --jobserver-auth=
 *   counts (else the last --jobserver-fds=, make <= 4.1), and nothing after the
 *   "--" word does: command-line variables live there and may contain a fake
 *   one. Words may hold backslash-escaped spaces. Two forms: "R,W" (inherited
 *   pipe fds, make <= 4.3 and --jobserver-style=pipe) and "fifo:PATH" (4.4).
 * - The process make started already owns one implicit slot, which is never
 *   written to the pool. It takes at most one token more, and writes back the
 *   very byte read (make 4.4 may give bytes meaning).
 * - Inherited fds are checked (open, FIFOs, right access modes) before use,
 *   and the read end is reopened through /dev/fd so that O_NONBLOCK is set on
 *   a private file description: the shared one belongs to make and to every
 *   sibling. Our fds are close-on-exec; the inherited ones and MAKEFLAGS stay
 *   untouched, so children get working fds and MAKEFLAGS, or neither.
 * - Acquiring polls the pool and a self-pipe and reads non-blocking: EAGAIN
 *   means a sibling won the token (poll again), EOF means the pool is gone
 *   (go on with the implicit slot). Never a blocking read while children run.
 * - Signals: jobserver_catch_signals() installs SIGINT/SIGTERM/SIGHUP handlers
 *   (an inherited SIG_IGN is kept) that only record the signal and write the
 *   self-pipe, plus a SIGCHLD handler that only writes it. The caller's main
 *   loop forwards the signal to its children, reaps them, gives every token
 *   back and calls jobserver_reraise(). There is one self-pipe per process.
 * - An unusable jobserver is never fatal: one warning naming the likely cause
 *   (a recipe without '+'), then the implicit slot alone.
 * - Dry runs: the first MAKEFLAGS word, when it has no leading '-', is make's
 *   single-letter flags. 'n' (--just-print), 't' (--touch) and 'q'
 *   (--question) all mean "run no recipe"; make still runs '+' lines under
 *   them, so a client started by one must not do the work itself. 'k'
 *   (--keep-going) there tells a step whether make goes on after it fails.
 */
#ifndef KWARM_JOBSERVER_H
#define KWARM_JOBSERVER_H

#include <stddef.h>

enum jobserver_kind {
	JOBSERVER_NONE,		/* MAKEFLAGS names no pool */
	JOBSERVER_FDS,		/* "R,W": inherited pipe fds */
	JOBSERVER_FIFO,		/* "fifo:PATH": a named pipe */
	JOBSERVER_DISABLED,	/* negative fds: make gave us no pool */
	JOBSERVER_UNKNOWN	/* a form this client does not speak */
};

/* What MAKEFLAGS says about the pool. */
struct jobserver_auth {
	enum jobserver_kind kind;
	int rfd, wfd;		/* JOBSERVER_FDS and JOBSERVER_DISABLED */
	char *value;		/* the text after '=', unescaped; owned; NULL for JOBSERVER_NONE */
	const char *path;	/* JOBSERVER_FIFO: the path, inside value */
};

struct jobserver {
	int rfd;		/* private non-blocking read end; -1 with no pool */
	int gone;		/* the pool hit EOF or a read error: no more tokens */
	int wfd;		/* write end; -1 with no pool */
	int held;		/* the byte of the token we hold, to give the same back; -1: none */
	int wake[2];		/* the self-pipe, or -1s before jobserver_catch_signals */
	int catching;		/* handlers installed (to restore on disconnect) */
};

/* Parse makeflags (may be NULL) into a fresh auth; release it with jobserver_auth_release. */
void jobserver_parse(const char *makeflags, struct jobserver_auth *auth);
/* Free what jobserver_parse allocated. */
void jobserver_auth_release(struct jobserver_auth *auth);
/* True when makeflags (may be NULL) asks for a dry run: 'n', 't' or 'q' in its first word. */
int jobserver_dry_run(const char *makeflags);
/* True when makeflags (may be NULL) says make keeps going after a failed
 * recipe: 'k' in its first word. */
int jobserver_keep_going(const char *makeflags);

/* An unconnected jobserver holding no tokens; pair with jobserver_disconnect. */
void jobserver_init(struct jobserver *js);
/* Join the pool named in makeflags: 0 connected, 1 none or unusable (warned once if unusable).
 * Call it before opening any fd: a closed inherited fd's number must stay free. */
int jobserver_connect(struct jobserver *js, const char *makeflags);
/* True when connected to a pool. */
int jobserver_connected(const struct jobserver *js);
/* Wait for a token (none may be held): 0 got it, 1 no pool (run on the
 * implicit slot), -1 a signal was caught. */
int jobserver_acquire(struct jobserver *js);
/* Give back the token held (the same byte); a no-op when none is held. */
void jobserver_release(struct jobserver *js);
/* Give back every token, close our fds, restore signal handlers. */
void jobserver_disconnect(struct jobserver *js);

/* Install the signal handlers and the self-pipe (one jobserver per process): 0 or -1. */
int jobserver_catch_signals(struct jobserver *js);
/* The last SIGINT/SIGTERM/SIGHUP caught, or 0. */
int jobserver_caught_signal(const struct jobserver *js);
/* How many such signals were caught so far (to forward each one once). */
unsigned jobserver_signal_count(const struct jobserver *js);
/* Sleep until a handler runs (a signal or a child's exit); 0, or -1 without a self-pipe. */
int jobserver_wait_event(struct jobserver *js);
/* Restore sig's default action and raise it; returns only if sig does not kill. */
void jobserver_reraise(int sig);

#endif
