/* Unit tests of settle: the goals' callables not packed when the run first
 * asks, passed by a cursor as their stamps appear or their classes fail,
 * made once per run, not while their pack runs; failed classes noted and
 * read back; never settled without a unit list. */
#include "buf.h"
#include "check.h"
#include "path.h"
#include "report/runstate.h"
#include "report/settle.h"
#include "util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmpdir;

static char *stamp_path(const char *kw, char cls, int i)
{
	return xstrfmt("%s/stamps/Test%c.callable/%064d", kw, cls, i);
}

/* The output of stamp_path's callable: OUT/TestX.callable, kw being OUT/.kwarm. */
static char *output_path(const char *kw, char cls)
{
	return xstrfmt("%.*s/Test%c.callable", (int)(strlen(kw) - strlen("/.kwarm")), kw, cls);
}

static void write_list(const char *units, const char *kw, int with_d)
{
	struct buf list = BUF_INIT;
	static const char cls[] = "ABBC";

	buf_adds(&list, "class TestA\nclass TestB\nclass TestC\nclass TestD\n");
	for (int i = 0; i < 4 + with_d; i++) {
		char c = i < 4 ? cls[i] : 'D';
		char *stamp = stamp_path(kw, c, i);

		buf_addf(&list, "callable %064d Test%c %s\n", i, c, stamp);
		free(stamp);
	}
	check_write_plan(units, list.s);
	buf_release(&list);
}

/* Pack callable i of class cls: its output, then its stamp. */
static void touch(const char *kw, char cls, int i)
{
	char *p = stamp_path(kw, cls, i), *out = output_path(kw, cls);

	check_write_text(NULL, out, "", 0644);
	check_write_text(NULL, p, "", 0644);
	free(out);
	free(p);
}

/* A case's run: OUT is tmpdir/<name>, kw its OUT/.kwarm, units its plan. */
struct tcase {
	char *kw, *units;
	struct runstate rs;
};

/* Name t's folders below tmpdir/name. With list, write write_list's plan,
 * pack TestC's callable when packed, and join the run. */
static void case_begin(struct tcase *t, const char *name, int list, int packed)
{
	t->kw = xstrfmt("%s/%s/.kwarm", tmpdir, name);
	t->units = xstrfmt("%s/%s/w.mk.plan", tmpdir, name);
	if (!list)
		return;
	write_list(t->units, t->kw, 0);
	if (packed)
		touch(t->kw, 'C', 3);
	runstate_open(&t->rs, t->kw, t->units);
}

static void case_end(struct tcase *t)
{
	runstate_release(&t->rs);
	free(t->units);
	free(t->kw);
}

static void test_cursor(void)
{
	struct tcase t;
	struct strvec failed;
	int made = 9;
	char *a;

	case_begin(&t, "a", 1, 1);			/* TestC: packed already */
	a = stamp_path(t.kw, 'A', 0);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, &made), 0);	/* A, B1, B2 to go */
	CHECK_INT(made, 1);				/* the first to ask made it */
	/* The list is the first asker's: a callable added later is not in it. */
	write_list(t.units, t.kw, 1);
	touch(t.kw, 'B', 1);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, &made), 0);	/* stuck at A */
	CHECK_INT(made, 0);
	touch(t.kw, 'A', 0);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, NULL), 0);	/* stuck at B2 */
	strvec_init(&failed);
	settle_failed_classes(&t.rs, &failed);
	CHECK_INT(failed.nr, 0);
	CHECK(!runstate_marked(&t.rs, "failed"));
	settle_note_failed(&t.rs, check_owners("TestB,TestC"));
	settle_note_failed(&t.rs, check_owners("TestB"));
	CHECK(runstate_marked(&t.rs, "failed"));
	settle_failed_classes(&t.rs, &failed);
	CHECK_INT(failed.nr, 2);
	CHECK_STR(failed.nr ? failed.v[0] : NULL, "TestB");
	strvec_release(&failed);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, NULL), 1);	/* B2's class failed */
	/* Passed once: a stamp gone behind the cursor is not looked at again. */
	CHECK_INT(unlink(a), 0);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, NULL), 1);
	case_end(&t);
	free(a);
}

