#include "run.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int run_capture(const char *const *argv, const char *dir, struct buf *output,
		struct run_result *res)
{
	int pipefd[2], errpipe[2], child_errno = 0, status;
	pid_t pid;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC) || pipe2(errpipe, O_CLOEXEC))
		return error("cannot create a pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		error("cannot fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		close(errpipe[0]);
		close(errpipe[1]);
		return -1;
	}
	if (!pid) {
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* The child gets the default dispositions make would give it. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		if (dir && chdir(dir))
			goto fail;
		execvp(argv[0], (char *const *)argv);
fail:
		/* Tell the parent why, through the close-on-exec pipe. */
		child_errno = errno;
		if (write(errpipe[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	close(errpipe[1]);
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
	while ((n = read(errpipe[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	close(errpipe[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return error("cannot wait for '%s': %s", argv[0], strerror(errno));
	if (n == (ssize_t)sizeof(child_errno))
		return error("cannot run '%s'%s%s: %s", argv[0], dir ? " in " : "", dir ? dir : "",
			     strerror(child_errno));
	if (WIFSIGNALED(status)) {
		res->exited = 0;
		res->status = WTERMSIG(status);
	} else {
		res->exited = 1;
		res->status = WEXITSTATUS(status);
	}
	return 0;
}

void run_describe(const struct run_result *res, struct buf *b)
{
	if (res->exited)
		buf_addf(b, "exit status %d", res->status);
	else
		buf_addf(b, "killed by signal %d (%s)", res->status, strsignal(res->status));
}
