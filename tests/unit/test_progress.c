/* Unit tests of progress: a compile's start takes a slot and fixes the total;
 * its end prints "[done/total] STATUS LABEL (CLASS +N) S s", records the event
 * and the trace slice; a failure rewrites the summary and, under github,
 * prints one ::error line per newly failed class; a pack records and rewrites
 * the summary without printing a progress line; the step that ends a failed
 * run prints the closing lines on stderr. */
#include "buf.h"
#include "check.h"
#include "path.h"
#include "report/progress.h"
#include "report/summary.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static char *slurp_in(const char *dir, const char *name)
{
	char *path = path_join(dir, name), *text = check_read_file(path);

	free(path);
	return text;
}

/* progress_unit_done (or _pack_done) with stdout captured; what it printed. */
static char *done(struct runstate *rs, const struct progress_step *st, int unit)
{
	check_capture_begin(1);
	if (unit)
		progress_unit_done(rs, st);
	else
		progress_pack_done(rs, st);
	return check_capture_end(1);
}

/* done() printed exactly want; a failure names the caller's line. */
#define DONE_PRINTS(rs, st, unit, want) done_prints((rs), (st), (unit), (want), __LINE__)
static void done_prints(struct runstate *rs, const struct progress_step *st, int unit,
			const char *want, int line)
{
	char *text = done(rs, st, unit);

	check_str_at(text, want, __FILE__, line, "what it printed");
	free(text);
}

/* Every case's unit list: classes TestA, TestB, TestC; unit k[0] shared by
 * the three, k[1] TestA's, k[2] TestB's; TestA's callable ck. */
static char *tmp, *units, *cache;
static char k[3][65], ck[65];

/* A fresh run on OUT tmp/name: opened, its first compile started (slot 0, the
 * total fixed); *kw gets its .kwarm folder (caller frees). */
static void fresh_run(struct runstate *rs, const char *name, char **kw)
{
	char *text;

	*kw = xstrfmt("%s/%s/.kwarm", tmp, name);
	runstate_open(rs, *kw, units);
	progress_unit_start(rs);
	progress_unit_bookkeeping(rs, cache, "");
	CHECK_INT(rs->slot, 0);
	text = slurp_in(rs->dir, "total");
	CHECK_STR(text, "3\n");
	free(text);
}

/* A step of unit i (or of TestA's pack when i < 0) ended with status. */
static void step(struct progress_step *st, int i, const char *status, double t0, double t1)
{
	static const char *const label[] = {
		"orchestration 'o.cpp'", "incore 'a' (aiv)", "incore 'b' (aiv)"
	};
	static const char *const owners[] = { "TestA,TestB,TestC", "TestA", "TestB" };

	memset(st, 0, sizeof(*st));
	st->label = i < 0 ? "class TestA" : label[i];
	st->key = i < 0 ? ck : k[i];
	st->owners = check_owners(i < 0 ? "TestA" : owners[i]);
	st->status = status;
	st->t0 = t0;
	st->t1 = t1;
}

/* A unit built: its progress line, its event, its trace slice; the run's
 * first step to end writes the summary (it names the run), a later success
 * with the run not over writes none. */
static void test_built(void)
{
	struct runstate rs;
	struct progress_step st;
	char *kw, *text, *want;

	fresh_run(&rs, "built", &kw);
	step(&st, 0, "built", rs.start + 0.5, rs.start + 2.0);
	DONE_PRINTS(&rs, &st, 1, "[1/3] built orchestration 'o.cpp' (TestA +2) 1.50 s\n");
	text = slurp_in(rs.dir, "events");
	want = xstrfmt("unit %s built 1.500 TestA,TestB,TestC orchestration 'o.cpp'\n", k[0]);
	CHECK_STR(text, want);
	free(want);
	free(text);
	text = slurp_in(kw, "trace.json");
	CHECK(text && strstr(text, "\"name\":\"orchestration 'o.cpp'\",\"cat\":\"compile\",\"ph\":\"X\","
				   "\"ts\":500000,\"dur\":1500000,") != NULL);
	CHECK_HAS(text, "\"tid\":0,");
	CHECK_HAS(text, "\"classes\":[\"TestA\",\"TestB\",\"TestC\"]");
	CHECK_HAS(text, "\"cache\":\"miss\",\"status\":\"built\"}}");
	free(text);
	text = slurp_in(kw, SUMMARY_FILE);
	CHECK_HAS(text, rs.tag);
	CHECK_HAS(text, "{\"name\": \"TestA\", \"status\": \"pending\"");
	free(text);
	want = path_join(kw, SUMMARY_FILE);
	CHECK_INT(unlink(want), 0);
	step(&st, 2, "built", rs.start + 2.0, rs.start + 2.5);
	free(done(&rs, &st, 1));
	CHECK(access(want, F_OK) && errno == ENOENT);
	free(want);
	runstate_release(&rs);
	free(kw);
}

