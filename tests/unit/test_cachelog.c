/* Unit tests of cachelog: the event line format (written, parsed back, garbled
 * and torn lines), runs and tallies, compaction, and use times that leave the
 * mtime alone. */
#include "check.h"
#include "buf.h"
#include "cache/cachelog.h"
#include "path.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *tmpdir;

#define K1 "1111111111111111111111111111111111111111111111111111111111111111"
#define K2 "2222222222222222222222222222222222222222222222222222222222222222"
#define K3 "3333333333333333333333333333333333333333333333333333333333333333"

static void test_write_and_load(void)
{
	char *dir = check_fresh_dir(tmpdir, "write"), *log = path_join(dir, CACHELOG_FILE), *text;
	struct cachelog l;
	long long t0 = (long long)time(NULL), t1;
	char tag[48];
	int match;

	cachelog_event(dir, "miss", K1, 2.5, 0);
	cachelog_event(dir, "hit", K2, 0, 0);
	cachelog_event(dir, "bad event", K1, 0, 0);	/* refused: a space */
	cachelog_event(dir, "hit", "a b", 0, 0);		/* refused: a space */
	cachelog_event(dir, "hit", "", 0, 0);		/* refused: empty */
	t1 = (long long)time(NULL);
	runid_tag(tag, sizeof(tag));
	CHECK(strchr(tag, '@') && !strchr(tag, ' '));
	text = check_must_read(log);
	/* Exactly these two lines, stamped within [t0, t1]. */
	match = 0;
	for (long long a = t0; a <= t1; a++)
		for (long long b = a; b <= t1; b++) {
			char *want = xstrfmt("%lld miss " K1 " 2.500 %s\n%lld hit " K2 " %s\n",
					     a, tag, b, tag);

			match |= !strcmp(text, want);
			free(want);
		}
	CHECK(match);
	cachelog_init(&l);
	CHECK_INT(cachelog_load(&l, dir), 0);
	CHECK_INT(l.nr, 2);
	if (l.nr == 2) {
		CHECK_STR(l.v[0].event, "miss");
		CHECK_STR(l.v[0].key, K1);
		CHECK_INT((long long)(l.v[0].seconds * 1000), 2500);
		CHECK(l.v[0].when >= t0 && l.v[0].when <= t1);
		CHECK_STR(l.v[1].event, "hit");
		CHECK_STR(l.v[1].key, K2);
		CHECK_INT((long long)l.v[1].seconds, 0);
		CHECK_STR(l.v[1].run, tag);
		CHECK_INT(l.v[1].run_index, l.v[0].run_index);
		CHECK_INT(l.nr_runs, 1);
	}
	cachelog_release(&l);

	/* A missing log is empty; a torn last line and garbled lines are skipped. */
	check_write_text(NULL, log, "100 miss " K1 " 1.5 1@1.00\n"
			 "garbage\n"
			 "x100 hit " K1 " 1@1.00\n"
			 "100 hit 1@1.00\n"
			 "100  hit " K1 " 1@1.00\n"
			 "100 hit " K1 " nan 1@1.00\n"
			 "100 hit " K1 " 1.0 extra\n"
			 "100 hit " K1 " 1.0\n"		/* no run tag */
			 "101 corrupt " K3 " 1@1.00\n"
			 "102 hit " K2 " 1@1.00", 0644);
	cachelog_init(&l);
	CHECK_INT(cachelog_load(&l, dir), 0);
	CHECK_INT(l.nr, 2);
	if (l.nr == 2) {
		CHECK_INT(l.v[0].when, 100);
		CHECK_STR(l.v[1].event, "corrupt");
		CHECK_STR(l.v[1].key, K3);
	}
	cachelog_release(&l);
	unlink(log);
	cachelog_init(&l);
	CHECK_INT(cachelog_load(&l, dir), 0);
	CHECK_INT(l.nr, 0);
	cachelog_release(&l);
	free(text);
	free(log);
	free(dir);
}

