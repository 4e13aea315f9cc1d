/* annotate: GitHub Actions workflow commands for failures, so that a failed
 * unit shows up as an annotation on its source line in the pull request. */
#ifndef KWARM_ANNOTATE_H
#define KWARM_ANNOTATE_H

#include "buf.h"
#include "parseopt.h"

/* At most this many annotations from one compiler output. */
#define ANNOTATE_MAX 10

/* The one decision on the output format of the steps: "text" (default) or
 * "github"; opt is the --format value (NULL when not given), else
 * GITHUB_ACTIONS=true picks github. 1 for github, else 0 (the option
 * takes no other name). */
int annotate_pick_format(const char *opt);
/* The --format option of every command: its value (const char *) is "text"
 * or "github", else a usage error names the two. */
int annotate_format_option(const struct option *opt, const char *arg, char **bad);
#define OPT_FORMAT(v) OPT_CALLBACK("--format", (v), annotate_format_option)
/* Append "::error file=F,line=L,col=C::MSG" lines for the compiler's
 * "FILE:LINE[:COL]: [fatal ]error: MSG" lines (paths relative to root are made
 * relative to $GITHUB_WORKSPACE when inside it), else one
 * "::error file=SOURCE::fallback" line. Returns the number of lines added. */
int annotate_compiler_output(struct buf *out, const char *output, const char *root,
			     const char *source, const char *fallback);
/* Append "::error title=T::MSG" (title may be NULL). */
void annotate_error(struct buf *out, const char *title, const char *msg);

#endif
