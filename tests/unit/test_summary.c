/* Unit tests of summary: summary.json after unit and pack events (counts,
 * seconds, per-class status built/cached/failed/pending, failed unit labels
 * escaped), the status counts and closing lines, and no file without a
 * unit list. */
#include "buf.h"
#include "check.h"
#include "report/events.h"
#include "logappend.h"
#include "path.h"
#include "report/runstate.h"
#include "report/summary.h"
#include "util.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmpdir;

/* A formatted line appended to the run's events, as a step appends it. */
__attribute__((format(printf, 2, 3)))
static void event(const struct runstate *rs, const char *fmt, ...)
{
	va_list ap;
	char *text = NULL, *path;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	path = path_join(rs->dir, EVENTS_FILE);
	CHECK_INT(logappend_line(NULL, path, text, NULL), 0);
	free(path);
	free(text);
}

/* CHECK that text holds want, showing text when not. */
static void check_has(const char *text, const char *want)
{
	if (!CHECK(text && strstr(text, want) != NULL))
		fprintf(stderr, "  lacks: %s\n  in: %s\n", want, text ? text : "(null)");
}

/* The units of every case: k[0] shared by TestA and TestB, k[1] TestA's,
 * k[2] TestB's, k[3] TestD's (TestC has none); ck[i] the callable of class i. */
static char k[4][65], ck[4][65];

/* A run on its own OUT, tmpdir/name/out, with its unit list, TestC's
 * callable packed and current (cached), TestD not reached; locked as a step
 * holds it. */
struct fixture {
	char *kw, *units, *json;
	struct runstate rs;
	int lock;
};

static void fixture_open(struct fixture *f, const char *name)
{
	struct buf list = BUF_INIT;
	char *stamp[4];

	f->kw = xstrfmt("%s/%s/out/.kwarm", tmpdir, name);
	f->units = xstrfmt("%s/%s/w.mk.plan", tmpdir, name);
	f->json = path_join(f->kw, SUMMARY_FILE);
	buf_adds(&list, "class TestA\nclass TestB\nclass TestC\nclass TestD\n");
	for (int i = 0; i < 4; i++) {
		stamp[i] = xstrfmt("%s/Test%c.callable.%s", f->kw, 'A' + i, ck[i]);
		buf_addf(&list, "callable %s Test%c %s\n", ck[i], 'A' + i, stamp[i]);
	}
	buf_addf(&list, "unit %s TestA,TestB orchestration 'o.cpp'\n", k[0]);
	buf_addf(&list, "unit %s TestA incore \"x\" (aiv)\n", k[1]);
	buf_addf(&list, "unit %s TestB incore 'b' (aiv)\n", k[2]);
	buf_addf(&list, "unit %s TestD incore 'd' (aiv)\n", k[3]);
	check_write_plan(f->units, list.s);
	check_write_text(NULL, stamp[2], "", 0644);
	for (int i = 0; i < 4; i++)
		free(stamp[i]);
	buf_release(&list);
	runstate_open(&f->rs, f->kw, f->units);
	f->lock = runstate_lock(&f->rs);
}

static void fixture_close(struct fixture *f)
{
	runstate_unlock(f->lock);
	runstate_release(&f->rs);
	free(f->kw);
	free(f->units);
	free(f->json);
}

/* TestA: o.cpp built, x failed; TestB: b cached and packed; garbage and
 * unknown classes, which are ignored. */
static void base_events(const struct runstate *rs)
{
	event(rs, "unit %s built 2.500 TestA,TestB orchestration 'o.cpp'\n", k[0]);
	event(rs, "unit %s failed 1.000 TestA incore \"x\" (aiv)\n", k[1]);
	event(rs, "unit %s cached 0.100 TestB incore 'b' (aiv)\n", k[2]);
	event(rs, "pack %s packed 0.750 TestB\n", ck[1]);
	event(rs, "nonsense line\n");
	event(rs, "unit %s built 9.000 TestZ incore 'z' (aiv)\n", k[3]);
	event(rs, "pack %s failed 1.000 TestZ\n", ck[3]);
}

/* summary_write, then the text of summary.json (caller frees). */
static char *written(const struct fixture *f, size_t *len)
{
	char *text = NULL;

	CHECK_INT(summary_write(&f->rs, NULL), 0);
	CHECK_INT(read_file_all(f->json, &text, len), 0);
	return text;
}