static void test_goals(void)
{
	struct tcase t;
	char *pending, *text;
	size_t len;
	int made = 9;

	/* Only TestC's callable is a goal, and it is packed. */
	case_begin(&t, "b", 1, 1);
	CHECK_INT(settle_done(&t.rs, "warmup-TestC", NULL, NULL), 1);
	case_end(&t);

	/* A pack writes its stamp before its event: not settled till it ends. */
	case_begin(&t, "g", 1, 0);
	CHECK_INT(settle_done(&t.rs, "warmup-TestC", NULL, NULL), 0);	/* TestC in the list */
	touch(t.kw, 'C', 3);
	runstate_pack_begin(&t.rs, "0000000000000000000000000000000000000000000000000000000000000003");
	CHECK(t.rs.pack_fd >= 0);
	CHECK_INT(settle_done(&t.rs, "warmup-TestC", NULL, NULL), 0);
	runstate_pack_end(&t.rs);
	CHECK_INT(settle_done(&t.rs, "warmup-TestC", NULL, NULL), 1);
	case_end(&t);

	/* A list torn in its head (its writer died) is made again. */
	case_begin(&t, "d", 1, 1);
	pending = path_join(t.rs.dir, "pending");
	check_write_text(NULL, pending, "kwarm-pend", 0644);
	CHECK_INT(settle_done(&t.rs, "warmup-TestC", NULL, NULL), 1);
	CHECK_INT(read_file_all(pending, &text, &len), 0);
	CHECK(len > 10 && starts_with(text, "kwarm-pending 3 "));
	free(text);
	free(pending);
	case_end(&t);

	/* No unit list: never settled, and nothing made to say otherwise. */
	case_begin(&t, "c", 0, 0);
	runstate_open(&t.rs, t.kw, "/no/such/list");
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, &made), 0);
	CHECK_INT(made, -1);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, NULL), 0);
	case_end(&t);
}

/* A list its writer could not finish (a full disk, a step killed in its
 * write) is made again, not trusted as whole: here it stops after A's line. */
static void test_cut_short(void)
{
	struct tcase t;
	char *a;
	pid_t pid;
	int status = -1;

	case_begin(&t, "e", 1, 1);
	a = stamp_path(t.kw, 'A', 0);
	pid = fork();
	if (!pid) {
		/* The head (37 bytes) and "TestA - <stamp>" fit, nothing more. */
		struct rlimit rl = { .rlim_cur = 37 + strlen("TestA - \n") + strlen(a) };

		rl.rlim_max = rl.rlim_cur;
		signal(SIGXFSZ, SIG_IGN);
		_exit(setrlimit(RLIMIT_FSIZE, &rl) ? 3 : settle_done(&t.rs, "warmup", NULL, NULL));
	}
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK_INT(status, 0);
	touch(t.kw, 'A', 0);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, NULL), 0);	/* B1, B2 to go */
	case_end(&t);
	free(a);
}

/* A line longer than a walk's first read is read whole, not taken for torn. */
static void test_long_line(void)
{
	struct buf stamp = BUF_INIT, list = BUF_INIT;
	struct tcase t;

	case_begin(&t, "f", 0, 0);
	buf_adds(&stamp, t.kw);
	for (int i = 0; i < 12; i++)
		buf_addf(&stamp, "/%0200d", i);	/* 2.4 KB of folders */
	buf_addf(&stamp, "/%064d", 0);
	buf_addf(&list, "class TestA\ncallable %064d TestA %s\n", 0, stamp.s);
	check_write_plan(t.units, list.s);
	runstate_open(&t.rs, t.kw, t.units);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, NULL), 0);
	check_write_text(NULL, stamp.s, "", 0644);
	CHECK_INT(settle_done(&t.rs, "warmup", NULL, NULL), 1);
	case_end(&t);
	buf_release(&list);
	buf_release(&stamp);
}

