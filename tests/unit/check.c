#include "check.h"
#include "buf.h"
#include "os.h"
#include "path.h"
#include "plan/planfile.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int check_passed, check_failed;

/* The cases of this run: the command line's patterns (and which of them
 * matched a case), every name registered, the case running now. */
static struct strvec patterns, names;
static char *matched;
static int list_only;
static const char *current;
static int cases_run, failed_before;
static pid_t current_pid;	/* a child a case forks may exit inside it */

/* "file:line: [case] ", the start of every failure line. */
static void where(const char *file, int line)
{
	fflush(stdout);
	fprintf(stderr, "%s:%d: ", file, line);
	if (current)
		fprintf(stderr, "[%s] ", current);
}

int check_at(int ok, const char *file, int line, const char *what)
{
	if (ok) {
		check_passed++;
		return 1;
	}
	check_failed++;
	where(file, line);
	fprintf(stderr, "check failed: %s\n", what);
	return 0;
}

int check_int_at(long long got, long long want, const char *file, int line, const char *what)
{
	if (got == want)
		return check_at(1, file, line, what);
	where(file, line);
	fprintf(stderr, "%s is %lld, want %lld\n", what, got, want);
	return check_at(0, file, line, what);
}

int check_str_at(const char *got, const char *want, const char *file, int line, const char *what)
{
	if (got && want && !strcmp(got, want))
		return check_at(1, file, line, what);
	where(file, line);
	fprintf(stderr, "%s is \"%s\", want \"%s\"\n", what,
		got ? got : "(null)", want ? want : "(null)");
	return check_at(0, file, line, what);
}

int check_has_at(const char *got, const char *part, const char *file, int line, const char *what)
{
	if (got && strstr(got, part))
		return check_at(1, file, line, what);
	where(file, line);
	fprintf(stderr, "%s is \"%s\", want it to hold \"%s\"\n", what, got ? got : "(null)", part);
	return check_at(0, file, line, what);
}

/* A case that ends the program (die, exit) is named as the one that did. */
static void unfinished_case(void)
{
	if (current && getpid() == current_pid)
		fprintf(stderr, "not ok %d - %s (the program ended inside it)\n", cases_run, current);
}

void check_init(int argc, char **argv)
{
	strvec_init(&patterns);
	strvec_init(&names);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list"))
			list_only = 1;
		else if (argv[i][0] == '-')
			die("usage: %s [--list] [CASE-PATTERN...]", argv[0]);
		else
			strvec_push(&patterns, argv[i]);
	}
	matched = xcalloc(patterns.nr + 1, 1);
	atexit(unfinished_case);
}

int check_begin(const char *name)
{
	int selected = !patterns.nr;

	if (!matched)
		BUG("TEST before check_init");
	if (strvec_find(&names, name) >= 0)
		BUG("two cases named '%s'", name);
	strvec_push(&names, name);
	if (list_only) {
		puts(name);
		return 0;
	}
	for (size_t i = 0; i < patterns.nr; i++)
		if (!fnmatch(patterns.v[i], name, 0))
			selected = matched[i] = 1;
	if (!selected)
		return 0;
	current = name;
	current_pid = getpid();
	cases_run++;
	failed_before = check_failed;
	return 1;
}

void check_end(void)
{
	printf("%sok %d - %s\n", check_failed > failed_before ? "not " : "", cases_run, current);
	current = NULL;
}

char *check_tmpdir(const char *name)
{
	const char *base = getenv("KWARM_TEST_TMP");
	char *dir, *cmd;

	dir = xstrfmt("%s/%s", base ? base : "/tmp/kwarm-unit", name);
	cmd = xstrfmt("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		die("cannot clean '%s'", dir);
	free(cmd);
	if (mkdir_p(dir))
		die("cannot create '%s'", dir);
	return dir;
}

char *check_fresh_dir(const char *top, const char *name)
{
	char *dir = xstrfmt("%s/%s", top, name);

	if (mkdir(dir, 0777))
		die("cannot create '%s': %s", dir, strerror(errno));
	return dir;
}

void check_write_file(const char *path, const void *data, size_t len, int mode)
{
	char *dir = path_dirname(path);
	int fd;

	if (mkdir_p(dir))
		die("cannot create '%s': %s", dir, strerror(errno));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0 || write_all(fd, data, len) || close(fd) || chmod(path, (mode_t)mode))
		die("cannot write '%s': %s", path, strerror(errno));
	free(dir);
}

void check_write_text(const char *dir, const char *rel, const char *text, int mode)
{
	char *path = dir ? path_join(dir, rel) : xstrdup(rel);

	check_write_file(path, text, strlen(text), mode);
	free(path);
}

void check_write_tree(const char *dir, const char *const *files)
{
	for (; *files; files += 2)
		check_write_text(dir, files[0], files[1], 0644);
}

char *check_read_file(const char *path)
{
	char *data;
	size_t len;

	if (read_file_all(path, &data, &len))
		return NULL;
	return data;
}

char *check_must_read(const char *path)
{
	char *data = check_read_file(path);

	if (!data)
		die("cannot read '%s': %s", path, strerror(errno));
	return data;
}

