#include "check.h"
#include "path.h"
#include "run.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int sh(const char *script, const char *dir, struct buf *out, struct run_result *res)
{
	const char *argv[] = { "sh", "-c", script, NULL };

	return run_capture(argv, dir, out, res, NULL);
}

static void test_output_order(void)
{
	struct buf out = BUF_INIT;
	struct run_result res = { -1, -1 };

	buf_adds(&out, "before|");
	CHECK_INT(sh("echo out1; echo err1 >&2; printf out2; echo err2 >&2; echo", NULL, &out, &res), 0);
	/* Appended, stdout and stderr interleaved in the order they were written. */
	CHECK_STR(out.s, "before|out1\nerr1\nout2err2\n\n");
	CHECK_INT(res.exited, 1);
	CHECK_INT(res.status, 0);
	buf_release(&out);

	/* stdin is /dev/null: a reader sees end of file at once. */
	CHECK_INT(sh("cat; echo done", NULL, &out, &res), 0);
	CHECK_STR(out.s, "done\n");
	buf_release(&out);

	/* More output than a pipe holds: all of it, no deadlock. */
	CHECK_INT(sh("i=0; while [ $i -lt 3000 ]; do echo 0123456789012345678901234567890123456789; "
		     "i=$((i+1)); done; echo end >&2", NULL, &out, &res), 0);
	CHECK_INT(out.len, 3000 * 41 + 4);
	CHECK_STR(out.s + out.len - 4, "end\n");
	buf_release(&out);
}

static void test_cwd(const char *tmp)
{
	struct buf out = BUF_INIT;
	struct run_result res;
	char *want = xstrfmt("%s\n", tmp);

	CHECK_INT(sh("pwd -P", tmp, &out, &res), 0);
	CHECK_STR(out.s, want);
	buf_release(&out);
	free(want);

	/* A relative program path is relative to the new folder. */
	{
		char *script = path_join(tmp, "hello.sh");
		int fd = open(script, O_WRONLY | O_CREAT | O_TRUNC, 0755);
		const char *argv[] = { "./hello.sh", "arg with space", NULL };

		if (fd < 0 || write_all(fd, "#!/bin/sh\necho \"hi [$1]\"\n", 25) || close(fd))
			die("cannot write '%s'", script);
		CHECK_INT(run_capture(argv, tmp, &out, &res, NULL), 0);
		CHECK_STR(out.s, "hi [arg with space]\n");
		buf_release(&out);
		free(script);
	}
}

static void test_status(void)
{
	struct buf out = BUF_INIT, desc = BUF_INIT;
	struct run_result res;

	CHECK_INT(sh("echo partial; exit 3", NULL, &out, &res), 0);
	CHECK_INT(res.exited, 1);
	CHECK_INT(res.status, 3);
	CHECK_STR(out.s, "partial\n");
	run_describe(&res, &desc);
	CHECK_STR(desc.s, "exit status 3");
	buf_release(&out);
	buf_release(&desc);

	CHECK_INT(sh("echo dying; kill -SEGV $$; echo not reached", NULL, &out, &res), 0);
	CHECK_INT(res.exited, 0);
	CHECK_INT(res.status, SIGSEGV);
	CHECK_STR(out.s, "dying\n");
	buf_addf(&desc, "x: ");
	run_describe(&res, &desc);
	CHECK_STR(desc.s, "x: killed by signal 11 (Segmentation fault)");
	buf_release(&out);
	buf_release(&desc);

	/* An ignored SIGTERM stays ignored in the child, as make leaves it
	 * (nohup, a background job); an ignored SIGPIPE does not. */
	signal(SIGTERM, SIG_IGN);
	CHECK_INT(sh("kill -TERM $$; exit 0", NULL, &out, &res), 0);
	signal(SIGTERM, SIG_DFL);
	CHECK_INT(res.exited, 1);
	CHECK_INT(res.status, 0);
	signal(SIGPIPE, SIG_IGN);
	CHECK_INT(sh("kill -PIPE $$; exit 0", NULL, &out, &res), 0);
	signal(SIGPIPE, SIG_DFL);
	CHECK_INT(res.exited, 0);
	CHECK_INT(res.status, SIGPIPE);
	/* Nor the SIGXFSZ a publish ignores (a compiler past ulimit -f dies). */
	signal(SIGXFSZ, SIG_IGN);
	CHECK_INT(sh("kill -XFSZ $$; exit 0", NULL, &out, &res), 0);
	signal(SIGXFSZ, SIG_DFL);
	CHECK_INT(res.exited, 0);
	CHECK_INT(res.status, SIGXFSZ);
	buf_release(&out);

	res.exited = 1;
	res.status = 0;
	run_describe(&res, &desc);
	CHECK_STR(desc.s, "exit status 0");
	buf_release(&desc);
}

