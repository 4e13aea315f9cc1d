/* Unit tests of annotate: the format choice (option, GITHUB_ACTIONS), the
 * "::error" lines made from compiler output and their fallback, the workflow
 * command escapes of data and properties, and file paths made relative to
 * GITHUB_WORKSPACE. */
#include "report/annotate.h"
#include "check.h"
#include "util.h"

#include <stdlib.h>

/* annotate_compiler_output into a fresh string; *n gets its count. */
static char *annotate(const char *output, const char *root, const char *source,
		      const char *fallback, int *n)
{
	struct buf b = BUF_INIT;

	*n = annotate_compiler_output(&b, output, root, source, fallback);
	return buf_detach(&b);
}

static void test_pick_format(void)
{
	unsetenv("GITHUB_ACTIONS");
	CHECK_INT(annotate_pick_format(NULL), 0);
	CHECK_INT(annotate_pick_format(""), 0);
	CHECK_INT(annotate_pick_format("text"), 0);
	CHECK_INT(annotate_pick_format("github"), 1);

	setenv("GITHUB_ACTIONS", "true", 1);
	CHECK_INT(annotate_pick_format(NULL), 1);
	CHECK_INT(annotate_pick_format(""), 1);
	/* An explicit option wins over the environment. */
	CHECK_INT(annotate_pick_format("text"), 0);

	/* Only the exact value "true" (what GitHub sets) counts. */
	setenv("GITHUB_ACTIONS", "1", 1);
	CHECK_INT(annotate_pick_format(NULL), 0);
	setenv("GITHUB_ACTIONS", "TRUE", 1);
	CHECK_INT(annotate_pick_format(NULL), 0);
	unsetenv("GITHUB_ACTIONS");
}

static void test_compiler_lines(void)
{
	char *s;
	int n;

	unsetenv("GITHUB_WORKSPACE");
	s = annotate("In file included from a.c:1:\n"
		     "kernels/add.cpp:12:7: error: use of undeclared identifier 'x'\n"
		     "kernels/add.cpp:12:7: note: here\n"
		     "inc/h.h:3: error: no column here\n"
		     "cc1: fatal error: kernels/gone.cpp: No such file or directory\n"
		     "kernels/b.cpp:4:2: fatal error: 'm.h' file not found\n"
		     "1 error generated.\n",
		     "/src", "kernels/add.cpp", "did not compile", &n);
	CHECK_INT(n, 3);
	CHECK_STR(s, "::error file=/src/kernels/add.cpp,line=12,col=7::use of undeclared identifier 'x'\n"
		     "::error file=/src/inc/h.h,line=3::no column here\n"
		     "::error file=/src/kernels/b.cpp,line=4,col=2::'m.h' file not found\n");
	free(s);

	/* Absolute paths stay absolute; ".." is folded; no trailing newline. */
	s = annotate("/abs/x/../y.c:1:2: error: boom", "/src", "s.c", "f", &n);
	CHECK_INT(n, 1);
	CHECK_STR(s, "::error file=/abs/y.c,line=1,col=2::boom\n");
	free(s);

	/* Nothing that looks like an error: the fallback on the source. */
	s = annotate("warning: something\nld: cannot find -lfoo\n", "/src", "k/a.cpp",
		     "incore 'a' (aiv) did not compile", &n);
	CHECK_INT(n, 1);
	CHECK_STR(s, "::error file=/src/k/a.cpp::incore 'a' (aiv) did not compile\n");
	free(s);
	s = annotate("", "/src", "a.cpp", "x", &n);
	CHECK_INT(n, 1);
	CHECK_STR(s, "::error file=/src/a.cpp::x\n");
	free(s);
	s = annotate(NULL, "/src", "a.cpp", "x", &n);
	CHECK_INT(n, 1);
	CHECK_STR(s, "::error file=/src/a.cpp::x\n");
	free(s);
	/* ":N: error:" with no file before it is no error line. */
	s = annotate(":3: error: orphan\n", "/src", "a.cpp", "fb", &n);
	CHECK_INT(n, 1);
	CHECK_STR(s, "::error file=/src/a.cpp::fb\n");
	free(s);
}