/* Before any event: every class cached or pending. */
static void test_before_events(void)
{
	struct fixture f;
	int counts[4];

	fixture_open(&f, "before");
	CHECK_INT(summary_write(&f.rs, counts), 0);
	CHECK_INT(counts[0], 0);
	CHECK_INT(counts[1], 1);
	CHECK_INT(counts[2], 0);
	CHECK_INT(counts[3], 3);
	fixture_close(&f);
}

/* summary.json after the base events: the built unit of a shared class
 * counts for both, TestZ's overall only; the failed classes and the counts. */
static void test_events(void)
{
	struct fixture f;
	char *text, *head;
	int counts[4];
	size_t len;

	fixture_open(&f, "events");
	base_events(&f.rs);
	text = written(&f, &len);
	head = xstrfmt("{\"version\": 1, \"run\": \"%s\", \"runs\": [\"%s\"], "
		       "\"started\": %.3f, \"updated\": ", f.rs.tag, f.rs.tag, f.rs.start);
	CHECK(text && starts_with(text, head));
	free(head);
	check_has(text, "\n \"units\": {\"built\": 2, \"cached\": 1, \"failed\": 1, \"compile_seconds\": 11.500},\n");
	check_has(text, "\n  {\"name\": \"TestA\", \"status\": \"failed\", \"units\": 2, \"units_built\": 1, "
			"\"units_cached\": 0, \"units_failed\": 1, \"compile_seconds\": 2.500, "
			"\"pack_seconds\": 0.000, \"failed_units\": [\"incore \\\"x\\\" (aiv)\"]},");
	check_has(text, "\n  {\"name\": \"TestB\", \"status\": \"built\", \"units\": 2, \"units_built\": 1, "
			"\"units_cached\": 1, \"units_failed\": 0, \"compile_seconds\": 2.500, "
			"\"pack_seconds\": 0.750, \"failed_units\": []},");
	check_has(text, "\n  {\"name\": \"TestC\", \"status\": \"cached\", \"units\": 0, ");
	check_has(text, "\n  {\"name\": \"TestD\", \"status\": \"pending\", \"units\": 1, \"units_built\": 0, ");
	/* TestD last, then the end of the list and of the object. */
	CHECK(text && len >= 8 && !strcmp(text + len - 8, "[]}\n ]}\n"));
	CHECK(text && strstr(text, "TestZ") == NULL);
	/* The cache took every result: no reason recorded. */
	check_has(text, "},\n \"cache_unusable\": null,\n \"remote\": {\"hits\": 0, \"misses\": 0, "
		  "\"errors\": 0, \"uploads\": 0, \"bytes_fetched\": 0, \"bytes_uploaded\": 0},\n"
		  " \"classes\": [");
	free(text);

	CHECK_INT(summary_write(&f.rs, counts), 0);
	CHECK_INT(counts[0], 1);	/* built: TestB */
	CHECK_INT(counts[1], 1);	/* cached: TestC */
	CHECK_INT(counts[2], 1);	/* failed: TestA */
	CHECK_INT(counts[3], 1);	/* pending: TestD */
	fixture_close(&f);
}

/* A reason noted in the run: the first one stays. */
static void test_cache_unusable(void)
{
	struct fixture f;
	char *text;
	size_t len;

	fixture_open(&f, "unusable");
	base_events(&f.rs);
	CHECK_INT(runstate_note(&f.rs, RUNSTATE_CACHE_UNUSABLE, "its disk is \"full\""), 1);
	CHECK_INT(runstate_note(&f.rs, RUNSTATE_CACHE_UNUSABLE, "another reason"), 0);
	text = written(&f, &len);
	check_has(text, "\n \"cache_unusable\": \"its disk is \\\"full\\\"\",\n");
	free(text);
	fixture_close(&f);
}

/* A failed pack fails its class even after a packed one. */
static void test_pack_failed(void)
{
	struct fixture f;
	char *text;
	size_t len;
	int counts[4];

	fixture_open(&f, "pack-failed");
	base_events(&f.rs);
	event(&f.rs, "pack %s failed 0.250 TestB\n", ck[1]);
	text = written(&f, &len);
	check_has(text, "{\"name\": \"TestB\", \"status\": \"failed\", ");
	check_has(text, "\"pack_seconds\": 1.000, \"failed_units\": []}");
	free(text);
	CHECK_INT(summary_write(&f.rs, counts), 0);
	CHECK_INT(counts[2], 2);	/* failed: TestA, TestB */
	fixture_close(&f);
}

/* Another run on the same OUT (other goals, its folder still there: it
 * overlapped this one): summary.json counts its events too and starts at
 * the earlier start; this run's own closing lines and failures do not. */
