/* The kwarm commands: one file each, dispatched from kwarm.c's table. Each
 * takes argv without the program name (argv[0] is the command name) and returns
 * the exit status: 0 success, 1 failure, 2 bad usage or bad input. */
#ifndef KWARM_COMMANDS_H
#define KWARM_COMMANDS_H

int cmd_gen(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_stale(int argc, char **argv);

extern const char usage_gen[];
extern const char usage_compile[];
extern const char usage_pack[];
extern const char usage_exec[];
extern const char usage_cache[];
extern const char usage_summary[];
extern const char usage_explain[];
extern const char usage_stale[];

/* Print "kwarm: MSG" and the command's usage to stderr; returns 2. */
int usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct option;
/* Parse a command's words (argv[0] is its name) against opts (parseopt.h):
 * the operands are then argv[0..n-1]. n, or -1 with *status set to the exit
 * status once parse_failed has spoken. */
int parse_command(int argc, char **argv, const struct option *opts, unsigned flags,
		  const char *usage, int *status);
/* After a parse that did not succeed: for PARSE_HELP the usage on stdout and
 * 0, else "kwarm: BAD" and the usage on stderr and 2. Frees bad. */
int parse_failed(const char *usage, int parsed, char *bad);

#endif
