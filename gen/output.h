/* output: everything `kwarm gen` writes: the Makefile, MAKEFILE.inputs
 * (inputs.h) and the plan's side file MAKEFILE.plan (planfile.h,
 * planwrite.h), each written to its temp as it is made (sink.h), then all
 * published; or made in memory (the fuzzer). */
#ifndef KWARM_OUTPUT_H
#define KWARM_OUTPUT_H

#include "makefile.h"
#include "plan/plan.h"
#include "plan/planfile.h"
#include "sink.h"

#include <time.h>

struct gen_output {
	struct sink makefile, inputs, side;
	struct planfile_ref *packs;	/* where each callable's section lies in side */
};

void gen_output_init(struct gen_output *o);
/* Remove the temps not published and free o. */
void gen_output_release(struct gen_output *o);
/* Whether plan can be written (opts as makefile_write takes them); 0, or -1
 * after reporting. Nothing is written before this passed. */
int gen_output_check(const struct plan *plan, const struct makefile_options *opts);
/* Check, then make every file's text in memory (in o's sinks' buffers); opts->packs
 * is set here. 0, or -1 after reporting. */
int gen_output_make(struct gen_output *o, const struct plan *plan,
		    struct makefile_options *opts);
/* Write every file beside the Makefile self, creating its folder, then publish
 * them, the Makefile (that names the others and may be read at once) last,
 * each with the time start (os_file_stamp_now, before gen read any input).
 * opts->packs is set here. 0, or -1 after reporting (the temps removed). */
int gen_output_write(struct gen_output *o, const struct plan *plan,
		     struct makefile_options *opts, const char *self,
		     const struct timespec *start);

#endif
