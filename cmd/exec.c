/* kwarm exec: run one command while holding one jobserver token. */
#include "commands.h"
#include "buf.h"
#include "jobserver.h"
#include "parseopt.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char usage_exec[] =
	"usage: kwarm exec [--] CMD [ARG...]\n"
	"\n"
	"Run CMD while holding one token of the GNU make jobserver named in\n"
	"MAKEFLAGS, for harnesses (started by a '+' recipe) that start compiles\n"
	"outside make's recipes. The token goes back however CMD ends. With no\n"
	"usable jobserver CMD just runs. Under make -n, -t or -q, CMD is printed\n"
	"and not run. Put '--' before CMD when its arguments start with '-'.\n"
	"\n"
	"Exit status: CMD's; 128+N when signal N killed it; 127 when CMD is not\n"
	"found, 126 when it cannot run.\n";

/* Print argv as a shell would read it back, for dry runs. */
static void print_command(char **argv)
{
	struct buf out = BUF_INIT;

	for (char **a = argv; *a; a++) {
		if (a != argv)
			buf_addch(&out, ' ');
		add_shell_word(&out, *a, 0);
	}
	buf_addch(&out, '\n');
	fputs(buf_str(&out), stdout);
	fflush(stdout);
	buf_release(&out);
}

/* Run argv to its end, forwarding each signal we catch; its exit status. */
static int run(struct jobserver *js, char **argv)
{
	unsigned forwarded = 0;
	pid_t pid, got;
	int status, err;

	/* Our fds are close-on-exec; posix_spawn resets our handlers to default in the child. */
	err = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (err) {
		errno = err;
		error_errno("cannot run '%s'", argv[0]);
		return err == ENOENT ? 127 : 126;
	}
	for (;;) {
		unsigned count = jobserver_signal_count(js);

		if (count != forwarded) {
			kill(pid, jobserver_caught_signal(js));
			forwarded = count;
		}
		got = waitpid(pid, &status, WNOHANG);
		if (got == 0 && jobserver_wait_event(js) < 0)
			got = waitpid(pid, &status, 0);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR) {
			error_errno("cannot wait for '%s'", argv[0]);
			return 1;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int cmd_exec(int argc, char **argv)
{
	const char *makeflags = getenv("MAKEFLAGS");
	struct jobserver js;
	struct option opts[] = { OPT_END() };
	int status = 1, sig;

	argc = parse_command(argc, argv, opts, PARSE_STOP, usage_exec, &status);
	if (argc < 0)
		return status;
	if (argc && !strcmp(argv[0], "--")) {
		argv++;
		argc--;
	}
	if (!argc)
		return usage_error(usage_exec, "no command given");

	if (jobserver_dry_run(makeflags)) {
		print_command(argv);
		return 0;
	}

	jobserver_init(&js);
	/*
	 * Connect before opening any fd of our own: when make closed the fds it
	 * names, the self-pipe would take their numbers and pass for the pool.
	 */
	jobserver_connect(&js, makeflags);
	jobserver_catch_signals(&js);
	if (jobserver_acquire(&js) >= 0 && !jobserver_caught_signal(&js))
		status = run(&js, argv);
	sig = jobserver_caught_signal(&js);
	jobserver_disconnect(&js);
	if (sig) {
		jobserver_reraise(sig);
		return 128 + sig;
	}
	return status;
}
