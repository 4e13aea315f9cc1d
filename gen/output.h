/* output: everything `kwarm gen` writes, made from the plan in memory first,
 * then published: the Makefile, MAKEFILE.inputs (makefile.h) and the plan's
 * side file MAKEFILE.plan (planfile.h, planwrite.h). */
#ifndef KWARM_OUTPUT_H
#define KWARM_OUTPUT_H

#include "buf.h"
#include "makefile.h"
#include "plan.h"
#include "planfile.h"

struct gen_output {
	struct buf makefile, inputs, side;
	struct planfile_ref *packs;	/* where each callable's section lies in side */
};

void gen_output_init(struct gen_output *o);
void gen_output_release(struct gen_output *o);
/* Make every file's text from plan (opts as makefile_write takes them, but
 * for opts->packs, set here); 0, or -1 after reporting. */
int gen_output_make(struct gen_output *o, const struct plan *plan,
		    struct makefile_options *opts);
/* Publish the files beside the Makefile self, then the Makefile (that names
 * them and may be read at once), creating its folder; 0, or -1 after
 * reporting. */
int gen_output_publish(const struct gen_output *o, const char *self);

#endif