static void test_parse_line(void)
{
	struct cachelog_event ev;
	const char *good = "1718000000 wait-hit " K2 " 0.250 42@1.00";

	CHECK_INT(cachelog_parse_line(good, strlen(good), &ev), 0);
	CHECK_INT(ev.when, 1718000000);
	CHECK_STR(ev.event, "wait-hit");
	CHECK_STR(ev.key, K2);
	CHECK_INT((long long)(ev.seconds * 1000), 250);
	/* The length bounds the line: a prefix is its own line, one without a
	 * run tag not an event. */
	CHECK_INT(cachelog_parse_line(good, strlen(good) - strlen(" 42@1.00"), &ev), -1);
	CHECK_INT(cachelog_parse_line("1 hit k", 7, &ev), -1);
	CHECK_INT(cachelog_parse_line("1 averyveryverylongevent k", 26, &ev), -1);
	CHECK_INT(cachelog_parse_line("1 hit k\0x", 9, &ev), -1);
	CHECK_INT(cachelog_parse_line("", 0, &ev), -1);
	CHECK_INT(cachelog_parse_line("1 hit k -1", 10, &ev), -1);
	CHECK_INT(cachelog_parse_line("1 hit k 1.5 42@100.07", 21, &ev), 0);
	CHECK_STR(ev.key, "k");
	CHECK_INT((long long)(ev.seconds * 10), 15);
	CHECK_STR(ev.run, "42@100.07");
	CHECK_INT(cachelog_parse_line("1 hit k 42@100.07", 17, &ev), 0);
	CHECK_INT((long long)ev.seconds, 0);
	CHECK_STR(ev.run, "42@100.07");
	/* A remote event's bytes, with and without seconds. */
	CHECK_INT(cachelog_parse_line("1 remote-hit k 0.5 4096b 42@1.00", 32, &ev), 0);
	CHECK_INT((long long)(ev.seconds * 10), 5);
	CHECK_INT((long long)ev.bytes, 4096);
	CHECK_STR(ev.run, "42@1.00");
	CHECK_INT(cachelog_parse_line("1 upload k 77b 4@2", 18, &ev), 0);
	CHECK_INT((long long)ev.seconds, 0);
	CHECK_INT((long long)ev.bytes, 77);
	CHECK_INT(cachelog_parse_line("1 upload k 0.5 b", 16, &ev), -1);
	CHECK_INT(cachelog_parse_line("1 upload k 0.5 7xb", 18, &ev), -1);
	CHECK_INT(cachelog_parse_line("1 hit k 1.5 nope", 16, &ev), -1);
	CHECK_INT(cachelog_parse_line("1 hit k 1.5 4@2 x", 17, &ev), -1);
	CHECK_INT(cachelog_parse_line("1 hit k 1.5x 4@2", 16, &ev), -1);
}

static void test_runs_and_tally(void)
{
	char *dir = check_fresh_dir(tmpdir, "tally"), *log = path_join(dir, CACHELOG_FILE);
	struct cachelog l;
	struct cachelog_tally t;

	/* Run A: two compiles, one also packed (a miss stays a miss). Run B: K1
	 * waited for, then packed twice; K2 a plain hit; K3 found corrupt. Run C,
	 * concurrent with B: compiles K3. Then two more runs, D and E. The last
	 * line is B's. */
	check_write_text(NULL, log, "1000 miss " K1 " 2.0 1@1000.00\n"
			 "1001 miss " K2 " 1.0 1@1000.00\n"
			 "1002 hit " K1 " 1@1000.00\n"
			 "5000 wait-hit " K1 " 3.0 2@4990.00\n"
			 "5001 miss " K3 " 1.0 3@4995.00\n"
			 "5001 hit " K1 " 2@4990.00\n"
			 "5002 hit " K1 " 2@4990.00\n"
			 "5003 hit " K2 " 2@4990.00\n"
			 "5004 corrupt " K3 " 2@4990.00\n"
			 "9000 hit " K1 " 4@8990.00\n"
			 "9600 hit " K2 " 4@8990.00\n"
			 "20000 hit " K1 " 5@19990.00\n"
			 "5002 hit " K2 " 2@4990.00\n", 0644);
	cachelog_init(&l);
	CHECK_INT(cachelog_load(&l, dir), 0);
	CHECK_INT(l.nr, 13);
	CHECK_INT(l.nr_runs, 5);
	if (l.nr == 13) {
		CHECK_INT(l.v[2].run_index, 0);
		CHECK_INT(l.v[3].run_index, 1);
		CHECK_INT(l.v[4].run_index, 2);
		CHECK_INT(l.v[9].run_index, 3);
		CHECK_INT(l.v[10].run_index, 3);
		CHECK_INT(l.v[11].run_index, 4);
		CHECK_INT(l.v[12].run_index, 1);
	}
	cachelog_tally(&l, 1, &t);
	CHECK_INT(t.runs, 1);
	CHECK_INT(t.hits, 1);
	CHECK_INT(t.wait_hits, 1);
	CHECK_INT(t.misses, 0);
	CHECK_INT(t.corrupt, 1);
	CHECK_INT((long long)t.compile_seconds, 0);
	cachelog_tally(&l, CACHELOG_ALL_RUNS, &t);
	CHECK_INT(t.runs, 5);
	CHECK_INT(t.hits, 4);
	CHECK_INT(t.wait_hits, 1);
	CHECK_INT(t.misses, 3);
	CHECK_INT(t.corrupt, 1);
	CHECK_INT((long long)(t.compile_seconds * 10), 40);
	cachelog_release(&l);
	free(log);
	free(dir);
}

