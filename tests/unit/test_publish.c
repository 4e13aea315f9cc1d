/* Unit tests of publish: atomic publication and the temp registry, with real
 * files, real child processes and real signals. */
#include "buf.h"
#include "check.h"
#include "publish.h"
#include "strvec.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmpdir;

/* The entries of dir, sorted and joined by spaces ("" when empty). Caller frees. */
static char *listing(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, *out;
	size_t nr = 0, alloc = 0, i, len = 1;

	if (!d)
		return xstrfmt("(cannot open: %s)", strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(de->d_name);
		len += strlen(de->d_name) + 1;
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), strvec_cmp);
	out = xcalloc(1, len);
	for (i = 0; i < nr; i++) {
		size_t used = strlen(out);

		memcpy(out + used, names[i], strlen(names[i]) + 1);
		if (i + 1 < nr)
			memcpy(out + strlen(out), " ", 2);
		free(names[i]);
	}
	free(names);
	return out;
}

static void check_listing(const char *dir, const char *want)
{
	char *got = listing(dir);

	CHECK_STR(got, want);
	free(got);
}

static char *file_text(const char *path)
{
	char *data;
	size_t len;

	if (read_file_all(path, &data, &len))
		return xstrfmt("(cannot read: %s)", strerror(errno));
	return data;
}