/* A cache hit: "hit" in the trace, one class with no "+N". */
static void test_cached(void)
{
	struct runstate rs;
	struct progress_step st;
	char *kw, *text;

	fresh_run(&rs, "cached", &kw);
	step(&st, 2, "cached", rs.start + 2.0, rs.start + 2.25);
	DONE_PRINTS(&rs, &st, 1, "[1/3] cached incore 'b' (aiv) (TestB) 0.25 s\n");
	text = slurp_in(kw, "trace.json");
	CHECK_HAS(text, "\"cache\":\"hit\",\"status\":\"cached\"}}");
	free(text);
	runstate_release(&rs);
	free(kw);
}

/* A failure under github: the summary is written, and one ::error per class
 * newly failed; a second failure in TestA says nothing new of it, TestB and
 * TestC are new. Without github: no ::error lines. More done than the
 * total: the total grows. */
static void test_failed(void)
{
	struct runstate rs;
	struct progress_step st;
	char *kw, *text;

	fresh_run(&rs, "failed", &kw);
	step(&st, 1, "failed", rs.start + 3, rs.start + 4);
	st.github = 1;
	DONE_PRINTS(&rs, &st, 1, "[1/3] failed incore 'a' (aiv) (TestA) 1.00 s\n"
		    "::error title=kwarm::class TestA failed: incore 'a' (aiv) did not compile\n");
	text = slurp_in(kw, SUMMARY_FILE);
	CHECK_HAS(text, "{\"name\": \"TestA\", \"status\": \"failed\"");
	CHECK_HAS(text, "\"failed_units\": [\"incore 'a' (aiv)\"]");
	free(text);

	step(&st, 0, "failed", rs.start + 3, rs.start + 4);
	st.github = 1;
	DONE_PRINTS(&rs, &st, 1, "[2/3] failed orchestration 'o.cpp' (TestA +2) 1.00 s\n"
		    "::error title=kwarm::class TestB failed: orchestration 'o.cpp' did not compile\n"
		    "::error title=kwarm::class TestC failed: orchestration 'o.cpp' did not compile\n");

	st.github = 0;
	DONE_PRINTS(&rs, &st, 1, "[3/3] failed orchestration 'o.cpp' (TestA +2) 1.00 s\n");
	DONE_PRINTS(&rs, &st, 1, "[4/4] failed orchestration 'o.cpp' (TestA +2) 1.00 s\n");
	runstate_release(&rs);
	free(kw);
}

/* A pack: no progress line, an event, a trace slice, a summary. */
static void test_pack(void)
{
	struct runstate rs;
	struct progress_step st;
	char *kw, *text, *want;
	size_t n, m;

	fresh_run(&rs, "pack", &kw);
	step(&st, 1, "failed", rs.start + 3, rs.start + 4);
	free(done(&rs, &st, 1));
	step(&st, -1, "packed", rs.start + 5, rs.start + 5.5);
	DONE_PRINTS(&rs, &st, 0, "");
	text = slurp_in(rs.dir, "events");
	want = xstrfmt("pack %s packed 0.500 TestA\n", ck);
	n = text ? strlen(text) : 0;
	m = strlen(want);
	CHECK(n >= m && !strcmp(text + n - m, want));
	free(want);
	free(text);
	text = slurp_in(kw, "trace.json");
	CHECK_HAS(text, "\"name\":\"class TestA\",\"cat\":\"pack\",");
	free(text);
	text = slurp_in(kw, SUMMARY_FILE);
	CHECK_HAS(text, "\"pack_seconds\": 0.500");
	free(text);
	runstate_release(&rs);
	free(kw);
}

/* A run where only a pack fails: under github its failure names the class. */
static void test_pack_failed(void)
{
	char *kw = xstrfmt("%s/pack-failed/.kwarm", tmp);
	struct runstate rs;
	struct progress_step st;

	runstate_open(&rs, kw, units);
	step(&st, -1, "failed", rs.start + 5, rs.start + 5.5);
	st.owners = check_owners("TestB");
	st.label = "class TestB";
	st.github = 1;
	DONE_PRINTS(&rs, &st, 0, "::error title=kwarm::class TestB failed at the pack step\n");
	runstate_release(&rs);
	free(kw);
}

/* done() with stderr captured: what it printed there. */
static char *done_err(struct runstate *rs, const struct progress_step *st, int unit)
{
	check_capture_begin(2);
	free(done(rs, st, unit));
	return check_capture_end(2);
}

/* Closing lines, on stderr. Under make -k: once nothing is left (TestA
 * packed, TestB and TestC failed), and only once. */
