/* Unit tests of durations: the record in the cache folder (round trip, last
 * line wins, torn and garbled lines, concurrent appenders, compaction) and the
 * longest-first order (unknown = average, stable ties, determinism). */
#include "check.h"
#include "report/durations.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmpdir;

static size_t count_lines(const char *dir)
{
	char *path = path_join(dir, DURATIONS_LOG), *text;
	size_t len, i, n = 0;

	if (read_file_all(path, &text, &len))
		die("cannot read '%s'", path);
	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	free(text);
	free(path);
	return n;
}

#define CHECK_SECS(got, want) CHECK_INT((long long)((got) * 1000 + 0.5), (long long)((want) * 1000 + 0.5))

static void test_round_trip(void)
{
	char *dir = check_fresh_dir(tmpdir, "round");
	struct durations d;

	durations_init(&d);
	CHECK_INT(durations_load(&d, dir), 0);	/* no log yet: empty record */
	CHECK_INT(d.map.nr, 0);
	CHECK_SECS(durations_get(&d, "a"), -1);
	durations_release(&d);

	CHECK_INT(durations_record(dir, "TestQwen3Decode/incore 'rms_norm' (aiv)", 1.25, NULL), 0);
	CHECK_INT(durations_record(dir, "TestQwen3Decode/orchestration", 6.6, NULL), 0);
	CHECK_INT(durations_record(dir, "b", 0, NULL), 0);
	durations_init(&d);
	CHECK_INT(durations_load(&d, dir), 0);
	CHECK_INT(d.map.nr, 3);
	CHECK_SECS(durations_get(&d, "TestQwen3Decode/incore 'rms_norm' (aiv)"), 1.25);
	CHECK_SECS(durations_get(&d, "TestQwen3Decode/orchestration"), 6.6);
	CHECK_SECS(durations_get(&d, "b"), 0);
	CHECK_SECS(durations_get(&d, "c"), -1);
	durations_release(&d);

	/* Refused silently: ids that would break the format, bad seconds. */
	CHECK_INT(durations_record(dir, "has\ttab", 1, NULL), -1);
	CHECK_INT(durations_record(dir, "has\nnewline", 1, NULL), -1);
	CHECK_INT(durations_record(dir, "", 1, NULL), -1);
	CHECK_INT(durations_record(dir, "neg", -1, NULL), -1);
	CHECK_INT(durations_record(dir, "nan", 0.0 / 0.0, NULL), -1);
	CHECK_INT(count_lines(dir), 3);
	free(dir);
}

static void test_latest_wins(void)
{
	char *dir = check_fresh_dir(tmpdir, "latest");
	struct durations d;

	durations_record(dir, "x", 5, NULL);
	durations_record(dir, "y", 2, NULL);
	durations_record(dir, "x", 3, NULL);
	durations_init(&d);
	CHECK_INT(durations_load(&d, dir), 0);
	CHECK_INT(d.map.nr, 2);
	CHECK_SECS(durations_get(&d, "x"), 3);
	CHECK_SECS(durations_get(&d, "y"), 2);
	durations_release(&d);
	free(dir);
}

static void test_garbage(void)
{
	char *dir = check_fresh_dir(tmpdir, "garbage");
	struct durations d;

	check_write_text(dir, DURATIONS_LOG,
			 "1.5\tgood\n"
			 "no tab here\n"
			 "\tno seconds\n"
			 "2.0\t\n"
			 "-3\tnegative\n"
			 "nan\tnotanumber\n"
			 "inf\tinfinite\n"
			 "1.0x\ttrailing\n"
			 "4\ttwo\ttabs\n"
			 "\n"
			 "2.5\talso good\n"
			 "9.0\tgood", 0644);	/* torn: a writer died before the LF */
			 durations_init(&d);
	CHECK_INT(durations_load(&d, dir), 0);
	CHECK_INT(d.map.nr, 2);
	CHECK_SECS(durations_get(&d, "good"), 1.5);
	CHECK_SECS(durations_get(&d, "also good"), 2.5);
	CHECK_SECS(durations_get(&d, "negative"), -1);
	CHECK_SECS(durations_get(&d, "trailing"), -1);
	durations_release(&d);

	/* A record appended after a torn line is still read: the torn bytes and
	 * the new line form one garbled line, the lines after it are intact. */
	durations_record(dir, "after", 7, NULL);
	durations_record(dir, "after2", 8, NULL);
	durations_init(&d);
	CHECK_INT(durations_load(&d, dir), 0);
	CHECK_SECS(durations_get(&d, "good"), 1.5);
	CHECK_SECS(durations_get(&d, "after2"), 8);
	durations_release(&d);
	free(dir);
}