static int exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static void test_bytes(void)
{
	char *dir = check_fresh_dir(tmpdir, "bytes"), *final = xstrfmt("%s/out.bin", dir), *text;
	struct publish p;
	struct stat st;

	CHECK_INT(publish_bytes_gently(final, "hello\nworld\n", 12, NULL), 0);
	text = file_text(final);
	CHECK_STR(text, "hello\nworld\n");
	free(text);
	check_listing(dir, "out.bin");
	CHECK_INT(stat(final, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0644);	/* umask 022 in main */

	/* An empty file is a file too. */
	CHECK_INT(publish_bytes_gently(final, "", 0, NULL), 0);
	CHECK_INT(stat(final, &st), 0);
	CHECK_INT(st.st_size, 0);
	check_listing(dir, "out.bin");

	/* So does a commit that leaves the folder's fsync to a later one. */
	CHECK_INT(publish_begin(&p, final, NULL), 0);
	CHECK_INT(publish_write(&p, "batch\n", 6, NULL), 0);
	CHECK_INT(publish_commit_batched(&p, NULL), 0);
	text = file_text(final);
	CHECK_STR(text, "batch\n");
	free(text);
	check_listing(dir, "out.bin");

	/* A report's publish replaces it the same way, leaving no temp. */
	CHECK_INT(publish_unsynced_gently(final, "report\n", 7, NULL), 0);
	text = file_text(final);
	CHECK_STR(text, "report\n");
	free(text);
	check_listing(dir, "out.bin");
	free(final);
	free(dir);
}

static void test_begin_abort(void)
{
	char *dir = check_fresh_dir(tmpdir, "abort"), *final = xstrfmt("%s/out.bin", dir);
	char *prefix = xstrfmt("%s.tmp.%ld.", final, (long)getpid());
	struct publish p = PUBLISH_INIT, zero;
	struct stat st;

	CHECK_INT(publish_begin(&p, final, NULL), 0);
	CHECK(p.tmp && starts_with(p.tmp, prefix));
	CHECK_STR(p.final, final);
	CHECK(p.fd >= 0);
	CHECK(exists(p.tmp));
	CHECK(!exists(final));
	CHECK_INT(fstat(p.fd, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0644);
	CHECK_INT(publish_write(&p, "partial", 7, NULL), 0);
	publish_abort(&p);
	check_listing(dir, "");
	CHECK(p.tmp == NULL && p.final == NULL && p.fd == -1);
	publish_abort(&p);	/* idempotent */
	memset(&zero, 0, sizeof(zero));
	publish_abort(&zero);	/* a struct never begun: no fd 0 closed */
	CHECK(fcntl(0, F_GETFD) != -1 || errno != EBADF);

	/* Two publications of one name at once get distinct temps. */
	{
		struct publish a, b;

		CHECK_INT(publish_begin(&a, final, NULL), 0);
		CHECK_INT(publish_begin(&b, final, NULL), 0);
		CHECK(strcmp(a.tmp, b.tmp) != 0);
		CHECK_INT(publish_write(&a, "A", 1, NULL), 0);
		CHECK_INT(publish_write(&b, "B", 1, NULL), 0);
		CHECK_INT(publish_commit(&b, NULL), 0);
		publish_abort(&a);
		check_listing(dir, "out.bin");
		free(prefix);
		prefix = file_text(final);
		CHECK_STR(prefix, "B");
	}
	free(prefix);
	free(final);
	free(dir);
}

static void test_failing_commit(void)
{
	char *dir = check_fresh_dir(tmpdir, "fail"), *final = xstrfmt("%s/out.bin", dir), *msg;
	struct stat st;

	/* rename(2) of a file over a folder fails: nothing may remain. */
	CHECK_INT(mkdir(final, 0777), 0);
	check_capture_begin(2);
	CHECK_INT(publish_bytes_gently(final, "data", 4, NULL), -1);
	msg = check_capture_end(2);
	CHECK(starts_with(msg, "kwarm: error: cannot rename '"));
	CHECK_HAS(msg, final);
	free(msg);
	check_listing(dir, "out.bin");
	CHECK(stat(final, &st) == 0 && S_ISDIR(st.st_mode));
	check_listing(final, "");

	/* A folder that does not exist: begin reports and holds nothing. */
	free(final);
	final = xstrfmt("%s/missing/out.bin", dir);
	{
		struct publish p;

		check_capture_begin(2);
		CHECK_INT(publish_begin(&p, final, NULL), -1);
		msg = check_capture_end(2);
		CHECK(starts_with(msg, "kwarm: error: cannot create '"));
		CHECK_HAS(msg, "No such file");
		CHECK(p.tmp == NULL && p.final == NULL && p.fd == -1);
		publish_abort(&p);
		free(msg);
	}
	free(final);
	free(dir);
}

/* publish_bytes_gently: the same failures, their reason in the caller's buf
 * ("; "-separated after what it holds) and nothing on stderr. */
static void test_gently(void)
{
	char *dir = check_fresh_dir(tmpdir, "gently"), *final = xstrfmt("%s/out.bin", dir), *msg;
	struct buf why = BUF_INIT;

	CHECK_INT(mkdir(final, 0777), 0);
	buf_adds(&why, "before");
	check_capture_begin(2);
	CHECK_INT(publish_bytes_gently(final, "data", 4, &why), -1);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK(starts_with(why.s, "before; cannot rename '"));
	CHECK_HAS(why.s, "Is a directory");
	check_listing(final, "");
	free(msg);
	buf_reset(&why);
	free(final);
	final = xstrfmt("%s/missing/out.bin", dir);
	check_capture_begin(2);
	CHECK_INT(publish_bytes_gently(final, "data", 4, &why), -1);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK(starts_with(why.s, "cannot create '"));
	CHECK_HAS(why.s, "No such file");
	free(msg);
	buf_reset(&why);
	free(final);
	final = xstrfmt("%s/good.bin", dir);
	CHECK_INT(publish_bytes_gently(final, "data", 4, &why), 0);
	CHECK_INT(why.len, 0);
	buf_release(&why);
	free(final);
	free(dir);
}

static void test_replace(void)
{
	char *dir = check_fresh_dir(tmpdir, "replace"), *final = xstrfmt("%s/out.bin", dir), *text;
	struct stat before, after;
	char old[16];
	int fd;

	CHECK_INT(publish_bytes_gently(final, "old contents", 12, NULL), 0);
	CHECK_INT(stat(final, &before), 0);
	fd = open(final, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_INT(publish_bytes_gently(final, "new", 3, NULL), 0);
	CHECK_INT(stat(final, &after), 0);
	CHECK(before.st_ino != after.st_ino);
	text = file_text(final);
	CHECK_STR(text, "new");
	free(text);
	/* A reader that opened the old file still reads all of it. */
	memset(old, 0, sizeof(old));
	CHECK_INT(read(fd, old, sizeof(old) - 1), 12);
	CHECK_STR(old, "old contents");
	close(fd);
	check_listing(dir, "out.bin");
	free(final);
	free(dir);
}

static int wait_exit_code(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 1000 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void test_file_size_limit(void)
{
	char *dir = check_fresh_dir(tmpdir, "fsize"), *final = xstrfmt("%s/big.bin", dir);
	char *errpath = xstrfmt("%s/../fsize.err", dir), *msg;
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		struct rlimit rl = { 4096, 4096 };
		char *big = xcalloc(1, 1 << 20);
		int fd = open(errpath, O_CREAT | O_TRUNC | O_WRONLY, 0600);

		dup2(fd, 2);
		/* The default action would kill us: publish must avoid it. */
		signal(SIGXFSZ, SIG_DFL);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(3);
		_exit(publish_bytes_gently(final, big, 1 << 20, NULL) == -1 ? 0 : 1);
	}
	/* Exit 0: publish_bytes failed cleanly, the child was not killed. */
	CHECK_INT(wait_exit_code(pid), 0);
	msg = file_text(errpath);
	CHECK(starts_with(msg, "kwarm: error: cannot write '"));
	CHECK_HAS(msg, strerror(EFBIG));
	free(msg);
	check_listing(dir, "");
	free(errpath);
	free(final);
	free(dir);
}

/* Fork a child that runs fn(arg), reports a line to the parent through a pipe
 * and then blocks; returns its pid and the line in *line (caller frees). */
static pid_t start_blocked_child(void (*fn)(const char *, int), const char *arg, char **line)
{
	int fds[2];
	char got[4096];
	size_t used = 0;
	pid_t pid;

	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		close(fds[0]);
		fn(arg, fds[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	/* Wait for the child's whole line (EOF would mean it died early). */
	while (used < sizeof(got) - 1) {
		ssize_t n = read(fds[0], got + used, sizeof(got) - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
		if (got[used - 1] == '\n')
			break;
	}
	close(fds[0]);
	got[used] = '\0';
	if (used && got[used - 1] == '\n')
		got[used - 1] = '\0';
	*line = xstrdup(got);
	return pid;
}

static void child_begin_and_write(const char *final, int report)
{
	struct publish p;

	if (publish_begin(&p, final, NULL) || publish_write(&p, "half", 4, NULL))
		_exit(2);
	publish_install_signal_cleanup();
	if (write_all(report, p.tmp, strlen(p.tmp)) || write_all(report, "\n", 1))
		_exit(2);
	close(report);
}

static void test_signal_cleanup(void)
{
	char *dir = check_fresh_dir(tmpdir, "signal"), *final = xstrfmt("%s/out.bin", dir);
	char *line;
	pid_t pid;

	for (size_t i = 0; i < 2; i++) {
		int sig = i ? SIGINT : SIGTERM, ok = 1;

		pid = start_blocked_child(child_begin_and_write, final, &line);
		ok &= CHECK(starts_with(line, final));
		ok &= CHECK(exists(line));
		ok &= CHECK_INT(kill(pid, sig), 0);
		ok &= CHECK_INT(wait_exit_code(pid), 1000 + sig);
		ok &= CHECK(!exists(line));
		check_listing(dir, "");
		if (!ok)
			fprintf(stderr, "  (for signal %d)\n", sig);
		free(line);
	}
	free(final);
	free(dir);
}

/* Run in a fresh process (this program re-executed, so no earlier install
 * counts): SIGHUP came in ignored and stays so, SIGTERM gets the handler. */
static int keeps_ignored_child(void)
{
	struct sigaction hup, term;

	publish_install_signal_cleanup();
	publish_install_signal_cleanup();
	if (sigaction(SIGHUP, NULL, &hup) || sigaction(SIGTERM, NULL, &term))
		return 2;
	if (hup.sa_handler != SIG_IGN)
		return 3;
	if (term.sa_handler == SIG_DFL || term.sa_handler == SIG_IGN)
		return 4;
	return 0;
}

static void test_keeps_ignored_signal(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		/* An ignored signal survives exec: the nohup case. */
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		execl("/proc/self/exe", "test_publish", "keeps-ignored", (char *)NULL);
		_exit(127);
	}
	CHECK_INT(wait_exit_code(pid), 0);
}

static void test_exit_cleanup(void)
{
	char *dir = check_fresh_dir(tmpdir, "exit");
	char *file = xstrfmt("%s/f", dir), *kept = xstrfmt("%s/kept", dir);
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		pid_t grandchild;
		int slot;

		if (close(open(file, O_CREAT | O_WRONLY, 0644)) ||
		    close(open(kept, O_CREAT | O_WRONLY, 0644)))
			_exit(2);
		if (publish_register_temp(file, NULL) < 0)
			_exit(2);
		slot = publish_register_temp(kept, NULL);
		if (slot < 0)
			_exit(2);
		publish_unregister_temp(slot);
		/* A forked child inherits the registry and the atexit handler,
		 * but exiting must not remove its parent's temps. */
		grandchild = fork();
		if (grandchild < 0)
			_exit(2);
		if (!grandchild)
			exit(0);
		if (wait_exit_code(grandchild) != 0 || !exists(file))
			_exit(5);
		exit(0);	/* runs the atexit cleanup */
	}
	CHECK_INT(wait_exit_code(pid), 0);
	check_listing(dir, "kept");
	free(file);
	free(kept);
	free(dir);
}

/* The cleanup reads the registry up to the highest slot ever used: a temp in
 * a later slot than freed ones is still removed. */
static void test_exit_cleans_high_slot(void)
{
	char *dir = check_fresh_dir(tmpdir, "high");
	char *names[3];
	pid_t pid;

	for (int i = 0; i < 3; i++)
		names[i] = xstrfmt("%s/t%d", dir, i);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		int slots[3];

		for (int i = 0; i < 3; i++) {
			if (close(open(names[i], O_CREAT | O_WRONLY, 0644)))
				_exit(2);
			slots[i] = publish_register_temp(names[i], NULL);
			if (slots[i] < 0)
				_exit(2);
		}
		publish_unregister_temp(slots[0]);
		publish_unregister_temp(slots[1]);
		/* The registry holds its own copies; free ours, or LeakSanitizer's
		 * exit check fails the child. */
		for (int i = 0; i < 3; i++)
			free(names[i]);
		free(dir);
		exit(0);	/* runs the atexit cleanup */
	}
	CHECK_INT(wait_exit_code(pid), 0);
	check_listing(dir, "t0 t1");
	for (int i = 0; i < 3; i++)
		free(names[i]);
	free(dir);
}

static void test_registry_full(void)
{
	int slots[PUBLISH_MAX_TEMPS], i, extra;
	char *msg, *path;

	for (i = 0; i < PUBLISH_MAX_TEMPS; i++) {
		path = xstrfmt("%s/never-created-%d", tmpdir, i);
		slots[i] = publish_register_temp(path, NULL);
		CHECK(slots[i] >= 0);
		free(path);
	}
	check_capture_begin(2);
	extra = publish_register_temp("one-too-many", NULL);
	msg = check_capture_end(2);
	CHECK_INT(extra, -1);
	CHECK(starts_with(msg, "kwarm: error: cannot register temp 'one-too-many'"));
	free(msg);
	for (i = 0; i < PUBLISH_MAX_TEMPS; i++)
		publish_unregister_temp(slots[i]);
	/* Slots are reusable once freed. */
	extra = publish_register_temp("again", NULL);
	CHECK(extra >= 0);
	publish_unregister_temp(extra);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "keeps-ignored"))
		return keeps_ignored_child();
	check_init(argc, argv);
	umask(022);
	tmpdir = check_tmpdir("publish");
	TEST(test_bytes(), "bytes");
	TEST(test_begin_abort(), "begin_abort");
	TEST(test_failing_commit(), "failing_commit");
	TEST(test_gently(), "gently");
	TEST(test_replace(), "replace");
	TEST(test_file_size_limit(), "file_size_limit");
	TEST(test_signal_cleanup(), "signal_cleanup");
	TEST(test_keeps_ignored_signal(), "keeps_ignored_signal");
	TEST(test_exit_cleanup(), "exit_cleanup");
	TEST(test_exit_cleans_high_slot(), "exit_cleans_high_slot");
	TEST(test_registry_full(), "registry_full");
	free(tmpdir);
	return check_done();
}
