/* Unit tests of remoteproto: messages round-trip over a socket pair (bodies
 * larger than the read-ahead, empty ones, several in a row), the end of input
 * between messages, and input that is not a message: no length, a length over
 * the cap, a body cut short, a header line without end. */
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
	CHECK_INT(remoteproto_send(&a, "PUT 0123abcd", big, 50000), 0);
	CHECK_INT(remoteproto_send(&a, "GET 0123abcd", NULL, 0), 0);
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

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_round_trip(), "round_trip");
	TEST(test_not_messages(), "not_messages");
	return check_done();
}