static void test_compact(void)
{
	char *dir = check_fresh_dir(tmpdir, "compact"), *log = path_join(dir, CACHELOG_FILE), *text;
	struct buf b = BUF_INIT;

	/* Four runs; keep the last two once past 100 bytes. */
	buf_adds(&b, "1000 miss " K1 " 1.0 1@1.00\n1001 miss " K2 " 1@1.00\n");
	buf_adds(&b, "9000 hit " K1 " 2@2.00\n");
	buf_adds(&b, "20000 hit " K1 " 3@3.00\n20001 wait-hit " K2 " 0.500 3@3.00\n");
	buf_adds(&b, "30000 hit " K3 " 4@4.00\n");
	check_write_text(NULL, log, b.s, 0644);
	CHECK_INT(cachelog_compact(dir, 100000, 2), 0);	/* small: untouched */
	text = check_must_read(log);
	CHECK_STR(text, b.s);
	free(text);
	CHECK_INT(cachelog_compact(dir, 100, 2), 0);
	text = check_must_read(log);
	CHECK_STR(text, "20000 hit " K1 " 3@3.00\n20001 wait-hit " K2 " 0.500 3@3.00\n"
			"30000 hit " K3 " 4@4.00\n");
	free(text);
	/* Appends go on after a compaction. */
	cachelog_event(dir, "miss", K3, 0, 0);
	text = check_must_read(log);
	CHECK_HAS(text, " miss " K3 " ");
	free(text);
	buf_release(&b);
	free(log);
	free(dir);
}

/* Events of many keys in one append, one line each; a bad key has none, and
 * no key writes nothing. */
static void test_events(void)
{
	char *dir = check_fresh_dir(tmpdir, "events"), *log = path_join(dir, CACHELOG_FILE);
	struct strvec keys;
	struct cachelog l;

	strvec_init(&keys);
	cachelog_events(dir, "hit", &keys);
	CHECK(access(log, F_OK) != 0);
	strvec_push(&keys, K1);
	strvec_push(&keys, "not a key");
	strvec_push(&keys, K2);
	cachelog_events(dir, "hit", &keys);
	cachelog_init(&l);
	CHECK_INT(cachelog_load(&l, dir), 0);
	CHECK_INT(l.nr, 2);
	if (l.nr == 2) {
		CHECK_STR(l.v[0].event, "hit");
		CHECK_STR(l.v[0].key, K1);
		CHECK_STR(l.v[1].event, "hit");
		CHECK_STR(l.v[1].key, K2);
	}
	cachelog_release(&l);
	strvec_release(&keys);
	free(log);
	free(dir);
}

/* The remote tier's events: each line counts, with its bytes. */
static void test_remote_tally(void)
{
	char *dir = check_fresh_dir(tmpdir, "remote"), *log = path_join(dir, CACHELOG_FILE);
	struct cachelog l;
	struct cachelog_tally t;

	cachelog_event(dir, "remote-hit", K1, 0.25, 1000);
	cachelog_event(dir, "remote-hit", K2, 0, 24);
	cachelog_event(dir, "remote-miss", K3, 0.01, 0);
	cachelog_event(dir, "remote-error", K3, 0, 0);
	cachelog_event(dir, "upload", K3, 0.5, 300);
	cachelog_event(dir, "miss", K3, 1.0, 0);
	cachelog_init(&l);
	CHECK_INT(cachelog_load(&l, dir), 0);
	CHECK_INT(l.nr, 6);
	cachelog_tally(&l, CACHELOG_ALL_RUNS, &t);
	CHECK_INT(t.remote_hits, 2);
	CHECK_INT(t.remote_misses, 1);
	CHECK_INT(t.remote_errors, 1);
	CHECK_INT(t.uploads, 1);
	CHECK_INT((long long)t.remote_bytes_in, 1024);
	CHECK_INT((long long)t.remote_bytes_out, 300);
	CHECK_INT(t.misses, 1);
	CHECK_INT(t.hits, 0);
	/* Compaction keeps the bytes. */
	CHECK_INT(cachelog_compact(dir, 1, 10), 0);
	cachelog_release(&l);
	cachelog_init(&l);
	CHECK_INT(cachelog_load(&l, dir), 0);
	cachelog_tally(&l, CACHELOG_ALL_RUNS, &t);
	CHECK_INT((long long)t.remote_bytes_in, 1024);
	CHECK_INT((long long)t.remote_bytes_out, 300);
	cachelog_release(&l);
	free(log);
	free(dir);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("cachelog");
	TEST(test_remote_tally(), "remote_tally");
	TEST(test_write_and_load(), "write_and_load");
	TEST(test_parse_line(), "parse_line");
	TEST(test_runs_and_tally(), "runs_and_tally");
	TEST(test_compact(), "compact");
	TEST(test_events(), "events");
	free(tmpdir);
	return check_done();
}
