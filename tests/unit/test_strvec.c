#include "check.h"
#include "buf.h"
#include "strvec.h"
#include "util.h"

#include <stdlib.h>

static void test_init(void)
{
	struct strvec sv;
	struct strvec zero = { NULL, 0, 0 };

	strvec_init(&sv);
	CHECK(sv.v != NULL);
	CHECK_INT(sv.nr, 0);
	CHECK(sv.v[0] == NULL);
	CHECK_INT(strvec_find(&sv, "x"), -1);
	strvec_release(&sv);
	CHECK(sv.v == NULL && sv.nr == 0);
	/* A zeroed strvec takes pushes too. */
	strvec_push(&zero, "a");
	CHECK_INT(zero.nr, 1);
	CHECK_STR(zero.v[0], "a");
	CHECK(zero.v[1] == NULL);
	strvec_release(&zero);
}

static void test_push(void)
{
	struct strvec sv;
	char word[] = "mutable";
	int terminated = 1;

	strvec_init(&sv);
	strvec_push(&sv, word);
	word[0] = 'X';	/* push copies */
	CHECK_STR(sv.v[0], "mutable");
	strvec_pushf(&sv, "-D%s=%d", "N", 42);
	strvec_push_nodup(&sv, xstrdup("owned"));
	CHECK_INT(sv.nr, 3);
	CHECK_STR(sv.v[1], "-DN=42");
	CHECK_STR(sv.v[2], "owned");
	CHECK(sv.v[3] == NULL);
	/* Many pushes: order and NULL termination after each one. */
	for (int i = 0; i < 500; i++) {
		strvec_pushf(&sv, "w%d", i);
		if (sv.v[sv.nr] != NULL)
			terminated = 0;
	}
	CHECK(terminated);
	CHECK_INT(sv.nr, 503);
	CHECK_STR(sv.v[3], "w0");
	CHECK_STR(sv.v[502], "w499");
	CHECK_INT(strvec_find(&sv, "w250"), 253);
	CHECK_INT(strvec_find(&sv, "mutable"), 0);
	CHECK_INT(strvec_find(&sv, "w500"), -1);
	CHECK_INT(strvec_find(&sv, "w"), -1);	/* whole words only */
	strvec_release(&sv);
}

static void test_find_first(void)
{
	struct strvec sv;

	strvec_init(&sv);
	strvec_push(&sv, "a");
	strvec_push(&sv, "b");
	strvec_push(&sv, "a");
	strvec_push(&sv, "");
	CHECK_INT(strvec_find(&sv, "a"), 0);
	CHECK_INT(strvec_find(&sv, "b"), 1);
	CHECK_INT(strvec_find(&sv, ""), 3);
	strvec_release(&sv);
}

static void test_pushv_copy(void)
{
	struct strvec a, b, c, empty;

	strvec_init(&a);
	strvec_init(&b);
	strvec_init(&empty);
	strvec_push(&a, "1");
	strvec_push(&a, "2");
	strvec_push(&b, "0");
	strvec_pushv(&b, &a);
	strvec_pushv(&b, &empty);
	CHECK_INT(b.nr, 3);
	CHECK_STR(b.v[0], "0");
	CHECK_STR(b.v[1], "1");
	CHECK_STR(b.v[2], "2");
	CHECK(b.v[3] == NULL);
	/* Copies, not shared pointers. */
	CHECK(b.v[1] != a.v[0]);

	strvec_copy(&c, &b);
	CHECK_INT(c.nr, 3);
	for (size_t i = 0; i < 3; i++) {
		CHECK_STR(c.v[i], b.v[i]);
		CHECK(c.v[i] != b.v[i]);
	}
	CHECK(c.v[3] == NULL);
	strvec_release(&b);	/* c outlives its source */
	CHECK_STR(c.v[2], "2");
	strvec_release(&c);

	strvec_copy(&c, &empty);
	CHECK(c.v != NULL && c.v[0] == NULL);
	CHECK_INT(c.nr, 0);
	strvec_release(&c);
	strvec_release(&a);
	strvec_release(&empty);
}

static char *split_joined(const char *s, int unescape)
{
	struct strvec sv;
	struct buf b = BUF_INIT;

	strvec_init(&sv);
	strvec_split(&sv, s, unescape);
	for (size_t i = 0; i < sv.nr; i++)
		buf_addf(&b, "[%s]", sv.v[i]);
	CHECK(sv.v[sv.nr] == NULL);
	strvec_release(&sv);
	return buf_detach(&b);
}

static void test_split(void)
{
	static const struct {
		const char *in;
		int unescape;
		const char *want;
	} cases[] = {
		{ "", 0, "" },
		{ " \t ", 0, "" },
		{ "a", 0, "[a]" },
		{ "  distcc\tccache  -x ", 0, "[distcc][ccache][-x]" },
		{ "a\\ b c\\", 0, "[a\\][b][c\\]" },
		{ "a\\ b c\\", 1, "[a b][c\\]" },
		{ "-j2 --jobserver-auth=fifo:/t/a\\ b --", 1, "[-j2][--jobserver-auth=fifo:/t/a b][--]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = split_joined(cases[i].in, cases[i].unescape);

		if (!CHECK_STR(got, cases[i].want))
			fprintf(stderr, "  splitting '%s'\n", cases[i].in);
		free(got);
	}
}

/* Fields at a separator, and back: "A,B" and the owners strvec. */
static void test_split_at_join(void)
{
	static const struct { const char *in; size_t nr; const char *joined; } cases[] = {
		{ "", 0, "" }, { "A", 1, "[A]" }, { "A,B", 2, "[A][B]" }, { "A,,B,", 4, "[A][][B][]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strvec sv;
		struct buf b = BUF_INIT, back = BUF_INIT;

		strvec_init(&sv);
		strvec_split_at(&sv, cases[i].in, ',');
		CHECK_INT(sv.nr, cases[i].nr);
		for (size_t j = 0; j < sv.nr; j++)
			buf_addf(&b, "[%s]", sv.v[j]);
		CHECK_STR(buf_str(&b), cases[i].joined);
		strvec_join(&back, &sv, ",");
		CHECK_STR(buf_str(&back), cases[i].in);
		buf_release(&b);
		buf_release(&back);
		strvec_release(&sv);
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_init(), "init");
	TEST(test_push(), "push");
	TEST(test_find_first(), "find_first");
	TEST(test_pushv_copy(), "pushv_copy");
	TEST(test_split(), "split");
	TEST(test_split_at_join(), "split_at_join");
	return check_done();
}
