/* Unit tests of remoteproto: messages round-trip over a socket pair (bodies
 * larger than the read-ahead, empty ones, several in a row), the end of input
 * between messages, and input that is not a message: no length, a length over
 * the cap, a body cut short, a header line without end; what each HTTP status
 * means to each verb, which answers carry a body, which heads are requests. */
#include "check.h"
#include "cache/remoteproto.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void pair(struct remoteproto *a, struct remoteproto *b)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	remoteproto_init(a, sv[0], sv[0]);
	remoteproto_init(b, sv[1], sv[1]);
}

static void test_round_trip(void)
{
	struct remoteproto a, b;
	struct buf head = BUF_INIT, body = BUF_INIT;
	const char *why = NULL;
	char *big = malloc(50000);

	for (int i = 0; i < 50000; i++)
		big[i] = (char)(i * 7);
	pair(&a, &b);
	/* Both in flight at once: a socket's buffer holds them. */
	CHECK_INT(remoteproto_ask(&a, "PUT", "0123abcd", big, 50000), 0);
	CHECK_INT(remoteproto_ask(&a, "GET", "0123abcd", NULL, 0), 0);
	CHECK_INT(remoteproto_recv(&b, &head, &body, 50000, &why), 1);
	CHECK_STR(head.s, "PUT 0123abcd");
	CHECK_INT(body.len, 50000);
	CHECK(!memcmp(body.s, big, 50000));
	CHECK_INT(remoteproto_recv(&b, &head, &body, 50000, &why), 1);
	CHECK_STR(head.s, "GET 0123abcd");
	CHECK_INT(body.len, 0);
	close(a.fd_out);
	CHECK_INT(remoteproto_recv(&b, &head, &body, 50000, &why), 0);	/* ended between messages */
	close(b.fd_in);
	buf_release(&head);
	buf_release(&body);
	free(big);
}

/* raw as input: what remoteproto_recv makes of it (max 10), and why. */
static int recv_raw(const char *raw, const char **why)
{
	struct remoteproto a, b;
	struct buf head = BUF_INIT, body = BUF_INIT;
	int got;

	pair(&a, &b);
	if (write(a.fd_out, raw, strlen(raw)) != (ssize_t)strlen(raw))
		abort();
	close(a.fd_out);
	got = remoteproto_recv(&b, &head, &body, 10, why);
	close(b.fd_in);
	buf_release(&head);
	buf_release(&body);
	return got;
}

static void test_not_messages(void)
{
	const char *why = NULL;
	char longline[400];

	CHECK_INT(recv_raw("200 3\nabc", &why), 1);
	CHECK_INT(recv_raw("200\nabc", &why), -1);
	CHECK_STR(why, "a header line has no length, or too large a one");
	CHECK_INT(recv_raw("200 x\n", &why), -1);
	CHECK_INT(recv_raw("200 11\n01234567890", &why), -1);	/* over max */
	CHECK_STR(why, "a header line has no length, or too large a one");
	CHECK_INT(recv_raw("200 5\nabc", &why), -1);
	CHECK_STR(why, "a message is cut short");
	CHECK_INT(recv_raw("200 5", &why), -1);
	CHECK_STR(why, "it ended in a message");
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	CHECK_INT(recv_raw(longline, &why), -1);
	CHECK_STR(why, "a header line is too long");
}

/* What the answer head means to verb, with what (freed) when a failure. */
static int answered(const char *verb, const char *head, const char *want_what)
{
	struct buf body = BUF_INIT;
	char *what = NULL;
	int got;

	buf_adds(&body, "timeout");
	got = remoteproto_answered(verb, head, &body, &what);
	CHECK_STR(what ? what : "", want_what);
	free(what);
	buf_release(&body);
	return got;
}

static void test_statuses(void)
{
	CHECK_INT(answered("GET", "200", ""), 1);
	CHECK_INT(answered("GET", "404", ""), 0);
	CHECK_INT(answered("GET", "410", ""), 0);
	CHECK_INT(answered("GET", "204", "GET answered HTTP 204"), -1);
	CHECK_INT(answered("PUT", "201", ""), 1);
	CHECK_INT(answered("PUT", "299", ""), 1);
	CHECK_INT(answered("PUT", "404", "PUT answered HTTP 404"), -1);
	CHECK_INT(answered("PUT", "500", "PUT answered HTTP 500"), -1);
	CHECK_INT(answered("GET", "error", "GET failed: timeout"), -1);
	CHECK_INT(answered("GET", "99", "its helper answered '99'"), -1);
	CHECK_INT(answered("GET", "200x", "its helper answered '200x'"), -1);
}

/* The helper's side: requests parsed, and only a GET's 200 sends its body. */
static void test_helper_side(void)
{
	struct remoteproto a, b;
	struct buf head = BUF_INIT, body = BUF_INIT, page = BUF_INIT;
	const char *why, *verb, *key;
	char req[] = "PUT 0a9f", bad1[] = "POST 0a9f", bad2[] = "GET 0A9F", bad3[] = "GET";

	CHECK_INT(remoteproto_parse_request(req, &verb, &key), 0);
	CHECK_STR(verb, "PUT");
	CHECK_STR(key, "0a9f");
	CHECK_INT(remoteproto_parse_request(bad1, &verb, &key), -1);
	CHECK_INT(remoteproto_parse_request(bad2, &verb, &key), -1);
	CHECK_INT(remoteproto_parse_request(bad3, &verb, &key), -1);
	buf_adds(&page, "<html>");
	pair(&a, &b);
	CHECK_INT(remoteproto_answer(&a, "GET", 200, &page, NULL), 0);
	CHECK_INT(remoteproto_answer(&a, "GET", 404, &page, NULL), 0);
	CHECK_INT(remoteproto_answer(&a, "PUT", 200, &page, NULL), 0);
	CHECK_INT(remoteproto_answer(&a, "GET", 0, &page, "refused"), 0);
	CHECK_INT(remoteproto_recv(&b, &head, &body, 100, &why), 1);
	CHECK_STR(head.s, "200");
	CHECK_STR(buf_str(&body), "<html>");
	CHECK_INT(remoteproto_recv(&b, &head, &body, 100, &why), 1);
	CHECK_STR(head.s, "404");
	CHECK_INT(body.len, 0);
	CHECK_INT(remoteproto_recv(&b, &head, &body, 100, &why), 1);
	CHECK_STR(head.s, "200");
	CHECK_INT(body.len, 0);
	CHECK_INT(remoteproto_recv(&b, &head, &body, 100, &why), 1);
	CHECK_STR(head.s, "error");
	CHECK_STR(buf_str(&body), "refused");
	close(a.fd_out);
	close(b.fd_in);
	buf_release(&head);
	buf_release(&body);
	buf_release(&page);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_round_trip(), "round_trip");
	TEST(test_not_messages(), "not_messages");
	TEST(test_statuses(), "statuses");
	TEST(test_helper_side(), "helper_side");
	return check_done();
}
