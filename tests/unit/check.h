/* check: the tiny assertion kit of the unit test programs. */
#ifndef KWARM_CHECK_H
#define KWARM_CHECK_H

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
/* Send fd (1 or 2) to a fresh unlinked file until check_capture_end(fd);
 * both may be captured at once, each once at a time. */
void check_capture_begin(int fd);
/* Restore fd and return what was written to it meanwhile (caller frees). */
char *check_capture_end(int fd);
/* Print "N passed, N failed" and return the exit status. */
int check_done(void);

#endif
