#include "check.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Compare a freshly allocated result and free it. */
#define CHECK_OWNED(expr, want) \
	do { \
		char *got_ = (expr); \
		check_str_at(got_, (want), __FILE__, __LINE__, #expr); \
		free(got_); \
	} while (0)
/* Same, when the wanted string is allocated too. */
#define CHECK_OWNED2(expr, want) \
	do { \
		char *want_ = (want); \
		CHECK_OWNED(expr, want_); \
		free(want_); \
	} while (0)

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static void test_join(void)
{
	CHECK_OWNED(path_join("a/b", "c"), "a/b/c");
	CHECK_OWNED(path_join("a/b/", "c"), "a/b/c");
	CHECK_OWNED(path_join("/", "c"), "/c");
	CHECK_OWNED(path_join("a", "/abs/x"), "/abs/x");
	CHECK_OWNED(path_join("", "c"), "c");
	CHECK_OWNED(path_join("a", "c/d"), "a/c/d");
}

/* Joined and normalized, whether or not the join is normal already. */
static void test_join_normal(void)
{
	CHECK_OWNED(path_join_normal("/r", "a/b.c"), "/r/a/b.c");
	CHECK_OWNED(path_join_normal("/r/", "a/../b"), "/r/b");
	CHECK_OWNED(path_join_normal("/r", "."), "/r");
	CHECK_OWNED(path_join_normal("/r", "/x/./y/"), "/x/y");
	CHECK(path_is_normal("/r/a"));
	CHECK(!path_is_normal("/r/./a"));
	CHECK(!path_is_normal("r/"));
}

static void test_normalize(void)
{
	CHECK_OWNED(path_normalize("a/b/c"), "a/b/c");
	CHECK_OWNED(path_normalize("/a/b.c/.d/..e/e.."), "/a/b.c/.d/..e/e..");
	CHECK_OWNED(path_normalize("a/b/"), "a/b");
	CHECK_OWNED(path_normalize("/a/b/."), "/a/b");
	CHECK_OWNED(path_normalize("/a/../b"), "/b");
	CHECK_OWNED(path_normalize("a"), "a");
	CHECK_OWNED(path_normalize(".."), "..");
	CHECK_OWNED(path_normalize("./a/./b/."), "a/b");
	CHECK_OWNED(path_normalize("a//b///c/"), "a/b/c");
	CHECK_OWNED(path_normalize("a/b/../c"), "a/c");
	CHECK_OWNED(path_normalize("a/b/../../c"), "c");
	CHECK_OWNED(path_normalize("a/.."), ".");
	CHECK_OWNED(path_normalize("a/../.."), "..");
	CHECK_OWNED(path_normalize("../a"), "../a");
	CHECK_OWNED(path_normalize("../../a/.."), "../..");
	CHECK_OWNED(path_normalize("../x/../y"), "../y");
	CHECK_OWNED(path_normalize("a/../../b/../c"), "../c");
	CHECK_OWNED(path_normalize("."), ".");
	CHECK_OWNED(path_normalize("./"), ".");
	CHECK_OWNED(path_normalize(""), ".");
	CHECK_OWNED(path_normalize("/"), "/");
	CHECK_OWNED(path_normalize("//"), "/");
	CHECK_OWNED(path_normalize("//a//b"), "/a/b");
	CHECK_OWNED(path_normalize("/a/.."), "/");
	CHECK_OWNED(path_normalize("/.."), "/");
	CHECK_OWNED(path_normalize("/../a/../../b"), "/b");
	CHECK_OWNED(path_normalize("/a/b/../c/./d/"), "/a/c/d");
	/* Names that only look like dots are kept. */
	CHECK_OWNED(path_normalize("a/..b/.c/.../d"), "a/..b/.c/.../d");
	CHECK_OWNED(path_normalize("a/b../.."), "a");
}

static void test_absolute(const char *tmp)
{
	char *cwd = getcwd(NULL, 0);

	if (!cwd || chdir(tmp))
		die("cannot enter '%s'", tmp);
	CHECK_OWNED2(path_absolute("x/../y"), xstrfmt("%s/y", tmp));
	CHECK_OWNED(path_absolute("."), tmp);
	CHECK_OWNED(path_absolute("/q//r/./s"), "/q/r/s");
	if (chdir(cwd))
		die("cannot go back to '%s'", cwd);
	free(cwd);
}

/* ".." after a symlinked folder goes up from where the link points. */
static void test_join_physical(const char *tmp)
{
	char *link = xstrfmt("%s/phys/inc/sub", tmp), *other = xstrfmt("%s/phys/other/sub", tmp);

	if (mkdir_p(other) || mkdir_p(link) || rmdir(link) || symlink("../other/sub", link))
		die("cannot set up '%s'", link);
	CHECK_OWNED2(path_join_physical(tmp, "phys/inc/sub/../x.h"), xstrfmt("%s/phys/other/x.h", tmp));
	CHECK_OWNED2(path_join_physical(link, "../x.h"), xstrfmt("%s/phys/other/x.h", tmp));
	CHECK_OWNED2(path_join_physical(link, ".."), xstrfmt("%s/phys/other", tmp));
	/* No link before the "..", or a path that does not exist: lexical. */
	CHECK_OWNED2(path_join_physical(tmp, "phys/other/sub/../x.h"), xstrfmt("%s/phys/other/x.h", tmp));
	CHECK_OWNED2(path_join_physical(tmp, "phys/none/../x.h"), xstrfmt("%s/phys/x.h", tmp));
	CHECK_OWNED2(path_join_physical(tmp, "phys/./inc//a..b"), xstrfmt("%s/phys/inc/a..b", tmp));
	free(link);
	free(other);
}

static void test_visible(void)
{
	CHECK_OWNED(path_visible("/src/proj", "/src/proj/a/b.h"), "a/b.h");
	CHECK_OWNED(path_visible("/src/proj", "/src/proj"), ".");
	CHECK_OWNED(path_visible("/src/proj", "/src/project/b.h"), "/src/project/b.h");
	CHECK_OWNED(path_visible("/src/proj", "/src/pro"), "/src/pro");
	CHECK_OWNED(path_visible("/src/proj", "/usr/include/stdio.h"), "/usr/include/stdio.h");
	CHECK_OWNED(path_visible("/src/proj", "/src"), "/src");
	CHECK_OWNED(path_visible("/", "/usr/include"), "usr/include");
	CHECK_OWNED(path_visible("/", "/"), ".");
}

static void test_dirname_stem(void)
{
	CHECK_OWNED(path_dirname("a/b/c.h"), "a/b");
	CHECK_OWNED(path_dirname("c.h"), ".");
	CHECK_OWNED(path_dirname("/c.h"), "/");
	CHECK_OWNED(path_dirname("/x/y"), "/x");
	CHECK_OWNED(path_stem("a/b/kernel.cpp"), "kernel");
	CHECK_OWNED(path_stem("x.tar.gz"), "x.tar");
	CHECK_OWNED(path_stem("dir.d/noext"), "noext");
	CHECK_OWNED(path_stem("a/.hidden"), ".hidden");
	CHECK_OWNED(path_stem("plain"), "plain");
	CHECK_OWNED(path_stem("/abs/k.o"), "k");
}

static void test_mkdir_p(const char *tmp)
{
	char *deep = xstrfmt("%s/m/n/o/p", tmp), *slash = xstrfmt("%s/s//t/", tmp);
	char *file = xstrfmt("%s/file", tmp), *under = xstrfmt("%s/file/sub", tmp);
	char *mid = xstrfmt("%s/file/sub/deeper", tmp);

	CHECK_INT(mkdir_p(deep), 0);
	CHECK(is_dir(deep));
	CHECK_INT(mkdir_p(deep), 0);	/* existing: fine */
	CHECK_INT(mkdir_p(tmp), 0);
	CHECK_INT(mkdir_p(slash), 0);
	CHECK(is_dir(slash));

	check_write_file(file, "#!/bin/sh\n", 10, 0644);
	errno = 0;
	CHECK_INT(mkdir_p(file), -1);
	CHECK_INT(errno, ENOTDIR);
	errno = 0;
	CHECK_INT(mkdir_p(under), -1);
	CHECK_INT(errno, ENOTDIR);
	errno = 0;
	CHECK_INT(mkdir_p(mid), -1);
	CHECK_INT(errno, ENOTDIR);
	free(deep);
	free(slash);
	free(file);
	free(under);
	free(mid);
}

static void test_which(const char *tmp)
{
	char *bin1 = xstrfmt("%s/bin1", tmp), *bin2 = xstrfmt("%s/bin2", tmp);
	char *old = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;
	char *p, *cwd = getcwd(NULL, 0);

	if (mkdir_p(bin1) || mkdir_p(bin2))
		die("cannot create bins");
	p = xstrfmt("%s/tool", bin1);
	check_write_file(p, "#!/bin/sh\n", 10, 0644);		/* not executable: skipped */
	free(p);
	p = xstrfmt("%s/tool", bin2);
	check_write_file(p, "#!/bin/sh\n", 10, 0755);
	free(p);
	p = xstrfmt("%s/dirtool", bin1);	/* a folder is not a program */
	if (mkdir_p(p))
		die("cannot create '%s'", p);
	free(p);
	p = xstrfmt("%s/dirtool", bin2);
	check_write_file(p, "#!/bin/sh\n", 10, 0755);
	free(p);
	p = xstrfmt("%s/first", bin1);
	check_write_file(p, "#!/bin/sh\n", 10, 0755);
	free(p);
	p = xstrfmt("%s/first", bin2);
	check_write_file(p, "#!/bin/sh\n", 10, 0755);
	free(p);

	p = xstrfmt("%s:%s/../bin2", bin1, bin1);
	setenv("PATH", p, 1);
	free(p);
	CHECK_OWNED2(path_which("tool"), xstrfmt("%s/tool", bin2));
	CHECK_OWNED2(path_which("dirtool"), xstrfmt("%s/dirtool", bin2));
	CHECK_OWNED2(path_which("first"), xstrfmt("%s/first", bin1));
	CHECK(path_which("nosuchtool") == NULL);
	CHECK(path_which("") == NULL);

	/* An empty PATH entry is the current folder. */
	if (!cwd || chdir(bin2))
		die("cannot enter '%s'", bin2);
	setenv("PATH", "/nonexistent:", 1);
	CHECK_OWNED2(path_which("tool"), xstrfmt("%s/tool", bin2));

	/* A name with '/' is not searched: it is made absolute, if executable. */
	setenv("PATH", bin1, 1);
	CHECK_OWNED2(path_which("./tool"), xstrfmt("%s/tool", bin2));
	CHECK_OWNED2(path_which("../bin2/./tool"), xstrfmt("%s/tool", bin2));
	p = xstrfmt("%s/tool", bin1);
	CHECK(path_which(p) == NULL);	/* not executable */
	free(p);
	CHECK(path_which("./missing") == NULL);
	if (chdir(cwd))
		die("cannot go back");

	if (old)
		setenv("PATH", old, 1);
	else
		unsetenv("PATH");
	free(old);
	free(cwd);
	free(bin1);
	free(bin2);
}

int main(int argc, char **argv)
{
	char *tmp = check_tmpdir("path"), *abs = realpath(tmp, NULL);

	check_init(argc, argv);
	if (!abs)
		die("cannot resolve '%s'", tmp);

	TEST(test_join(), "join");
	TEST(test_normalize(), "normalize");
	TEST(test_join_normal(), "join_normal");
	TEST(test_absolute(abs), "absolute");
	TEST(test_join_physical(abs), "join_physical");
	TEST(test_visible(), "visible");
	TEST(test_dirname_stem(), "dirname_stem");
	TEST(test_mkdir_p(abs), "mkdir_p");
	TEST(test_which(abs), "which");
	free(abs);
	free(tmp);
	return check_done();
}