static void test_limit(void)
{
	struct buf in = BUF_INIT;
	char *s;
	int n, lines = 0;

	for (int i = 1; i <= ANNOTATE_MAX + 5; i++)
		buf_addf(&in, "a.c:%d:1: error: e%d\n", i, i);
	s = annotate(in.s, "/r", "a.c", "fb", &n);
	CHECK_INT(n, ANNOTATE_MAX);
	for (const char *p = s; *p; p++)
		lines += *p == '\n';
	CHECK_INT(lines, ANNOTATE_MAX);
	CHECK_HAS(s, ",line=10,col=1::e10\n");
	CHECK(strstr(s, "line=11") == NULL);
	free(s);
	buf_release(&in);
}

static void test_escapes(void)
{
	struct buf b = BUF_INIT;
	char *s;
	int n;

	unsetenv("GITHUB_WORKSPACE");
	/* Data: %, CR and LF escaped; ':' and ',' kept (they are fine in data). */
	annotate_error(&b, NULL, "100% done: a,b\r\nnext");
	CHECK_STR(b.s, "::error::100%25 done: a,b%0D%0Anext\n");
	buf_reset(&b);
	/* Properties: ':' and ',' escaped too, so a title cannot end the property list. */
	annotate_error(&b, "kwarm: a,b 5%", "m");
	CHECK_STR(b.s, "::error title=kwarm%3A a%2Cb 5%25::m\n");
	buf_reset(&b);
	annotate_error(&b, "t\nx\ry", "");
	CHECK_STR(b.s, "::error title=t%0Ax%0Dy::\n");
	buf_release(&b);

	/* A file name with ',' and ':' and '%' in it, and a message with '%'. */
	s = annotate("we,ird:na%me.c:5:3: error: 50% of 'a,b': bad\n", "/r", "x.c", "f", &n);
	CHECK_INT(n, 1);
	CHECK_STR(s, "::error file=/r/we%2Cird%3Ana%25me.c,line=5,col=3::50%25 of 'a,b': bad\n");
	free(s);
	/* A CRLF compiler output keeps no raw CR in the command. */
	s = annotate("a.c:1:1: error: crlf\r\n", "/r", "a.c", "f", &n);
	CHECK_STR(s, "::error file=/r/a.c,line=1,col=1::crlf%0D\n");
	free(s);
	/* The fallback is escaped as data, the source as a property. */
	s = annotate("", "/r", "a,b:c.c", "x%y\nz", &n);
	CHECK_STR(s, "::error file=/r/a%2Cb%3Ac.c::x%25y%0Az\n");
	free(s);
}

static void test_workspace(void)
{
	char *s;
	int n;

	setenv("GITHUB_WORKSPACE", "/home/runner/work/repo", 1);
	s = annotate("kernels/a.cpp:2:3: error: e\n/usr/include/x.h:9:1: error: f\n",
		     "/home/runner/work/repo/sub", "kernels/a.cpp", "fb", &n);
	CHECK_INT(n, 2);
	CHECK_STR(s, "::error file=sub/kernels/a.cpp,line=2,col=3::e\n"
		     "::error file=/usr/include/x.h,line=9,col=1::f\n");
	free(s);

	/* A trailing slash on the workspace does not matter. */
	setenv("GITHUB_WORKSPACE", "/home/runner/work/repo//", 1);
	s = annotate("", "/home/runner/work/repo", "k.cpp", "fb", &n);
	CHECK_STR(s, "::error file=k.cpp::fb\n");
	free(s);

	/* A sibling whose name starts with the workspace's is not inside it. */
	setenv("GITHUB_WORKSPACE", "/home/runner/work/repo", 1);
	s = annotate("", "/home/runner/work/repo2", "k.cpp", "fb", &n);
	CHECK_STR(s, "::error file=/home/runner/work/repo2/k.cpp::fb\n");
	free(s);

	/* Empty workspace: absolute paths. */
	setenv("GITHUB_WORKSPACE", "", 1);
	s = annotate("", "/r", "k.cpp", "fb", &n);
	CHECK_STR(s, "::error file=/r/k.cpp::fb\n");
	free(s);
	unsetenv("GITHUB_WORKSPACE");
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_pick_format(), "pick_format");
	TEST(test_compiler_lines(), "compiler_lines");
	TEST(test_limit(), "limit");
	TEST(test_escapes(), "escapes");
	TEST(test_workspace(), "workspace");
	return check_done();
}
