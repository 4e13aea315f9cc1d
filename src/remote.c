/* remote: the HTTP tier of the cache.
 *
 * Protocol (HTTP/1.1, or https where libcurl has TLS), for any server that
 * stores what PUT sends and serves it back with GET (nginx with dav_methods
 * PUT and create_full_put_path on, Apache mod_dav, bazel-remote's HTTP mode):
 *
 *   GET URL/kwarm-entry-2/<key>    200: the entry file's bytes; 404: a miss
 *   PUT URL/kwarm-entry-2/<key>    the entry file's bytes; any 2xx is success
 *
 * A fetched object is untrusted: it must pass the local entry's checks for the
 * key asked (cache_entry_check: whole manifest, the key, the size, SHA-256)
 * before it is published, by rename, as the local entry. Redirects are not
 * followed (a token must not travel elsewhere).
 *
 * The run's markers, in mark_dir:
 *   remote-off      a fault was seen: no step of the run asks the remote again
 *   remote-warned   the one warning of the run was printed
 *
 * Environment: KWARM_REMOTE_TOKEN (an "Authorization: Bearer" header),
 * KWARM_REMOTE_MODE=read-only, KWARM_REMOTE_CONNECT_TIMEOUT and
 * KWARM_REMOTE_TIMEOUT (seconds, defaults 2 and 10); ~/.netrc is read when
 * present (CURL_NETRC_OPTIONAL).
 */
#include "remote.h"
#include "version.h"
#include "buf.h"
#include "cachelog.h"
#include "runid.h"
#include "path.h"
#include "publish.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void release_handle(struct remote *r);
static void fault(struct remote *r, const char *what);

