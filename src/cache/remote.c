/* remote: the HTTP tier of the cache (its protocol: remoteproto.c).
 *
 * A fetched object is untrusted: it must pass the local entry's checks for the
 * key asked (cache_entry_check: whole manifest, the key, the size, SHA-256)
 * before it is published, by rename, as the local entry.
 *
 * The transfers are made by the helper kwarm-remote, which alone links
 * libcurl (kwarm is linked fully static, so that its start stays cheap for
 * every step); it is started when a process first asks the remote and
 * serves every request of that process over one connection.
 *
 * The run's markers, in mark_dir:
 *   remote-off      a fault was seen: no step of the run asks the remote again
 *   remote-warned   the one warning of the run was printed
 *
 * Environment: KWARM_REMOTE_MODE=read-only, KWARM_REMOTE_CONNECT_TIMEOUT and
 * KWARM_REMOTE_TIMEOUT (seconds, defaults 2 and 10).
 */
#include "cache/remote.h"
#include "buf.h"
#include "cache/cachelog.h"
#include "report/runid.h"
#include "os.h"
#include "path.h"
#include "publish.h"
#include "cache/remoteproto.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REMOTE_CONNECT_DEFAULT_MS 2000
#define REMOTE_TOTAL_DEFAULT_MS 10000

const char *remote_choose(const char *flag, const char *spec_url)
{
	const char *env = getenv("KWARM_REMOTE");
	const char *url = flag ? flag : env ? env : spec_url;

	return url && *url ? url : NULL;
}

const char *remote_url_problem(const char *url)
{
	const char *host, *end;

	if (!strncmp(url, "http://", 7))
		host = url + 7;
	else if (!strncmp(url, "https://", 8))
		host = url + 8;
	else
		return "it must start with http:// or https://";
	end = host + strcspn(host, "/");
	if (end == host)
		return "it names no host";
	if (memchr(host, '@', (size_t)(end - host)))
		return "it holds credentials: use ~/.netrc or KWARM_REMOTE_TOKEN";
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 127 || strchr("\"'`\\#$?", *p))
			return "it holds a space, quote, '#', '$', '?' or a control character";
	return NULL;
}

/* Milliseconds from the environment variable name (seconds, fractions
 * allowed), else def. */
static long env_ms(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	double s;

	if (!v || !*v)
		return def;
	errno = 0;
	s = strtod(v, &end);
	if (errno || *end || !isfinite(s) || s <= 0 || s > 86400) {
		warning("ignoring %s='%s' (seconds expected)", name, v);
		return def;
	}
	return (long)(s * 1000) > 0 ? (long)(s * 1000) : 1;
}

static char *marker(const struct remote *r, const char *name)
{
	return r->mark_dir ? path_join(r->mark_dir, name) : NULL;
}

void remote_init(struct remote *r, const char *url, const char *mark_dir)
{
	const char *mode = getenv("KWARM_REMOTE_MODE"), *problem;
	char *off;

	memset(r, 0, sizeof(*r));
	if (!url || !*url)
		return;
	/* Checked by gen; a Makefile written by hand could still hold a password. */
	problem = remote_url_problem(url);
	if (problem) {
		warning("not using the remote cache: its URL cannot be used (%s)", problem);
		return;
	}
	r->url = xstrdup(url);
	while (r->url[0] && r->url[strlen(r->url) - 1] == '/')
		r->url[strlen(r->url) - 1] = '\0';
	r->mark_dir = mark_dir ? xstrdup(mark_dir) : NULL;
	r->read_only = mode && !strcmp(mode, "read-only");
	if (mode && *mode && !r->read_only && strcmp(mode, "read-write"))
		warning("ignoring KWARM_REMOTE_MODE='%s' (read-only or read-write)", mode);
	r->connect_ms = env_ms("KWARM_REMOTE_CONNECT_TIMEOUT", REMOTE_CONNECT_DEFAULT_MS);
	r->total_ms = env_ms("KWARM_REMOTE_TIMEOUT", REMOTE_TOTAL_DEFAULT_MS);
	off = marker(r, "remote-off");
	r->off = off && !access(off, F_OK);
	free(off);
}

char *remote_marker_dir(const char *private_dir)
{
	char run[RUNID_TAG_SIZE];

	runid_tag(run, sizeof(run));
	return xstrfmt("%s/remote.%s", private_dir, run);
}

void remote_release(struct remote *r)
{
	if (r->helper) {
		close(r->helper->fd_in);	/* the end of its input: it exits */
		run_wait(r->helper_pid);
		free(r->helper);
	}
	free(r->url);
	free(r->mark_dir);
	memset(r, 0, sizeof(*r));
}

/* Create marker name; 1 when this call created it (or there is no marker
 * folder), 0 when it was there. */
