#include "run.h"
#include "os.h"
#include "publish.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Start argv in dir (NULL: here) with fd as its descriptors to1 and to2,
 * stdin /dev/null unless fd is; closes fd. 0, or an errno value.
 * posix_spawn (vfork and exec) rather than fork: no page tables copied and
 * no copy-on-write faults, once per compile. */
static int spawn(const char *const *argv, const char *dir, int fd, int to1, int to2, pid_t *pid)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t defaults;
	int err;

	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, fd, to1);
	posix_spawn_file_actions_adddup2(&actions, fd, to2);
	if (dir)
		os_spawn_chdir(&actions, dir);
	/* The child gets the dispositions make would give it: exec resets our
	 * handlers, and an ignored SIGINT, SIGTERM or SIGHUP stays ignored, as
	 * make's caller (nohup, a background job) meant for the whole job; but
	 * not the SIGXFSZ a publish ignores for itself (publish.h). */
	posix_spawnattr_init(&attr);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGXFSZ);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	err = posix_spawnp(pid, argv[0], &actions, &attr, (char *const *)argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&actions);
	close(fd);
	return err;
}

int run_capture(const char *const *argv, const char *dir, struct buf *output,
		struct run_result *res, struct buf *why)
{
	return run_capture_meanwhile(argv, dir, output, res, why, NULL, NULL);
}

int run_capture_meanwhile(const char *const *argv, const char *dir, struct buf *output,
			  struct run_result *res, struct buf *why,
			  void (*meanwhile)(void *), void *data)
{
	int pipefd[2], status, err;
	pid_t pid;
	ssize_t n;

	if (os_pipe_cloexec(pipefd, 0))
		return error_errno_to(why, "cannot create a pipe");
	err = spawn(argv, dir, pipefd[1], 1, 2, &pid);
	if (err) {
		close(pipefd[0]);
		errno = err;
		return error_errno_to(why, "cannot run '%s'%s%s", argv[0], dir ? " in " : "",
				      dir ? dir : "");
	}
	publish_watch_child(pid);
	/* Its output waits in the pipe meanwhile. */
	if (meanwhile)
		meanwhile(data);
	for (;;) {
		char chunk[8192];

		n = read(pipefd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_add(output, chunk, (size_t)n);
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			publish_watch_child(-1);
			return error_errno_to(why, "cannot wait for '%s'", argv[0]);
		}
	publish_watch_child(-1);
	res->exited = !WIFSIGNALED(status);
	res->status = res->exited ? WEXITSTATUS(status) : WTERMSIG(status);
	return 0;
}

int run_start_socket(const char *const *argv, pid_t *pid, int *fd, struct buf *why)
{
	int sv[2], err;

	if (os_socketpair_cloexec(sv))
		return error_errno_to(why, "cannot create a socket pair");
	/* argv[0] is a path: spawnp searches no PATH for it. */
	err = spawn(argv, NULL, sv[1], 0, 1, pid);
	if (err) {
		close(sv[0]);
		errno = err;
		return error_errno_to(why, "cannot run '%s'", argv[0]);
	}
	*fd = sv[0];
	return 0;
}

void run_wait(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

void run_describe(const struct run_result *res, struct buf *b)
{
	if (res->exited)
		buf_addf(b, "exit status %d", res->status);
	else
		buf_addf(b, "killed by signal %d (%s)", res->status, strsignal(res->status));
}
