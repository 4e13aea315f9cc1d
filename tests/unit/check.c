#include "check.h"
#include "buf.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int check_passed, check_failed;

int check_at(int ok, const char *file, int line, const char *what)
{
	if (ok) {
		check_passed++;
		return 1;
	}
	check_failed++;
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	return 0;
}

int check_int_at(long long got, long long want, const char *file, int line, const char *what)
{
	if (got == want)
		return check_at(1, file, line, what);
	fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", file, line, what, got, want);
	return check_at(0, file, line, what);
}

int check_str_at(const char *got, const char *want, const char *file, int line, const char *what)
{
	if (got && want && !strcmp(got, want))
		return check_at(1, file, line, what);
	fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", file, line, what,
		got ? got : "(null)", want ? want : "(null)");
	return check_at(0, file, line, what);
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
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
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

int check_child_status(int pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}
