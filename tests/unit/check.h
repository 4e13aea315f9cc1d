/* check: the tiny assertion kit of the unit test programs. */
#ifndef KWARM_CHECK_H
#define KWARM_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

extern int check_passed, check_failed;

#define CHECK(cond) check_at(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_INT(got, want) check_int_at((long long)(got), (long long)(want), __FILE__, __LINE__, #got)
#define CHECK_STR(got, want) check_str_at((got), (want), __FILE__, __LINE__, #got)

int check_at(int ok, const char *file, int line, const char *what);
int check_int_at(long long got, long long want, const char *file, int line, const char *what);
int check_str_at(const char *got, const char *want, const char *file, int line, const char *what);
/* A fresh empty folder for this test program (under KWARM_TEST_TMP). Caller frees. */
char *check_tmpdir(const char *name);
/* Write len bytes of data to path, creating its folders, then chmod it to mode
 * (0644, 0755...) whatever the umask; dies on error. */
void check_write_file(const char *path, const void *data, size_t len, int mode);
/* check_write_file of the string text to dir/rel (rel alone when dir is NULL),
 * as most tests build small trees under one root. */
void check_write_text(const char *dir, const char *rel, const char *text, int mode);
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
/* Print "N passed, N failed" and return the exit status. */
int check_done(void);

#endif
