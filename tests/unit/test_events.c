/* Unit tests of events: each kind of line written and read back (a label with
 * spaces, the remote's six counts), lines of no kind, a torn last line. */
#include "check.h"
#include "buf.h"
#include "report/events.h"
#include "path.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmpdir;

struct seen {
	struct event v[8];
	char *copies[8][4];
	int nr;
};

static void keep(const struct event *ev, void *data)
{
	struct seen *s = data;
	struct buf owners = BUF_INIT;
	const char *f[4] = { ev->key, ev->status, NULL, ev->label };

	if (s->nr == 8)
		return;
	s->v[s->nr] = *ev;
	if (ev->owners) {
		strvec_join(&owners, ev->owners, "|");
		f[2] = buf_str(&owners);
	}
	for (int i = 0; i < 4; i++)
		s->copies[s->nr][i] = f[i] ? xstrdup(f[i]) : NULL;
	s->nr++;
	buf_release(&owners);
}

static void test_round_trip(void)
{
	char *dir = path_join(tmpdir, "run"), *path = path_join(dir, EVENTS_FILE), *text;
	struct strvec two, one;
	struct event u = { .kind = EVENT_UNIT, .key = "k1", .status = "built", .seconds = 1.25,
			   .owners = &two, .label = "incore 'q' (aiv)" };
	struct event p = { .kind = EVENT_PACK, .key = "c1", .status = "failed", .seconds = 0.5,
			   .owners = &one };
	struct event r = { .kind = EVENT_REMOTE, .remote = { 1, 2, 3, 4, 500, 600 } };
	struct seen s = { .nr = 0 };

	strvec_init(&two);
	strvec_split_at(&two, "TestA,TestB", ',');
	strvec_init(&one);
	strvec_push(&one, "TestA");
	CHECK_INT(mkdir(dir, 0777), 0);
	events_append(dir, &u);
	events_append(dir, &p);
	events_append(dir, &r);
	text = check_read_file(path);
	CHECK_STR(text, "unit k1 built 1.250 TestA,TestB incore 'q' (aiv)\n"
			"pack c1 failed 0.500 TestA\n"
			"remote 1 2 3 4 500 600\n");
	free(text);
	/* Lines of no kind and a torn last line are skipped. */
	check_write_text(NULL, path, "unit k1 built 1.250 TestA,TestB incore 'q' (aiv)\n"
			 "what is this\nunit short\npack c1 failed 0.500 TestA\n"
			 "remote 1 2 3 4 500 600\nremote 1 2\npack c2 packed 1.0 TestB", 0644);
	events_each(dir, keep, &s);
	CHECK_INT(s.nr, 3);
	if (s.nr == 3) {
		CHECK_INT(s.v[0].kind, EVENT_UNIT);
		CHECK_STR(s.copies[0][0], "k1");
		CHECK_STR(s.copies[0][1], "built");
		CHECK(s.v[0].seconds == 1.25);
		CHECK_STR(s.copies[0][2], "TestA|TestB");
		CHECK_STR(s.copies[0][3], "incore 'q' (aiv)");
		CHECK_INT(s.v[1].kind, EVENT_PACK);
		CHECK_STR(s.copies[1][0], "c1");
		CHECK_STR(s.copies[1][1], "failed");
		CHECK_STR(s.copies[1][2], "TestA");
		CHECK_INT(s.v[2].kind, EVENT_REMOTE);
		CHECK_INT((long long)s.v[2].remote[EVENT_UPLOADS], 4);
		CHECK_INT((long long)s.v[2].remote[EVENT_BYTES_OUT], 600);
	}
	for (int i = 0; i < s.nr; i++)
		for (int j = 0; j < 4; j++)
			free(s.copies[i][j]);
	strvec_release(&two);
	strvec_release(&one);
	free(path);
	free(dir);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("events");
	TEST(test_round_trip(), "round_trip");
	free(tmpdir);
	return check_done();
}