static void test_cannot_run(const char *tmp)
{
	const char *missing[] = { "kwarm-test-no-such-program", "x", NULL };
	const char *plain[] = { "true", NULL };
	struct buf out = BUF_INIT, why = BUF_INIT;
	struct run_result res = { 7, 7 };
	char *dir = path_join(tmp, "no-such-folder"), *msg;

	check_capture_begin(2);
	CHECK_INT(run_capture(missing, NULL, &out, &res, NULL), -1);
	msg = check_capture_end(2);
	CHECK(strstr(msg, "kwarm: error: cannot run 'kwarm-test-no-such-program'") != NULL);
	CHECK(strstr(msg, "No such file or directory") != NULL);
	CHECK_INT(out.len, 0);
	CHECK_INT(res.exited, 7);	/* untouched */
	free(msg);

	check_capture_begin(2);
	CHECK_INT(run_capture(plain, dir, &out, &res, NULL), -1);
	msg = check_capture_end(2);
	CHECK(strstr(msg, "cannot run 'true' in ") != NULL);
	CHECK(strstr(msg, dir) != NULL);
	free(msg);

	/* With a why, the reason goes there and nothing is printed. */
	check_capture_begin(2);
	CHECK_INT(run_capture(missing, NULL, &out, &res, &why), -1);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK_STR(buf_str(&why), "cannot run 'kwarm-test-no-such-program': No such file or "
		  "directory");
	free(msg);
	buf_release(&why);

	/* A program that is there and fails is not "cannot run". */
	check_capture_begin(2);
	CHECK_INT(sh("exit 127", NULL, &out, &res), 0);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK_INT(res.exited, 1);
	CHECK_INT(res.status, 127);
	free(msg);
	buf_release(&out);
	free(dir);
}

/* The child must see only 0, 1, 2 and what we deliberately let it inherit. */
static void test_no_fd_leak(void)
{
	struct buf out = BUF_INIT, want = BUF_INIT;
	struct run_result res;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int open_fds[1024], nr = 0;

	if (!d) {
		CHECK(!"cannot read /proc/self/fd");
		return;
	}
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name), flags;

		if (de->d_name[0] == '.' || fd == dirfd(d) || fd <= 2)
			continue;
		flags = fcntl(fd, F_GETFD);
		if (flags >= 0 && !(flags & FD_CLOEXEC) && nr < 1024)
			open_fds[nr++] = fd;
	}
	closedir(d);
	/* Another process lists the shell's descriptors (a glob would see its own). */
	CHECK_INT(sh("ls /proc/$$/fd", NULL, &out, &res), 0);
	{
		int seen[4096] = { 0 };
		char *p = out.s, *end;
		struct buf got = BUF_INIT;

		for (long fd; (fd = strtol(p, &end, 10)), end != p; p = end)
			if (fd >= 0 && fd < 4096)
				seen[fd] = 1;
		for (int fd = 0; fd < 4096; fd++) {
			int inherited = fd <= 2;

			for (int i = 0; i < nr; i++)
				inherited |= open_fds[i] == fd;
			if (inherited)
				buf_addf(&want, "%d ", fd);
			if (seen[fd])
				buf_addf(&got, "%d ", fd);
		}
		buf_release(&out);
		out = got;
	}
	CHECK_STR(out.s, want.s);
	buf_release(&out);
	buf_release(&want);
}

/* run_start_socket: the child reads and writes one socket (sh echoes what it
 * reads, then its stdin's and stdout's kinds); a program that is not there is
 * reported into the caller's buf, not on stderr. */
static void test_socket(void)
{
	const char *argv[] = { "/bin/sh", "-c",
		"read line; echo \"got $line\"; [ -S /dev/stdin ] && [ -S /dev/stdout ] && echo sockets",
		NULL };
	const char *missing[] = { "/nonexistent/kwarm-remote", NULL };
	struct buf err = BUF_INIT;
	char *text;
	pid_t pid;
	int fd = -1;

	CHECK_INT(run_start_socket(argv, &pid, &fd, NULL), 0);
	CHECK_INT(write(fd, "hello\n", 6), 6);
	shutdown(fd, SHUT_WR);
	text = check_read_to_end(fd);
	CHECK_STR(text, "got hello\nsockets\n");
	CHECK_INT(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	run_wait(pid);
	CHECK(kill(pid, 0) < 0);	/* reaped */
	free(text);
	check_capture_begin(2);
	CHECK_INT(run_start_socket(missing, &pid, &fd, &err), -1);
	text = check_capture_end(2);
	CHECK_STR(err.s, "cannot run '/nonexistent/kwarm-remote': No such file or directory");
	CHECK_STR(text, "");	/* the caller says it, or not */
	free(text);
	buf_release(&err);
}

int main(int argc, char **argv)
{
	char *tmp = check_tmpdir("run"), *abs = realpath(tmp, NULL);

	check_init(argc, argv);
	if (!abs)
		die("cannot resolve '%s'", tmp);
	TEST(test_output_order(), "output_order");
	TEST(test_cwd(abs), "cwd");
	TEST(test_status(), "status");
	TEST(test_cannot_run(abs), "cannot_run");
	TEST(test_no_fd_leak(), "no_fd_leak");
	TEST(test_socket(), "socket");
	free(abs);
	free(tmp);
	return check_done();
}
