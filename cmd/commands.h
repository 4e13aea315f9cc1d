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

extern const char usage_gen[];
extern const char usage_compile[];
extern const char usage_pack[];
extern const char usage_exec[];
extern const char usage_cache[];
extern const char usage_summary[];
extern const char usage_explain[];

/* Print "kwarm: MSG" and the command's usage to stderr; returns 2. */
int usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
