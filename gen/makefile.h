/* makefile: the plan written as a GNU Makefile (see CONTRACT.md), and the
 * folders its header names read back (kwarm explain). */
#ifndef KWARM_MAKEFILE_H
#define KWARM_MAKEFILE_H

#include "buf.h"
#include "plan/plan.h"
#include "plan/planfile.h"
#include "sink.h"

struct makefile_options {
	const char *kwarm;	/* absolute path of the kwarm program */
	const char *self;	/* absolute path the Makefile is written to */
	const char *spec_abs;	/* absolute path of the spec */
	const char *plan_file;	/* absolute path of the plan's side file (planfile.h) */
	const struct planfile_ref *packs;	/* where each callable's section lies
						 * in it, plan order */
	const char *format;	/* --format of gen ("github", "text"), NULL when not given */
	const char *remote;	/* the remote cache's URL in effect, NULL when none */
	const char *remote_arg;	/* what the remake rule passes as --remote (from the flag
				 * or $KWARM_REMOTE, maybe ""), NULL when the spec decides */
};

/* 0, or -1 after reporting a path that cannot be written safely into a
 * Makefile (naming it and its unit): call before makefile_write. */
int makefile_check(const struct plan *plan, const struct makefile_options *opts);
/* Write the Makefile into out, all but its end, and MAKEFILE.inputs (its
 * inputs, for kwarm stale) into inputs (sink.h). opts->packs is not used: the
 * side file may still be being written. */
void makefile_write(const struct plan *plan, const struct makefile_options *opts,
		    struct sink *out, struct sink *inputs);
/* Then the Makefile's end: each class, its units and its packs' rules, which
 * say where opts->packs's sections lie. make reads a variable or rule of
 * them only where it is used, so they may come last. */
void makefile_write_classes(const struct plan *plan, const struct makefile_options *opts,
			    struct sink *out);

/* The spec, cache and out folders that the header of text, a Makefile
 * makefile_write wrote, names (caller frees each); 0, or -1 when text is not
 * such a Makefile. */
int makefile_read_header(const char *text, char **spec, char **cache, char **out);

/* Appended to the Makefile's path: its watch list (inputs.h). */
#define MAKEFILE_INPUTS_SUFFIX ".inputs"

/* A path as a make target, or as a prerequisite. */
void makefile_add_target(struct buf *b, const char *path);
void makefile_add_prereq(struct buf *b, const char *path);
/* Text for a comment line: printable, and never ending in a backslash. */
void makefile_add_comment_text(struct buf *b, const char *s);

#endif