static int mark(const struct remote *r, const char *name)
{
	char *path = marker(r, name);
	int fd, created;

	if (!path)
		return 1;
	mkdir_p(r->mark_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	created = fd >= 0 || errno != EEXIST;
	if (fd >= 0)
		close(fd);
	free(path);
	return created;
}

/* The run's one warning, "remote cache 'URL': " and the rest. */
__attribute__((format(printf, 2, 3)))
static void warn_once(struct remote *r, const char *fmt, ...)
{
	va_list ap;
	char *what;

	if (!r->warned && mark(r, "remote-warned")) {
		va_start(ap, fmt);
		what = xstrvfmt(fmt, ap);
		va_end(ap);
		warning("remote cache '%s': %s", r->url, what);
		free(what);
	}
	r->warned = 1;
}

/* A fault: one warning per run, and no more requests in this run. */
static void fault(struct remote *r, const char *what)
{
	r->off = 1;
	(void)mark(r, "remote-off");
	warn_once(r, "%s; going on without it for this run", what);
}

/* Start the helper (kwarm-remote beside this program, also in a build tree)
 * unless it runs: 0, or -1 after fault(). */
static int helper_start(struct remote *r)
{
	struct buf why = BUF_INIT;
	char connect[32], total[32], *self, *dir, *path;
	int fd, ret;

	if (r->helper)
		return 0;
	self = os_self_path();
	if (!self) {
		fault(r, "its helper " REMOTEPROTO_HELPER " cannot be found");
		return -1;
	}
	dir = path_dirname(self);
	path = path_join(dir, REMOTEPROTO_HELPER);
	snprintf(connect, sizeof(connect), "%ld", r->connect_ms);
	snprintf(total, sizeof(total), "%ld", r->total_ms);
	ret = run_start_socket((const char *[]){ path, r->url, connect, total, NULL },
			       &r->helper_pid, &fd, &why);
	if (ret)
		fault(r, buf_str(&why));
	buf_release(&why);
	free(path);
	free(dir);
	free(self);
	if (ret)
		return -1;
	r->helper = xmalloc(sizeof(*r->helper));
	remoteproto_init(r->helper, fd, fd);
	return 0;
}

/* One request (verb key, data its body): 1 done with its body in *answer, 0
 * a GET's miss (remoteproto_answered), or -1 after fault(). */
static int ask(struct remote *r, const char *verb, const char *key, const char *data, size_t len,
	       struct buf *answer)
{
	struct buf head = BUF_INIT;
	char *what = NULL;
	const char *why;
	int got, ret = -1;

	if (helper_start(r))
		return -1;
	if (remoteproto_ask(r->helper, verb, key, data, len))
		what = xstrfmt_errno("its helper cannot be asked");
	else if ((got = remoteproto_recv(r->helper, &head, answer, REMOTEPROTO_MAX_OBJECT, &why)) <= 0)
		what = xstrfmt("its helper gave no answer (%s)", got ? why : "it ended");
	else
		ret = remoteproto_answered(verb, head.s, answer, &what);
	if (what) {
		fault(r, what);
		ret = -1;
	}
	free(what);
	buf_release(&head);
	return ret;
}

/* Log the outcome of a request for key begun at t0 (bytes moved) and count it. */
static void note(const struct cache *c, const char *event, const char *key, double t0,
		 uint64_t bytes, unsigned long *count)
{
	cachelog_event(c->dir, event, key, now_monotonic() - t0, bytes);
	(*count)++;
}

int remote_fetch(struct remote *r, const struct cache *c, const char *key, char *sha)
{
	struct buf body = BUF_INIT;
	char *mpath = NULL, *dir = NULL;
	const char *why;
	double t0 = now_monotonic();
	int ret = -1, got;

	if (!r->url || r->off)
		return 0;
	got = ask(r, "GET", key, NULL, 0, &body);
	if (got > 0 && cache_entry_check(body.s ? body.s : "", body.len, key, &why, sha) < 0) {
		warn_once(r, "object '%.16s' is not a valid entry (%s); compiling it here", key, why);
	} else if (got > 0) {
		mpath = cache_unit_path(c, key, CACHE_ENTRY_SUFFIX);
		dir = path_dirname(mpath);
		mkdir_p(dir);
		/* A local failure to publish: the unit compiles, as without a remote. */
		ret = publish_unsynced_gently(mpath, body.s, body.len, NULL) ? -1 : 1;
	} else if (!got) {
		ret = 0;
	}
	if (ret > 0) {
		note(c, "remote-hit", key, t0, body.len, &r->tally.hits);
		r->tally.bytes_in += body.len;
	} else if (!ret) {
		note(c, "remote-miss", key, t0, 0, &r->tally.misses);
	} else {
		note(c, "remote-error", key, t0, 0, &r->tally.errors);
	}
	buf_release(&body);
	free(dir);
	free(mpath);
	return ret;
}

int remote_upload(struct remote *r, const struct cache *c, const char *key)
{
	struct buf answer = BUF_INIT;
	char *mpath, *bytes = NULL;
	const char *why;
	double t0 = now_monotonic();
	size_t len;
	int ret = -1;

	if (!r->url || r->off || r->read_only)
		return 0;
	/* Exactly the entry as published, checked again: a remote never gets
	 * what the local checks would refuse. */
	mpath = cache_unit_path(c, key, CACHE_ENTRY_SUFFIX);
	if (!read_file_all(mpath, &bytes, &len) && cache_entry_check(bytes, len, key, &why, NULL) >= 0) {
		ret = ask(r, "PUT", key, bytes, len, &answer) < 0 ? -1 : 0;
		if (ret) {
			note(c, "remote-error", key, t0, 0, &r->tally.errors);
		} else {
			note(c, "upload", key, t0, len, &r->tally.uploads);
			r->tally.bytes_out += len;
		}
	}
	buf_release(&answer);
	free(bytes);
	free(mpath);
	return ret;
}