static void test_closing_keep_going(void)
{
	char *kw = xstrfmt("%s/keep-going/.kwarm", tmp), *err, *want;
	char *stamp = xstrfmt("%s/out/.kwarm/TestA.callable.x", tmp);	/* the list's */
	struct runstate rs;
	struct progress_step st;

	setenv("MAKEFLAGS", "k -j2 --jobserver-auth=3,4", 1);
	runstate_open(&rs, kw, units);
	progress_unit_start(&rs);
	progress_unit_bookkeeping(&rs, cache, "warmup");
	for (int i = 0; i < 3; i++) {
		/* The last compile fails, with TestA's pack still to come. */
		step(&st, i, i == 2 ? "failed" : "built", rs.start, rs.start);
		st.label = i == 2 ? "incore 'b' (aiv)" : "orchestration or incore a";
		st.owners = check_owners(i == 2 ? "TestB" : "TestA");
		st.goals = "warmup";
		err = done_err(&rs, &st, 1);
		CHECK_STR(err, "");
		free(err);
	}
	check_write_text(NULL, stamp, "", 0644);
	step(&st, -1, "packed", rs.start, rs.start);
	st.goals = "warmup";
	err = done_err(&rs, &st, 0);
	want = xstrfmt("kwarm: warm-up failed: 1 of 3 classes failed (1 built, "
		       "1 cached, 0 pending); see '%s/summary.json'\n"
		       "kwarm: class TestB failed: incore 'b' (aiv)\n", kw);
	CHECK_STR(err, want);
	free(want);
	free(err);
	err = done_err(&rs, &st, 0);
	CHECK_STR(err, "");
	free(err);
	runstate_release(&rs);
	unsetenv("MAKEFLAGS");
	free(stamp);
	free(kw);
}

/* Without -k make stops after a failed step: it prints them. */
static void test_closing_stop(void)
{
	char *kw = xstrfmt("%s/stop/.kwarm", tmp), *err;
	struct runstate rs;
	struct progress_step st;

	unsetenv("MAKEFLAGS");
	runstate_open(&rs, kw, units);
	step(&st, 0, "failed", rs.start, rs.start);
	st.goals = "warmup";
	err = done_err(&rs, &st, 1);
	CHECK(err && strstr(err, "kwarm: warm-up failed: 3 of 3 classes failed") == err);
	CHECK_HAS(err, "kwarm: class TestC failed: orchestration 'o.cpp'\n");
	free(err);
	runstate_release(&rs);
	free(kw);
}

/* TestA's stamp is there, yet its units compile again (their entries were
 * gone): the run is over only after the last compile. Its first step to end
 * writes the summary, the next (a compile to come) does not, the last does. */
static void test_over_after_compiles(void)
{
	char *kw = xstrfmt("%s/over/.kwarm", tmp), *json = path_join(kw, SUMMARY_FILE);
	char *stamp = xstrfmt("%s/out/.kwarm/TestA.callable.x", tmp);	/* the list's */
	struct runstate rs;
	struct progress_step st;

	check_write_text(NULL, stamp, "", 0644);
	runstate_open(&rs, kw, units);
	progress_unit_start(&rs);
	progress_unit_bookkeeping(&rs, cache, "warmup");
	for (int i = 0; i < 3; i++) {
		step(&st, i, "built", rs.start, rs.start);
		st.goals = "warmup";
		free(done(&rs, &st, 1));
		CHECK_INT(access(json, F_OK) == 0, i != 1);
		unlink(json);
	}
	runstate_release(&rs);
	CHECK_INT(unlink(stamp), 0);
	free(stamp);
	free(json);
	free(kw);
}

int main(int argc, char **argv)
{
	struct buf list = BUF_INIT;

	check_init(argc, argv);
	tmp = check_tmpdir("progress");
	units = path_join(tmp, "w.mk.plan");
	cache = path_join(tmp, "cache");
	for (int i = 0; i < 3; i++) {
		memset(k[i], (char)('a' + i), 64);
		k[i][64] = '\0';
	}
	memset(ck, '9', 64);
	ck[64] = '\0';
	buf_adds(&list, "class TestA\nclass TestB\nclass TestC\n");
	buf_addf(&list, "callable %s TestA %s/out/.kwarm/TestA.callable.x\n", ck, tmp);
	buf_addf(&list, "unit %s TestA,TestB,TestC orchestration 'o.cpp'\n", k[0]);
	buf_addf(&list, "unit %s TestA incore 'a' (aiv)\n", k[1]);
	buf_addf(&list, "unit %s TestB incore 'b' (aiv)\n", k[2]);
	check_write_plan(units, list.s);
	unsetenv("GITHUB_ACTIONS");

	TEST(test_built(), "built");
	TEST(test_cached(), "cached");
	TEST(test_failed(), "failed");
	TEST(test_pack(), "pack");
	TEST(test_pack_failed(), "pack_failed");
	TEST(test_closing_keep_going(), "closing_keep_going");
	TEST(test_closing_stop(), "closing_stop");
	TEST(test_over_after_compiles(), "over_after_compiles");

	buf_release(&list);
	free(units);
	free(cache);
	free(tmp);
	return check_done();
}
