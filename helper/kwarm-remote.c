/* kwarm-remote: the remote cache tier's HTTP transfers (the protocol:
 * remoteproto.c), for kwarm, over its stdin and stdout. The only program
 * that links libcurl; one easy handle serves every request (keep-alive). A
 * transfer that fails is answered "error" with libcurl's reason; a body
 * larger than any entry fails it. Checking what was fetched is kwarm's
 * work. */
#include "cache/remoteproto.h"
#include "version.h"
#include "buf.h"
#include "util.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct helper {
	const char *url;
	long connect_ms, total_ms;
	CURL *easy;
	struct curl_slist *headers;
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;

	if ((long long)(b->len + size * n) > REMOTEPROTO_MAX_OBJECT)
		return 0;	/* not an entry: the transfer fails */
	buf_add(b, data, size * n);
	return size * n;
}

struct upload {
	const char *data;
	size_t len, at;
};

static size_t on_send(char *dest, size_t size, size_t n, void *arg)
{
	struct upload *u = arg;
	size_t want = size * n < u->len - u->at ? size * n : u->len - u->at;

	memcpy(dest, u->data + u->at, want);
	u->at += want;
	return want;
}

/* One request, answered on p. */
static int serve(struct helper *h, struct remoteproto *p, const char *verb, const char *key,
		 const struct buf *in)
{
	struct buf body = BUF_INIT;
	struct upload u = { in->s, in->len, 0 };
	char *url;
	CURLcode rc;
	long status = 0;
	int ret;

	url = xstrfmt("%s/" REMOTEPROTO_LAYOUT "/%s", h->url, key);
	curl_easy_reset(h->easy);	/* keeps the connection */
	curl_easy_setopt(h->easy, CURLOPT_URL, url);
	free(url);	/* libcurl copies it */
	curl_easy_setopt(h->easy, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(h->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->easy, CURLOPT_CONNECTTIMEOUT_MS, h->connect_ms);
	curl_easy_setopt(h->easy, CURLOPT_TIMEOUT_MS, h->total_ms);
	curl_easy_setopt(h->easy, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	curl_easy_setopt(h->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h->easy, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h->easy, CURLOPT_USERAGENT, "kwarm/" KWARM_VERSION);
	if (!strcmp(verb, "GET")) {
		curl_easy_setopt(h->easy, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(h->easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)REMOTEPROTO_MAX_OBJECT);
		curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(h->easy, CURLOPT_WRITEDATA, &body);
	} else {
		curl_easy_setopt(h->easy, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(h->easy, CURLOPT_READFUNCTION, on_send);
		curl_easy_setopt(h->easy, CURLOPT_READDATA, &u);
		curl_easy_setopt(h->easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)in->len);
	}
	rc = curl_easy_perform(h->easy);
	if (rc == CURLE_OK)
		curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
	ret = remoteproto_answer(p, verb, status, &body,
				 rc == CURLE_OK ? NULL : curl_easy_strerror(rc));
	buf_release(&body);
	return ret;
}

/* Milliseconds from argv, as kwarm wrote them. */
static long arg_ms(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v <= 0)
		die("kwarm-remote: '%s' is not a number of milliseconds", s);
	return v;
}

int main(int argc, char **argv)
{
	struct helper h = { 0 };
	struct remoteproto p;
	struct buf head = BUF_INIT, in = BUF_INIT;
	struct strvec headers = STRVEC_INIT;
	const char *why, *verb, *key;
	int ret = 0, got;

	if (argc != 4)
		die("usage: kwarm-remote URL CONNECT_MS TOTAL_MS (run by kwarm, see remoteproto.c)");
	h.url = argv[1];
	h.connect_ms = arg_ms(argv[2]);
	h.total_ms = arg_ms(argv[3]);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) || !(h.easy = curl_easy_init()))
		die("libcurl cannot start");
	remoteproto_headers(&headers);
	for (size_t i = 0; i < headers.nr; i++)
		h.headers = curl_slist_append(h.headers, headers.v[i]);
	strvec_release(&headers);
	remoteproto_init(&p, 0, 1);
	while ((got = remoteproto_recv(&p, &head, &in, REMOTEPROTO_MAX_OBJECT, &why)) == 1) {
		if (remoteproto_parse_request(head.s, &verb, &key)) {
			ret = error("kwarm-remote: not a request: '%s'", head.s);
			break;
		}
		if (serve(&h, &p, verb, key, &in)) {
			ret = -1;	/* kwarm is gone */
			break;
		}
	}
	if (got < 0)
		ret = error("kwarm-remote: %s", why);
	buf_release(&head);
	buf_release(&in);
	curl_slist_free_all(h.headers);
	curl_easy_cleanup(h.easy);
	curl_global_cleanup();
	return ret ? 1 : 0;
}