/* A callable whose stamp is there but whose output was removed is packed
 * again (the Makefile's forced rule): in the list, not settled till its
 * output is back, so the run is not taken for over at each step before. */
static void test_removed_output(void)
{
	struct tcase t;
	char *out;

	case_begin(&t, "h", 1, 1);
	out = output_path(t.kw, 'C');
	CHECK_INT(unlink(out), 0);
	CHECK_INT(settle_done(&t.rs, "warmup-TestC", NULL, NULL), 0);
	CHECK_INT(settle_done(&t.rs, "warmup-TestC", NULL, NULL), 0);
	touch(t.kw, 'C', 3);
	CHECK_INT(settle_done(&t.rs, "warmup-TestC", NULL, NULL), 1);
	case_end(&t);
	free(out);
}

/* Give path the time sec. */
static void set_time(const char *path, time_t sec)
{
	struct timespec t[2] = { { sec, 0 }, { sec, 0 } };

	CHECK_INT(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* A callable whose stamp is older than an entry of its units, or whose entry
 * is missing (compiled again: as after a prune), is packed again: in the
 * list till its stamp is a new one. TestB has two callables, B1 of unit 2
 * and B2 of unit 3: only B2's entry is newer, so B1 is settled. */
static void test_entries(void)
{
	char *cache = path_join(tmpdir, "i/cache"), *entry[4], *pending;
	struct buf list = BUF_INIT;
	struct tcase t;
	int made = 9;

	case_begin(&t, "i", 0, 0);
	for (int i = 1; i < 4; i++) {
		entry[i] = xstrfmt("%s/units/0/%064d.m", cache, i);
		check_write_text(NULL, entry[i], "", 0644);
		set_time(entry[i], 1000);
	}
	buf_addf(&list, "pack %064d\npack %064d\npack %064d\nclass TestA\nclass TestB\n", 1, 2, 3);
	for (int i = 0; i < 3; i++) {
		char *stamp = stamp_path(t.kw, i ? 'B' : 'A', i);

		buf_addf(&list, "callable %064d Test%c %s\n", i, i ? 'B' : 'A', stamp);
		touch(t.kw, i ? 'B' : 'A', i);
		set_time(stamp, 2000);
		free(stamp);
	}
	buf_addf(&list, "unit %064d TestA a\nunit %064d TestB b\nunit %064d TestB c\n", 1, 2, 3);
	check_write_plan(t.units, list.s);
	runstate_open(&t.rs, t.kw, t.units);
	CHECK_INT(settle_done(&t.rs, "warmup", cache, &made), 1);	/* all older */
	CHECK_INT(made, 1);

	/* A later run (its list made again): unit 1's entry pruned, 3's newer. */
	pending = path_join(t.rs.dir, "pending");
	CHECK_INT(unlink(pending), 0);
	CHECK_INT(unlink(entry[1]), 0);
	set_time(entry[3], 3000);
	CHECK_INT(settle_done(&t.rs, "warmup", cache, NULL), 0);	/* A and B2 to go */
	touch(t.kw, 'A', 0);
	CHECK_INT(settle_done(&t.rs, "warmup", cache, NULL), 0);	/* B2 to go */
	touch(t.kw, 'B', 2);
	CHECK_INT(settle_done(&t.rs, "warmup", cache, NULL), 1);
	case_end(&t);
	free(pending);
	for (int i = 1; i < 4; i++)
		free(entry[i]);
	buf_release(&list);
	free(cache);
}

int main(int argc, char **argv)
{
	tmpdir = check_tmpdir("settle");
	check_init(argc, argv);
	TEST(test_cursor(), "cursor");
	TEST(test_goals(), "goals");
	TEST(test_cut_short(), "cut short");
	TEST(test_long_line(), "long_line");
	TEST(test_removed_output(), "removed output");
	TEST(test_entries(), "entries");
	free(tmpdir);
	return check_done();
}
