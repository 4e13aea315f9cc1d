/* Unit tests of progress: a compile's start takes a slot and fixes the total;
 * its end prints "[done/total] STATUS LABEL (CLASS +N) S s", records the event
 * and the trace slice; a failure rewrites the summary and, under github,
 * prints one ::error line per newly failed class; a pack records and rewrites
 * the summary without printing a progress line; the step that ends a failed
 * run prints the closing lines on stderr. */
#include "buf.h"
#include "check.h"
#include "path.h"
#include "progress.h"
#include "summary.h"
#include "util.h"

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

int main(void)
{
	char *tmp = check_tmpdir("progress");
	char *kw = path_join(tmp, "out/.kwarm"), *units = path_join(tmp, "w.mk.units");
	char *cache = path_join(tmp, "cache"), *text, *json;
	char k[3][65], ck[65];
	struct buf list = BUF_INIT;
	struct runstate rs;
	struct progress_step st;

	for (int i = 0; i < 3; i++) {
		memset(k[i], (char)('a' + i), 64);
		k[i][64] = '\0';
	}
	memset(ck, '9', 64);
	ck[64] = '\0';
	buf_adds(&list, "kwarm-units 1\nclass TestA\nclass TestB\nclass TestC\n");
	buf_addf(&list, "callable %s TestA %s/TestA.callable.x\n", ck, kw);
	buf_addf(&list, "unit %s TestA,TestB,TestC orchestration 'o.cpp'\n", k[0]);
	buf_addf(&list, "unit %s TestA incore 'a' (aiv)\n", k[1]);
	buf_addf(&list, "unit %s TestB incore 'b' (aiv)\n", k[2]);
	check_write_text(NULL, units, list.s, 0644);
	unsetenv("GITHUB_ACTIONS");

	runstate_open(&rs, kw, units);
	progress_unit_start(&rs, cache, "");
	CHECK_INT(rs.slot, 0);
	text = slurp_in(rs.dir, "total");
	CHECK_STR(text, "3\n");
	free(text);

	memset(&st, 0, sizeof(st));
	st.label = "orchestration 'o.cpp'";
	st.key = k[0];
	st.owners = "TestA,TestB,TestC";
	st.status = "built";
	st.t0 = rs.start + 0.5;
	st.t1 = rs.start + 2.0;
	text = done(&rs, &st, 1);
	CHECK_STR(text, "[1/3] built orchestration 'o.cpp' (TestA +2) 1.50 s\n");
	free(text);
	text = slurp_in(rs.dir, "events");
	{
		char *want = xstrfmt("unit %s built 1.500 TestA,TestB,TestC orchestration 'o.cpp'\n", k[0]);

		CHECK_STR(text, want);
		free(want);
	}
	free(text);
	text = slurp_in(kw, "trace.json");
	CHECK(text && strstr(text, "\"name\":\"orchestration 'o.cpp'\",\"cat\":\"compile\",\"ph\":\"X\","
				   "\"ts\":500000,\"dur\":1500000,") != NULL);
	CHECK(text && strstr(text, "\"tid\":0,") != NULL);
	CHECK(text && strstr(text, "\"classes\":[\"TestA\",\"TestB\",\"TestC\"]") != NULL);
	CHECK(text && strstr(text, "\"cache\":\"miss\",\"status\":\"built\"}}") != NULL);
	free(text);
	/* A success writes no summary. */
	json = slurp_in(kw, SUMMARY_FILE);
	CHECK(json == NULL);

	/* A cache hit: "hit" in the trace, one class with no "+N". */
	st.label = "incore 'b' (aiv)";
	st.key = k[2];
	st.owners = "TestB";
	st.status = "cached";
	st.t0 = rs.start + 2.0;
	st.t1 = rs.start + 2.25;
	text = done(&rs, &st, 1);
	CHECK_STR(text, "[2/3] cached incore 'b' (aiv) (TestB) 0.25 s\n");
	free(text);
	text = slurp_in(kw, "trace.json");
	CHECK(text && strstr(text, "\"cache\":\"hit\",\"status\":\"cached\"}}") != NULL);
	free(text);

	/* A failure under github: the summary is written, and one ::error per
	 * class newly failed. */
	st.label = "incore 'a' (aiv)";
	st.key = k[1];
	st.owners = "TestA";
	st.status = "failed";
	st.github = 1;
	st.t0 = rs.start + 3;
	st.t1 = rs.start + 4;
	text = done(&rs, &st, 1);
	CHECK_STR(text, "[3/3] failed incore 'a' (aiv) (TestA) 1.00 s\n"
			"::error title=kwarm::class TestA failed: incore 'a' (aiv) did not compile\n");
	free(text);
	json = slurp_in(kw, SUMMARY_FILE);
	CHECK(json && strstr(json, "{\"name\": \"TestA\", \"status\": \"failed\"") != NULL);
	CHECK(json && strstr(json, "\"failed_units\": [\"incore 'a' (aiv)\"]") != NULL);
	free(json);

	/* TestA failed already: a second failure in it says nothing new; TestB
	 * and TestC are new. More done than the total: the total grows. */
	st.label = "orchestration 'o.cpp'";
	st.key = k[0];
	st.owners = "TestA,TestB,TestC";
	text = done(&rs, &st, 1);
	CHECK_STR(text, "[4/4] failed orchestration 'o.cpp' (TestA +2) 1.00 s\n"
			"::error title=kwarm::class TestB failed: orchestration 'o.cpp' did not compile\n"
			"::error title=kwarm::class TestC failed: orchestration 'o.cpp' did not compile\n");
	free(text);

	/* Without github: no ::error lines. */
	st.github = 0;
	text = done(&rs, &st, 1);
	CHECK_STR(text, "[5/5] failed orchestration 'o.cpp' (TestA +2) 1.00 s\n");
	free(text);

	/* A pack: no progress line, an event, a summary; its failure under github
	 * names the class (TestA failed already: silent). */
	st.label = "class TestA";
	st.key = ck;
	st.owners = "TestA";
	st.status = "packed";
	st.t0 = rs.start + 5;
	st.t1 = rs.start + 5.5;
	text = done(&rs, &st, 0);
	CHECK_STR(text, "");
	free(text);
	text = slurp_in(rs.dir, "events");
	{
		char *want = xstrfmt("pack %s packed 0.500 TestA\n", ck);
		size_t n = text ? strlen(text) : 0, m = strlen(want);

		CHECK(n >= m && !strcmp(text + n - m, want));
		free(want);
	}
	free(text);
	text = slurp_in(kw, "trace.json");
	CHECK(text && strstr(text, "\"name\":\"class TestA\",\"cat\":\"pack\",") != NULL);
	free(text);
	json = slurp_in(kw, SUMMARY_FILE);
	CHECK(json && strstr(json, "\"pack_seconds\": 0.500") != NULL);
	free(json);

	{
		/* A fresh run where only packs fail. */
		char *kw2 = path_join(tmp, "out2/.kwarm");
		struct runstate rs2;

		runstate_open(&rs2, kw2, units);
		st.status = "failed";
		st.github = 1;
		st.owners = "TestB";
		st.label = "class TestB";
		text = done(&rs2, &st, 0);
		CHECK_STR(text, "::error title=kwarm::class TestB failed at the pack step\n");
		free(text);
		runstate_release(&rs2);
		free(kw2);
	}

	{
		/* Closing lines, on stderr. Under make -k: once nothing is left
		 * (TestA packed, TestB and TestC failed), and only once. */
		char *kw3 = path_join(tmp, "out3/.kwarm"), *err;
		char *stamp = path_join(kw, "TestA.callable.x");
		struct runstate rs3;

		setenv("MAKEFLAGS", "k -j2 --jobserver-auth=3,4", 1);
		runstate_open(&rs3, kw3, units);
		progress_unit_start(&rs3, cache, "warmup");
		memset(&st, 0, sizeof(st));
		st.goals = "warmup";
		st.t1 = st.t0 = rs3.start;
		for (int i = 0; i < 3; i++) {
			/* The last compile fails, with TestA's pack still to come. */
			st.label = i == 2 ? "incore 'b' (aiv)" : "orchestration or incore a";
			st.key = k[i];
			st.owners = i == 2 ? "TestB" : "TestA";
			st.status = i == 2 ? "failed" : "built";
			check_capture_begin(2);
			free(done(&rs3, &st, 1));
			err = check_capture_end(2);
			CHECK_STR(err, "");
			free(err);
		}
		check_write_text(NULL, stamp, "", 0644);
		st.label = "class TestA";
		st.key = ck;
		st.owners = "TestA";
		st.status = "packed";
		check_capture_begin(2);
		free(done(&rs3, &st, 0));
		err = check_capture_end(2);
		{
			char *want = xstrfmt("kwarm: warm-up failed: 1 of 3 classes failed (1 built, "
					     "1 cached, 0 pending); see '%s/summary.json'\n"
					     "kwarm: class TestB failed: incore 'b' (aiv)\n", kw3);

			CHECK_STR(err, want);
			free(want);
		}
		free(err);
		check_capture_begin(2);
		free(done(&rs3, &st, 0));
		err = check_capture_end(2);
		CHECK_STR(err, "");
		free(err);
		runstate_release(&rs3);

		/* Without -k make stops after a failed step: it prints them. */
		unsetenv("MAKEFLAGS");
		free(kw3);
		kw3 = path_join(tmp, "out4/.kwarm");
		runstate_open(&rs3, kw3, units);
		st.label = "orchestration 'o.cpp'";
		st.key = k[0];
		st.owners = "TestA,TestB,TestC";
		st.status = "failed";
		check_capture_begin(2);
		free(done(&rs3, &st, 1));
		err = check_capture_end(2);
		CHECK(err && strstr(err, "kwarm: warm-up failed: 3 of 3 classes failed") == err);
		CHECK(err && strstr(err, "kwarm: class TestC failed: orchestration 'o.cpp'\n") != NULL);
		free(err);
		runstate_release(&rs3);
		free(stamp);
		free(kw3);
	}

	runstate_release(&rs);
	buf_release(&list);
	free(kw);
	free(units);
	free(cache);
	free(tmp);
	return check_done();
}
