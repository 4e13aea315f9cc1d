/* Unit tests of packdesc: a description written by its encoders reads back
 * whole; a description that is cut short or carries a bad line does not. */
#include "check.h"
#include "plan/packdesc.h"
#include "util.h"

#include <stdlib.h>

#define KEY_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define KEY_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void describe(struct buf *b)
{
	static const int chip[] = { 1, 0, 3 }, core[] = { 2 };

	packdesc_add_head(b, "class TestA, callable fwd", "rt 1", "fwd_fn", "cfg x", chip, 3);
	packdesc_add_orch(b, KEY_A, "k/o.cpp");
	packdesc_add_child(b, 7, KEY_B, core, 1, "rms norm");
	packdesc_add_child(b, -2, KEY_A, NULL, 0, "copy");
}

static void test_round_trip(void)
{
	struct buf b = BUF_INIT;
	struct packdesc d;

	describe(&b);
	CHECK(strstr(b.s, "\nsig 1,0,3\norch " KEY_A " k/o.cpp\nchild 7 " KEY_B " 2 rms norm\n"
		      "child -2 " KEY_A " - copy\n") != NULL);
	CHECK_INT(packdesc_parse(b.s, &d), 0);
	CHECK_STR(d.what, "class TestA, callable fwd");
	CHECK_STR(d.func_name, "fwd_fn");
	CHECK_STR(d.config_name, "cfg x");
	CHECK_INT(d.sig_count, 3);
	CHECK(d.sig[0] == 1 && d.sig[1] == 0 && d.sig[2] == 3);
	CHECK_STR(d.orch.key, KEY_A);
	CHECK_STR(d.orch.label, "k/o.cpp");
	CHECK_INT(d.nr_children, 2);
	CHECK_INT(d.children[0].func_id, 7);
	CHECK_STR(d.children[0].key, KEY_B);
	CHECK_INT(d.children[0].sig_count, 1);
	CHECK_STR(d.children[0].label, "rms norm");
	CHECK_INT(d.children[1].func_id, -2);
	CHECK_INT(d.children[1].sig_count, 0);
	packdesc_release(&d);
	CHECK(d.children == NULL && d.what == NULL);
	buf_release(&b);
}

/* Each damage alone makes the description unreadable. */
static void test_rejects(void)
{
	static const struct { const char *from, *to; } damage[] = {
		{ "kwarm-pack 1", "kwarm-pack 2" },
		{ "layout 1", "layout 9" },
		{ "sig 1,0,3", "sig 1,4,3" },
		{ "child 7 ", "child x " },
		{ "orch " KEY_A, "orch " KEY_A "!" },
		{ "func_name ", "funky_name " },
		{ "copy\n", "copy" },		/* the last line cut short */
	};

	for (size_t i = 0; i < ARRAY_SIZE(damage); i++) {
		struct buf b = BUF_INIT, bad = BUF_INIT;
		struct packdesc d;
		char *at;

		describe(&b);
		at = strstr(b.s, damage[i].from);
		CHECK(at != NULL);
		buf_add(&bad, b.s, (size_t)(at - b.s));
		buf_adds(&bad, damage[i].to);
		buf_adds(&bad, at + strlen(damage[i].from));
		if (!CHECK_INT(packdesc_parse(bad.s, &d), -1))
			fprintf(stderr, "damage %zu was read as a description\n", i);
		packdesc_release(&d);
		buf_release(&bad);
		buf_release(&b);
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_round_trip(), "round_trip");
	TEST(test_rejects(), "rejects");
	return check_done();
}