static void test_other_run(void)
{
	struct fixture f;
	struct buf closing = BUF_INIT;
	char *other, *ev, *text, *head;
	int counts[4];
	size_t len;

	fixture_open(&f, "other-run");
	base_events(&f.rs);
	event(&f.rs, "pack %s failed 0.250 TestB\n", ck[1]);
	other = xstrfmt("%s/run/0@50.00", f.kw);
	check_write_text(other, "start", "50.000000 50.000000\n", 0644);
	/* TestD's unit under another key (the list is this run's); k[0], which
	 * this run built, the other one waited for: it counts once, as built. */
	ev = xstrfmt("unit %064d failed 1.000 TestD incore 'd' (aiv)\n"
		     "unit %s cached 0.100 TestA,TestB orchestration 'o.cpp'\n", 0, k[0]);
	check_write_text(other, "events", ev, 0644);
	free(ev);
	text = written(&f, &len);
	head = xstrfmt("{\"version\": 1, \"run\": \"%s\", \"runs\": [\"0@50.00\", \"%s\"], "
		       "\"started\": 50.000, ", f.rs.tag, f.rs.tag);
	CHECK(text && starts_with(text, head));
	free(head);
	check_has(text, "{\"name\": \"TestD\", \"status\": \"failed\", \"units\": 1, "
			"\"units_built\": 0, \"units_cached\": 0, \"units_failed\": 1, ");
	check_has(text, "\n \"units\": {\"built\": 2, \"cached\": 1, \"failed\": 2, ");
	check_has(text, "{\"name\": \"TestA\", \"status\": \"failed\", \"units\": 2, "
			"\"units_built\": 1, \"units_cached\": 0, \"units_failed\": 1, ");
	free(text);
	CHECK_INT(summary_write(&f.rs, counts), 0);
	CHECK_INT(counts[2], 3);	/* TestA, TestB and the other run's TestD */
	CHECK_INT(summary_failures(&f.rs, &closing), 2);	/* this run's */
	CHECK(closing.s && !strstr(closing.s, "TestD"));
	buf_release(&closing);
	free(other);
	fixture_close(&f);
}

/* summary.json cannot be replaced (a folder that holds a file has its name;
 * an empty one is removed): -1, and nothing printed: the caller words the
 * warning. */
static void test_cannot_publish(void)
{
	struct fixture f;
	char *text, *keep;

	fixture_open(&f, "cannot-publish");
	base_events(&f.rs);
	CHECK_INT(mkdir(f.json, 0777), 0);
	check_write_text(f.json, "keep", "", 0644);
	check_capture_begin(2);
	CHECK_INT(summary_write(&f.rs, NULL), -1);
	text = check_capture_end(2);
	CHECK_STR(text, "");
	free(text);
	keep = path_join(f.json, "keep");
	unlink(keep);
	free(keep);
	rmdir(f.json);
	fixture_close(&f);
}

/* Without a unit list: -1, the file left alone, nothing printed. (Under
 * LeakSanitizer these calls report the unitlist_load leak on a read
 * error: see the BUG in test_unitlist.c.) */
static void test_no_unit_list(void)
{
	char *kw = xstrfmt("%s/no-list/out/.kwarm", tmpdir), *json = path_join(kw, SUMMARY_FILE);
	struct runstate rs;
	char *text;
	int counts[4];
	size_t len;

	runstate_open(&rs, kw, "/no/such/list");
	check_write_text(NULL, json, "old", 0644);
	check_capture_begin(2);
	CHECK_INT(summary_write(&rs, counts), -1);
	CHECK_INT(counts[0] + counts[1] + counts[2] + counts[3], 0);
	text = check_capture_end(2);
	CHECK_STR(text, "");
	free(text);
	CHECK_INT(read_file_all(json, &text, &len), 0);
	CHECK_STR(text, "old");
	free(text);
	runstate_release(&rs);
	free(json);
	free(kw);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("summary");
	for (int i = 0; i < 4; i++) {
		memset(k[i], (char)('a' + i), 64);
		k[i][64] = '\0';
		memset(ck[i], (char)('0' + i), 64);
		ck[i][64] = '\0';
	}
	TEST(test_before_events(), "before_events");
	TEST(test_events(), "events");
	TEST(test_cache_unusable(), "cache_unusable");
	TEST(test_pack_failed(), "pack_failed");
	TEST(test_other_run(), "other_run");
	TEST(test_cannot_publish(), "cannot_publish");
	TEST(test_no_unit_list(), "no_unit_list");
	free(tmpdir);
	return check_done();
}