/* Per captured fd: where it went before, and the file it goes to now. */
static int capture_saved[3] = { -1, -1, -1 };
static FILE *capture_file[3];

void check_capture_begin(int fd)
{
	if (fd < 1 || fd > 2 || capture_file[fd])
		die("cannot capture fd %d twice", fd);
	fflush(NULL);
	capture_file[fd] = tmpfile();
	capture_saved[fd] = dup(fd);
	if (!capture_file[fd] || capture_saved[fd] < 0 ||
	    dup2(fileno(capture_file[fd]), fd) < 0)
		die("cannot capture fd %d", fd);
}

char *check_capture_end(int fd)
{
	struct buf text = BUF_INIT;
	char chunk[4096];
	ssize_t n;
	int in;

	if (fd < 1 || fd > 2 || !capture_file[fd])
		die("fd %d is not captured", fd);
	fflush(NULL);
	if (dup2(capture_saved[fd], fd) < 0)
		die("cannot restore fd %d", fd);
	close(capture_saved[fd]);
	capture_saved[fd] = -1;
	in = fileno(capture_file[fd]);
	if (lseek(in, 0, SEEK_SET) < 0)
		die("cannot rewind the capture of fd %d", fd);
	while ((n = read(in, chunk, sizeof(chunk))) > 0)
		buf_add(&text, chunk, (size_t)n);
	if (n < 0)
		die("cannot read the capture of fd %d", fd);
	fclose(capture_file[fd]);
	capture_file[fd] = NULL;
	return buf_detach(&text);
}

int check_done(void)
{
	int unmatched = 0;

	for (size_t i = 0; i < patterns.nr; i++) {
		if (matched[i])
			continue;
		fprintf(stderr, "no case matches '%s'\n", patterns.v[i]);
		unmatched = 1;
	}
	free(matched);
	matched = NULL;
	strvec_release(&patterns);
	strvec_release(&names);
	if (list_only)
		return unmatched;
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed || unmatched ? 1 : 0;
}

int check_become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(CHECK_NOBODY) || setuid(CHECK_NOBODY))
		return -1;
	return getuid() == CHECK_NOBODY && geteuid() == CHECK_NOBODY ? 0 : -1;
}

char *check_read_to_end(int fd)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			buf_add(&b, chunk, (size_t)n);
	buf_adds(&b, "");
	return buf_detach(&b);
}

int check_fork_piped(int fds[2])
{
	pid_t pid;

	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	return (int)pid;
}

double check_proc_start(int pid)
{
	struct os_process p;

	return os_process_info(pid, &p) ? -1 : os_ticks_to_unix(p.start);
}

long check_dead_pid(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid)
		_exit(0);
	(void)check_child_status(pid);
	return (long)pid;
}

int check_child_status(int pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

/* A callable's section: a description, a record without words per unit. */
static void add_plan_pack(struct planfile_writer *w, const char *keys)
{
	struct planfile_ref ref;
	struct strvec k;

	strvec_init(&k);
	strvec_split_at(&k, keys, ',');
	planfile_begin_pack(w, "kwarm-pack 1\nwhat class X\n", &ref);
	for (size_t i = 0; i < k.nr; i++)
		planfile_add_record(w, k.v[i], NULL, 0);
	planfile_end_pack(w, &ref);
	strvec_release(&k);
}

/* One unit list line into w. */
static void add_plan_line(struct planfile_writer *w, const char *line)
{
	struct strvec owners;
	char *f[3] = { NULL, NULL, NULL };
	const char *p;

	if (starts_with(line, "class ")) {
		planfile_add_class(w, line + 6);
		return;
	}
	if (starts_with(line, "pack ")) {
		add_plan_pack(w, line + 5);
		return;
	}
	p = strchr(line, ' ');
	for (int i = 0; i < 3 && p; i++) {
		const char *end = i < 2 ? strchr(p + 1, ' ') : NULL;

		f[i] = end ? xstrndup(p + 1, (size_t)(end - p - 1)) : xstrdup(p + 1);
		p = end;
	}
	if (!f[2])
		die("check_write_plan: bad line '%s'", line);
	if (starts_with(line, "callable ")) {
		static const struct planfile_ref nowhere;

		planfile_add_callable(w, f[0], f[1], f[2], &nowhere);
	} else {
		strvec_init(&owners);
		strvec_split_at(&owners, f[1], ',');
		planfile_add_unit(w, f[0], &owners, f[2], f[2], NULL, 0);
		strvec_release(&owners);
	}
	for (int i = 0; i < 3; i++)
		free(f[i]);
}

void check_write_plan(const char *path, const char *lines)
{
	struct planfile_writer w;
	struct sink out;
	char *copy = xstrdup(lines), *line, *nl;

	sink_init(&out);
	planfile_writer_init(&w, &out);
	for (line = copy; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		add_plan_line(&w, line);
	}
	planfile_finish(&w);
	check_write_file(path, out.b.s, out.b.len, 0644);
	planfile_writer_release(&w);
	sink_release(&out);
	free(copy);
}

const struct strvec *check_owners(const char *list)
{
	static struct strvec owners;

	strvec_release(&owners);
	strvec_init(&owners);
	strvec_split_at(&owners, list, ',');
	return &owners;
}