static void test_load_error(void)
{
	char *dir = check_fresh_dir(tmpdir, "loaderr");
	char *log = path_join(dir, DURATIONS_LOG);
	struct durations d;
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	/* A folder where the log should be: an error, not an empty record. */
	if (mkdir(log, 0777))
		die("mkdir");
	durations_init(&d);
	dup2(devnull, 2);
	CHECK_INT(durations_load(&d, dir), -1);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	durations_release(&d);
	free(log);
	free(dir);
}

#define CHILDREN 8
#define PER_CHILD 200

static void test_concurrent(void)
{
	char *dir = check_fresh_dir(tmpdir, "concurrent");
	struct durations d;
	pid_t pids[CHILDREN];
	int i, j, status, all = 1;

	for (i = 0; i < CHILDREN; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (!pids[i]) {
			for (j = 0; j < PER_CHILD; j++) {
				char *id = xstrfmt("child %d/unit %d with a longer name to widen writes", i, j);

				if (durations_record(dir, id, i * 1000 + j, NULL))
					_exit(1);
				free(id);
			}
			_exit(0);
		}
	}
	for (i = 0; i < CHILDREN; i++) {
		CHECK(waitpid(pids[i], &status, 0) == pids[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	/* 1,600 distinct ids: more lines than 1,000 but not 4 per id, so no
	 * compaction; every line is whole. */
	CHECK_INT(count_lines(dir), CHILDREN * PER_CHILD);
	durations_init(&d);
	CHECK_INT(durations_load(&d, dir), 0);
	CHECK_INT(d.map.nr, CHILDREN * PER_CHILD);
	for (i = 0; i < CHILDREN; i++)
		for (j = 0; j < PER_CHILD; j++) {
			char *id = xstrfmt("child %d/unit %d with a longer name to widen writes", i, j);

			if (durations_get(&d, id) != i * 1000 + j)
				all = 0;
			free(id);
		}
	CHECK(all);
	durations_release(&d);
	free(dir);
}

static void test_compaction(void)
{
	char *dir = check_fresh_dir(tmpdir, "compact");
	struct durations d;
	char *log = path_join(dir, DURATIONS_LOG);
	struct stat st;
	int i, failed = 0;

	/* Five ids rewritten many times: the log is compacted on the way, and
	 * not before it holds 1,000 lines. */
	for (i = 0; i < 6000; i++) {
		char *id = xstrfmt("unit-%d", i % 5);

		failed += durations_record(dir, id, i, NULL) != 0;
		free(id);
		if (i == 899)
			CHECK_INT(count_lines(dir), 900);
	}
	CHECK_INT(failed, 0);
	CHECK(count_lines(dir) < 2100);	/* rewritten: 6,000 appends */
	CHECK(stat(log, &st) == 0 && st.st_size < 64 * 1024);
	durations_init(&d);
	CHECK_INT(durations_load(&d, dir), 0);
	CHECK_INT(d.map.nr, 5);
	for (i = 0; i < 5; i++) {
		char *id = xstrfmt("unit-%d", i);

		CHECK_SECS(durations_get(&d, id), 5995 + i);
		free(id);
	}
	durations_release(&d);

	/* Few lines per id: never compacted, whatever the size. */
	free(log);
	free(dir);
	dir = check_fresh_dir(tmpdir, "nocompact");
	for (i = 0; i < 1500; i++) {
		char *id = xstrfmt("distinct unit number %d", i);

		durations_record(dir, id, 1, NULL);
		free(id);
	}
	CHECK_INT(count_lines(dir), 1500);
	free(dir);
}

static void check_order(const double *secs, size_t n, const size_t *want)
{
	size_t order[16], i;
	int same = 1;

	durations_order(secs, n, order);
	for (i = 0; i < n; i++)
		if (order[i] != want[i])
			same = 0;
	if (!CHECK(same)) {
		fprintf(stderr, "  got:");
		for (i = 0; i < n; i++)
			fprintf(stderr, " %zu", order[i]);
		fprintf(stderr, "\n");
	}
}

static void test_order(void)
{
	/* The qwen shape: the 8.4 s unit 13th, the 6.6 s orchestration first. */
	double qwen[6] = { 6.6, 1.2, 1.2, 8.4, 1.2, 1.2 };
	size_t qwen_want[6] = { 3, 0, 1, 2, 4, 5 };
	/* Unknown counts as the average of the known (3.0 here): above 2, below 4. */
	double mixed[5] = { 2, -1, 4, -1, 3 };
	size_t mixed_want[5] = { 2, 1, 3, 4, 0 };
	/* Nothing known: every unit counts 1.0, spec order stays. */
	double none[4] = { -1, -1, -1, -1 };
	size_t none_want[4] = { 0, 1, 2, 3 };
	/* Ties keep spec order, wherever they are. */
	double ties[7] = { 1, 5, 1, 5, 2, 5, 1 };
	size_t ties_want[7] = { 1, 3, 5, 4, 0, 2, 6 };
	/* A known 0 s unit sorts after unknown ones (average 0.5). */
	double zero[3] = { 0, -1, 1 };
	size_t zero_want[3] = { 2, 1, 0 };
	size_t a[64], b[64], i;
	double big[64];
	int same = 1;

	check_order(qwen, 6, qwen_want);
	check_order(mixed, 5, mixed_want);
	check_order(none, 4, none_want);
	check_order(ties, 7, ties_want);
	check_order(zero, 3, zero_want);
	durations_order(NULL, 0, a);	/* nothing to order: no crash */

	/* Determinism: the same input twice, many ties, same answer; and a
	 * permutation (every index exactly once). */
	for (i = 0; i < 64; i++)
		big[i] = (double)((i * 7) % 5) - (i % 9 == 0 ? 10 : 0);
	durations_order(big, 64, a);
	durations_order(big, 64, b);
	for (i = 0; i < 64; i++)
		if (a[i] != b[i])
			same = 0;
	CHECK(same);
	{
		int seen[64] = { 0 }, perm = 1;

		for (i = 0; i < 64; i++)
			if (a[i] >= 64 || seen[a[i]]++)
				perm = 0;
		CHECK(perm);
		/* Non-increasing effective seconds, ties by index. */
		for (i = 1; i < 64; i++) {
			double x = big[a[i - 1]] >= 0 ? big[a[i - 1]] : -1;
			double y = big[a[i]] >= 0 ? big[a[i]] : -1;

			if (x >= 0 && y >= 0 && (x < y || (x == y && a[i - 1] > a[i])))
				perm = 0;
		}
		CHECK(perm);
	}
}

/* Durations alike (within DURATIONS_SIMILAR of the longest of their run) keep
 * the spec's order; clearly longer ones come first. */
static void test_order_alike(void)
{
	const double secs[] = { 1.20, 1.25, 8.4, 1.18, 6.6, -1 };
	size_t order[6];

	durations_order(secs, 6, order);
	/* The unknown one counts as the average (3.17): between 6.6 and 1.25. */
	CHECK_INT(order[0], 2);
	CHECK_INT(order[1], 4);
	CHECK_INT(order[2], 5);
	CHECK_INT(order[3], 0);
	CHECK_INT(order[4], 1);
	CHECK_INT(order[5], 3);
}

/* Each duration as the mean of its run of alike ones (the runs durations_order
 * keeps in spec order), an unknown one as the average; in place too. */
static void test_alike(void)
{
	double secs[] = { 1.20, 1.25, 8.4, 1.15, 6.6, -1 }, out[6];

	durations_alike(secs, 6, out);
	/* Runs: 8.4 | 6.6 | the unknown 3.72 | 1.25 1.20 1.15. */
	CHECK_SECS(out[2], 8.4);
	CHECK_SECS(out[4], 6.6);
	CHECK_SECS(out[5], 3.72);
	CHECK_SECS(out[0], 1.2);
	CHECK_SECS(out[1], 1.2);
	CHECK_SECS(out[3], 1.2);
	durations_alike(secs, 6, secs);
	CHECK_SECS(secs[1], 1.2);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("durations");
	TEST(test_round_trip(), "round_trip");
	TEST(test_latest_wins(), "latest_wins");
	TEST(test_garbage(), "garbage");
	TEST(test_load_error(), "load_error");
	TEST(test_concurrent(), "concurrent");
	TEST(test_compaction(), "compaction");
	TEST(test_order(), "order");
	TEST(test_order_alike(), "order_alike");
	TEST(test_alike(), "alike");
	free(tmpdir);
	return check_done();
}
