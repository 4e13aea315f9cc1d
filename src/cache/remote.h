/* remote: a shared HTTP tier behind the local cache (its markers: remote.c;
 * its protocol: remoteproto.c).
 *
 * Nothing here ever fails a build: a fault prints one warning per make run
 * and turns the remote off for the rest of that run (a marker file); an
 * object that fails the local entry's checks is a miss. */
#ifndef KWARM_REMOTE_H
#define KWARM_REMOTE_H

#include "cache/cache.h"

#include <sys/types.h>

struct remoteproto;

/* What a process asked of the remote (summary.json's "remote" sums them). */
struct remote_tally {
	unsigned long hits, misses, errors, uploads;
	unsigned long long bytes_in, bytes_out;
};

struct remote {
	struct remote_tally tally;
	char *url;		/* without a trailing '/'; NULL: no remote */
	char *mark_dir;		/* this run's marker folder, NULL when none */
	int read_only;		/* KWARM_REMOTE_MODE=read-only */
	long connect_ms, total_ms;
	int off;		/* a fault was seen (here or by the run): ask no more */
	int warned;		/* this process printed the run's one warning */
	struct remoteproto *helper;	/* talking to kwarm-remote; NULL until asked */
	pid_t helper_pid;
};

/* The URL in effect: flag over $KWARM_REMOTE over the spec's; an empty value
 * turns it off. NULL when off (the result points into one of them). */
const char *remote_choose(const char *flag, const char *spec_url);
/* Is url usable in a Makefile and free of credentials? NULL, or why not (static). */
const char *remote_url_problem(const char *url);
/* Set up r for url (may be NULL: every call is then a no-op); mark_dir (may be
 * NULL) holds the run's "remote off" and "warned" markers. Reads
 * KWARM_REMOTE_MODE, KWARM_REMOTE_CONNECT_TIMEOUT, KWARM_REMOTE_TIMEOUT. */
void remote_init(struct remote *r, const char *url, const char *mark_dir);
/* The marker folder of this make run under private_dir (OUT/.kwarm/private):
 * shared by every step of the run, and by the gen a Makefile's remake runs in
 * it, so that a dead server costs the run one timeout. Caller frees. */
char *remote_marker_dir(const char *private_dir);
void remote_release(struct remote *r);
/* Fetch entry key into cache c, verified, published by rename: 1 fetched
 * (its artifact's digest to sha, which may be NULL), 0 not there (or the
 * remote is off), -1 a fault or a bad object (warned once per run). Logs
 * remote-hit, remote-miss or remote-error in c's event log. */
int remote_fetch(struct remote *r, const struct cache *c, const char *key, char *sha);
/* Upload c's valid entry key (not in read-only mode); 0, or -1 (warned once
 * per run). Logs upload in c's event log. */
int remote_upload(struct remote *r, const struct cache *c, const char *key);

#endif
