/*
 * check: the tiny assertion kit of the unit test programs.
 *
 * Each program is a list of named cases, registered in main as git's unit
 * tests do (TEST(call, "title")):
 *
 *	int main(int argc, char **argv)
 *	{
 *		check_init(argc, argv);
 *		TEST(test_add(), "add");
 *		TEST(test_growth(), "growth");
 *		return check_done();
 *	}
 *
 * To add a case: write a static void function that makes everything it
 * needs, then one TEST line in main naming it. A name is one word, unique in
 * its program (by convention the function's name without "test_"); setup that
 * every case shares (a temp folder, a cache) stays in main before the first
 * TEST. A table of cases registers one case per row, named by the row
 * (test_cache.c's corruptions):
 *
 *	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
 *		TEST(test_row(&rows[i]), rows[i].name);
 *
 * A case must pass when it runs alone (unit.cases_alone checks that):
 *
 *	build/tests/test_buf                  every case
 *	build/tests/test_buf growth 'add*'    the cases whose names match (fnmatch)
 *	build/tests/test_buf --list           the names
 *
 * Each case ends with "ok N - name" or "not ok N - name" on stdout; a failed
 * check prints "file:line: [name] ..." on stderr.
 */
#ifndef KWARM_CHECK_H
#define KWARM_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct strvec;

extern int check_passed, check_failed;

/* Run call as the case name when the command line selects it. */
#define TEST(call, name) \
	do { \
		if (check_begin(name)) { \
			call; \
			check_end(); \
		} \
	} while (0)

/* Read the command line: the patterns of the cases to run, or --list. */
void check_init(int argc, char **argv);
/* 1 when the case name is to run now (it becomes the current case), else 0. */
int check_begin(const char *name);
/* Report the current case as ok or not ok. */
void check_end(void);

#define CHECK(cond) check_at(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_INT(got, want) check_int_at((long long)(got), (long long)(want), __FILE__, __LINE__, #got)
#define CHECK_STR(got, want) check_str_at((got), (want), __FILE__, __LINE__, #got)
/* got (may be NULL) holds part. */
#define CHECK_HAS(got, part) check_has_at((got), (part), __FILE__, __LINE__, #got)

int check_at(int ok, const char *file, int line, const char *what);
int check_int_at(long long got, long long want, const char *file, int line, const char *what);
int check_str_at(const char *got, const char *want, const char *file, int line, const char *what);
int check_has_at(const char *got, const char *part, const char *file, int line, const char *what);
/* A fresh empty folder for this test program (under KWARM_TEST_TMP). Caller frees. */
char *check_tmpdir(const char *name);
/* A fresh empty folder top/name for one case (dies when it exists or cannot
 * be made). Caller frees. */
char *check_fresh_dir(const char *top, const char *name);
/* Write len bytes of data to path, creating its folders, then chmod it to mode
 * (0644, 0755...) whatever the umask; dies on error. */
void check_write_file(const char *path, const void *data, size_t len, int mode);
/* check_write_file of the string text to dir/rel (rel alone when dir is NULL),
 * as most tests build small trees under one root. */
void check_write_text(const char *dir, const char *rel, const char *text, int mode);
/* check_write_text of each pair of a NULL-ended table of path and text
 * ({ "src/a.c", "int a;\n", "inc/a.h", "", NULL }) under dir, mode 0644. */
void check_write_tree(const char *dir, const char *const *files);
/* Write a plan side file (planfile.h) to path holding the unit list lines
 * ("class NAME", "callable CKEY CLASS STAMP", "unit KEY A,B LABEL": the id is
 * the label), and before them callable sections ("pack KEY,KEY": a
 * description and a record without words per unit key); dies on error. */
void check_write_plan(const char *path, const char *lines);
/* The classes "A,B" as a strvec; valid until the next call. */
const struct strvec *check_owners(const char *list);
/* The whole of path, NUL-terminated (caller frees); NULL when it cannot be read,
 * for tests that expect a file to be missing. */
char *check_read_file(const char *path);
/* check_read_file where a file that cannot be read ends the program. */
char *check_must_read(const char *path);
/* Send fd (1 or 2) to a fresh unlinked file until check_capture_end(fd);
 * both may be captured at once, each once at a time. */
void check_capture_begin(int fd);
/* Restore fd and return what was written to it meanwhile (caller frees). */
char *check_capture_end(int fd);
/* The user a forked child becomes to be refused what root may do, and that
 * child's exit status when it could not (the tests do not run as root). */
#define CHECK_NOBODY 65534
#define CHECK_NOT_NOBODY 77
/* In a forked child: drop to uid and gid CHECK_NOBODY, without supplementary
 * groups; 0, or -1 when this process may not. */
int check_become_nobody(void);
/* Everything fd gives until end of file, NUL-terminated (caller frees). */
char *check_read_to_end(int fd);
/* pipe(fds), then fork with stdio flushed; the child's pid (0 in the child).
 * Dies when either fails. */
int check_fork_piped(int fds[2]);
/* Wait for child pid; its exit status, or 99 when it did not exit. */
int check_child_status(int pid);
/* A pid that was just used and is now gone (a child that exited, waited for). */
long check_dead_pid(void);
/* The start of process pid in unix seconds, or -1 (what runid_alive
 * compares a tag with). */
double check_proc_start(int pid);
/* Print "N passed, N failed" and return the exit status (1 also when a pattern
 * of the command line matched no case). */
int check_done(void);

#endif