#define REMOTE_CONNECT_DEFAULT_MS 2000
#define REMOTE_TOTAL_DEFAULT_MS 10000
/* No entry is larger: anything bigger is not one of ours. */
#define REMOTE_MAX_OBJECT (1024LL * 1024 * 1024)

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
	const char *mode = getenv("KWARM_REMOTE_MODE");
	char *off;

	memset(r, 0, sizeof(*r));
	if (!url || !*url)
		return;
	/* Checked by gen; a Makefile written by hand could still hold a password. */
	if (remote_url_problem(url)) {
		warning("not using the remote cache: its URL cannot be used (%s)",
			remote_url_problem(url));
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
	release_handle(r);
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

/* A fault: one warning per run, and no more requests in this run. */
static void fault(struct remote *r, const char *what)
{
	r->off = 1;
	(void)mark(r, "remote-off");
	if (!r->warned && mark(r, "remote-warned"))
		warning("remote cache '%s': %s; going on without it for this run", r->url, what);
	r->warned = 1;
}

#ifdef KWARM_HAVE_CURL
#include <curl/curl.h>
#include <dlfcn.h>

/* An object that is not what was asked: a miss, one warning per run. */
static void bad_object(struct remote *r, const char *key, const char *why)
{
	if (!r->warned && mark(r, "remote-warned"))
		warning("remote cache '%s': object '%.16s' is not a valid entry (%s); compiling "
			"it here", r->url, key, why);
	r->warned = 1;
}

/* libcurl, as loaded at run time (names without the curl_ prefix, so that
 * curl.h's type-checking macros do not apply to these pointers). */
static struct {
	int tried, ok;
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	void (*easy_reset)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	CURLcode (*global_init)(long);
} lc;

static int load_curl(void)
{
	void *h;

	if (lc.tried)
		return lc.ok ? 0 : -1;
	lc.tried = 1;
	h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
#define SYM(field, name) \
	if (!(*(void **)&lc.field = dlsym(h, name))) \
		return -1;
	SYM(easy_init, "curl_easy_init");
	SYM(easy_setopt, "curl_easy_setopt");
	SYM(easy_perform, "curl_easy_perform");
	SYM(easy_getinfo, "curl_easy_getinfo");
	SYM(easy_cleanup, "curl_easy_cleanup");
	SYM(easy_reset, "curl_easy_reset");
	SYM(easy_strerror, "curl_easy_strerror");
	SYM(slist_append, "curl_slist_append");
	SYM(slist_free_all, "curl_slist_free_all");
	SYM(global_init, "curl_global_init");
#undef SYM
	if (lc.global_init(CURL_GLOBAL_DEFAULT))
		return -1;
	lc.ok = 1;
	return 0;
}

static void release_handle(struct remote *r)
{
	if (r->easy)
		lc.easy_cleanup(r->easy);
	if (r->headers)
		lc.slist_free_all(r->headers);
}

/* The handle, reset for a new request: 0, or -1 after fault(). */
static int easy(struct remote *r)
{
	const char *token = getenv("KWARM_REMOTE_TOKEN");

	if (load_curl()) {
		fault(r, "libcurl (libcurl.so.4) cannot be loaded");
		return -1;
	}
	if (!r->easy) {
		r->easy = lc.easy_init();
		if (!r->easy) {
			fault(r, "libcurl cannot start");
			return -1;
		}
		/* Large bodies would wait a second for a "100 Continue". */
		r->headers = lc.slist_append(NULL, "Expect:");
		if (token && *token) {
			char *h = xstrfmt("Authorization: Bearer %s", token);

			r->headers = lc.slist_append(r->headers, h);
			free(h);
		}
	} else {
		lc.easy_reset(r->easy);	/* keeps the connection */
	}
	lc.easy_setopt(r->easy, CURLOPT_HTTPHEADER, (struct curl_slist *)r->headers);
	lc.easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
	lc.easy_setopt(r->easy, CURLOPT_CONNECTTIMEOUT_MS, r->connect_ms);
	lc.easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, r->total_ms);
	lc.easy_setopt(r->easy, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	lc.easy_setopt(r->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	lc.easy_setopt(r->easy, CURLOPT_FOLLOWLOCATION, 0L);
	lc.easy_setopt(r->easy, CURLOPT_USERAGENT, "kwarm/" KWARM_VERSION);
	return 0;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;

	if ((long long)(b->len + size * n) > REMOTE_MAX_OBJECT)
		return 0;	/* not an entry: the transfer fails */
	buf_add(b, data, size * n);
	return size * n;
}

static char *object_url(const struct remote *r, const char *key)
{
	return xstrfmt("%s/" REMOTE_LAYOUT "/%s", r->url, key);
}

/* Perform the request set up on r->easy; the HTTP status, or -1 after fault(). */
static long perform(struct remote *r, const char *verb)
{
	CURLcode rc = lc.easy_perform(r->easy);
	long status = 0;
	char *what;

	if (rc != CURLE_OK) {
		what = xstrfmt("%s failed: %s", verb, lc.easy_strerror(rc));
		fault(r, what);
		free(what);
		return -1;
	}
	lc.easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

int remote_fetch(struct remote *r, const struct cache *c, const char *key)
{
	struct buf body = BUF_INIT;
	char *url = NULL, *mpath = NULL, *what;
	const char *why;
	double t0 = now_monotonic();
	long status;
	int ret = -1;

	if (!r->url || r->off)
		return 0;
	if (easy(r))
		goto error;
	url = object_url(r, key);
	lc.easy_setopt(r->easy, CURLOPT_URL, url);
	lc.easy_setopt(r->easy, CURLOPT_HTTPGET, 1L);
	lc.easy_setopt(r->easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)REMOTE_MAX_OBJECT);
	lc.easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, on_body);
	lc.easy_setopt(r->easy, CURLOPT_WRITEDATA, &body);
	status = perform(r, "GET");
	if (status < 0)
		goto error;
	if (status == 404 || status == 410) {
		cachelog_event_bytes(c->dir, "remote-miss", key, now_monotonic() - t0, 0);
		r->tally.misses++;
		ret = 0;
		goto out;
	}
	if (status != 200) {
		what = xstrfmt("GET answered HTTP %ld", status);
		fault(r, what);
		free(what);
		goto error;
	}
	if (cache_entry_check(body.s ? body.s : "", body.len, key, &why) < 0) {
		bad_object(r, key, why);
		goto error;
	}
	mpath = cache_unit_path(c, key, ".m");
	{
		char *dir = path_dirname(mpath);

		mkdir_p(dir);
		free(dir);
	}
	/* A local failure to publish: the unit compiles, as without a remote. */
	if (publish_bytes(mpath, body.s, body.len))
		goto error;
	cachelog_event_bytes(c->dir, "remote-hit", key, now_monotonic() - t0, body.len);
	r->tally.hits++;
	r->tally.bytes_in += body.len;
	ret = 1;
	goto out;
error:
	cachelog_event_bytes(c->dir, "remote-error", key, now_monotonic() - t0, 0);
	r->tally.errors++;
out:
	buf_release(&body);
	free(url);
	free(mpath);
	return ret;
}

struct upload {
	const char *data;
	size_t len, at;
};

static size_t on_send(char *dest, size_t size, size_t n, void *arg)
{
	struct upload *u = arg;
	size_t want = size * n, left = u->len - u->at;

	if (want > left)
		want = left;
	memcpy(dest, u->data + u->at, want);
	u->at += want;
	return want;
}

int remote_upload(struct remote *r, const struct cache *c, const char *key)
{
	struct upload u;
	char *url = NULL, *mpath = NULL, *bytes = NULL, *what;
	const char *why;
	double t0 = now_monotonic();
	size_t len;
	long status;
	int ret = -1;

	if (!r->url || r->off || r->read_only)
		return 0;
	/* Exactly the entry as published, checked again: a remote never gets
	 * what the local checks would refuse. */
	mpath = cache_unit_path(c, key, ".m");
	if (read_file_all(mpath, &bytes, &len) || cache_entry_check(bytes, len, key, &why) < 0)
		goto out;
	if (easy(r))
		goto error;
	url = object_url(r, key);
	u.data = bytes;
	u.len = len;
	u.at = 0;
	lc.easy_setopt(r->easy, CURLOPT_URL, url);
	lc.easy_setopt(r->easy, CURLOPT_UPLOAD, 1L);
	lc.easy_setopt(r->easy, CURLOPT_READFUNCTION, on_send);
	lc.easy_setopt(r->easy, CURLOPT_READDATA, &u);
	lc.easy_setopt(r->easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	status = perform(r, "PUT");
	if (status < 0)
		goto error;
	if (status < 200 || status > 299) {
		what = xstrfmt("PUT answered HTTP %ld", status);
		fault(r, what);
		free(what);
		goto error;
	}
	cachelog_event_bytes(c->dir, "upload", key, now_monotonic() - t0, len);
	r->tally.uploads++;
	r->tally.bytes_out += len;
	ret = 0;
	goto out;
error:
	cachelog_event_bytes(c->dir, "remote-error", key, now_monotonic() - t0, 0);
	r->tally.errors++;
out:
	free(bytes);
	free(url);
	free(mpath);
	return ret;
}
#else	/* built without the remote tier (KWARM_REMOTE=OFF) */

static void release_handle(struct remote *r)
{
	(void)r;
}

int remote_fetch(struct remote *r, const struct cache *c, const char *key)
{
	(void)c;
	(void)key;
	if (r->url && !r->off)
		fault(r, "this kwarm was built without the remote tier");
	return 0;
}

int remote_upload(struct remote *r, const struct cache *c, const char *key)
{
	(void)c;
	(void)key;
	if (r->url && !r->off && !r->read_only)
		fault(r, "this kwarm was built without the remote tier");
	return 0;
}
#endif
