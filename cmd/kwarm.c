/* kwarm: the program entry and the command table. */
#include "commands.h"
#include "parseopt.h"
#include "publish.h"
#include "version.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
	/* Runs a command of the user's own (exec): our signal dispositions,
	 * inherited by it, stay as our caller left them. */
	int runs_user_command;
};

static const struct command commands[] = {
	{ "gen", cmd_gen, usage_gen, "write the warm-up Makefile of a spec", 0 },
	{ "compile", cmd_compile, usage_compile, "compile one unit into the cache (a Makefile recipe)", 0 },
	{ "pack", cmd_pack, usage_pack, "pack one callable from the cache (a Makefile recipe)", 0 },
	{ "exec", cmd_exec, usage_exec, "run a command holding one jobserver token", 1 },
	{ "cache", cmd_cache, usage_cache, "cache stats, verify and prune", 0 },
	{ "summary", cmd_summary, usage_summary, "rewrite OUT/.kwarm/summary.json and count the classes", 0 },
	{ "explain", cmd_explain, usage_explain, "say why a unit would compile", 0 },
	{ "stale", cmd_stale, usage_stale, "name an input of a Makefile that changed (its remake check)", 0 },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_help(FILE *f)
{
	fprintf(f, "usage: kwarm [--version] [--help] COMMAND [ARGS...]\n\n"
		   "Compile batches of device kernels under make's jobserver, with a\n"
		   "content-addressed cache, and pack them into callables.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'kwarm help COMMAND' or 'kwarm COMMAND -h' shows a command's usage.\n"
		   "Exit status: 0 success, 1 failure, 2 bad usage or bad input.\n");
}

int usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	fputs("kwarm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage);
	return 2;
}

int parse_failed(const char *usage, int parsed, char *bad)
{
	int ret = 0;

	if (parsed == PARSE_HELP)
		fputs(usage, stdout);
	else
		ret = usage_error(usage, "%s", bad);
	free(bad);
	return ret;
}

int parse_command(int argc, char **argv, const struct option *opts, unsigned flags,
		  const char *usage, int *status)
{
	char *bad;
	int nr = parse_options(argc - 1, argv + 1, opts, flags, &bad);

	if (nr < 0) {
		*status = parse_failed(usage, nr, bad);
		return -1;
	}
	memmove(argv, argv + 1, ((size_t)nr + 1) * sizeof(*argv));
	return nr;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		print_help(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc < 3)) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kwarm %s\n", KWARM_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		cmd = find_command(argv[2]);
		if (!cmd) {
			fprintf(stderr, "kwarm: unknown command '%s'\n", argv[2]);
			return 2;
		}
		fputs(cmd->usage, stdout);
		return 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "kwarm: unknown command '%s'; see 'kwarm --help'\n", argv[1]);
		return 2;
	}
	/* Before any write (the cache probe's is the first): past ulimit -f a
	 * write fails, saying which file, instead of SIGXFSZ killing us. */
	if (!cmd->runs_user_command)
		publish_ignore_file_size_signal();
	return cmd->fn(argc - 1, argv + 1);
}
