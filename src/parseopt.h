/* parseopt: the one option parser of every command, driven by a table (as
 * git's parse-options). An option is a word of the table: "--name VALUE" or
 * "-o VALUE" when it takes a value (the next word, whatever it starts with),
 * "--name" alone when it is a flag. There is no "--name=VALUE" and no bundling
 * of short options. Every table also knows -h and --help. "-" is an operand. */
#ifndef KWARM_PARSEOPT_H
#define KWARM_PARSEOPT_H

#include "strvec.h"

struct option;

/* Check and store arg for opt; 0, or -1 with *bad set (caller frees). */
typedef int (*parseopt_fn)(const struct option *opt, const char *arg, char **bad);

enum parseopt_type {
	PARSEOPT_END,
	PARSEOPT_FLAG,		/* int *: set to 1 */
	PARSEOPT_STRING,	/* const char **: the value (the last one given wins) */
	PARSEOPT_LIST,		/* struct strvec *: each value pushed */
	PARSEOPT_U64,		/* uint64_t *: a decimal number */
	PARSEOPT_CALLBACK,	/* fn(opt, value) */
};

struct option {
	enum parseopt_type type;
	const char *name;
	void *value;
	parseopt_fn fn;
};

#define OPT_FLAG(n, v) { PARSEOPT_FLAG, (n), (v), NULL }
#define OPT_STRING(n, v) { PARSEOPT_STRING, (n), (v), NULL }
#define OPT_LIST(n, v) { PARSEOPT_LIST, (n), (v), NULL }
#define OPT_U64(n, v) { PARSEOPT_U64, (n), (v), NULL }
#define OPT_CALLBACK(n, v, f) { PARSEOPT_CALLBACK, (n), (v), (f) }
#define OPT_END() { PARSEOPT_END, NULL, NULL, NULL }

/* Options end at the first word that is not one, or at "--", which is then
 * the first word left: for the commands whose operands are a command line
 * of its own (kwarm exec, kwarm compile). Without it operands may come
 * anywhere and "--" is an unknown option. */
#define PARSE_STOP 1

/* parse_options' answer to -h or --help. */
#define PARSE_HELP (-2)

/* Parse the words argv[0..argc-1] (NULL-terminated) against opts: the words
 * left (the operands, in order) are moved to the front of argv, which stays
 * NULL-terminated. Their number; PARSE_HELP; or -1 with *bad set to what is
 * wrong (caller frees). */
int parse_options(int argc, char **argv, const struct option *opts, unsigned flags,
		  char **bad);

#endif
