#include "output.h"
#include "path.h"
#include "planwrite.h"
#include "publish.h"
#include "util.h"

#include <stdlib.h>

void gen_output_init(struct gen_output *o)
{
	buf_init(&o->makefile);
	buf_init(&o->inputs);
	buf_init(&o->side);
	o->packs = NULL;
}

void gen_output_release(struct gen_output *o)
{
	buf_release(&o->makefile);
	buf_release(&o->inputs);
	buf_release(&o->side);
	free(o->packs);
	o->packs = NULL;
}

int gen_output_make(struct gen_output *o, const struct plan *plan,
		    struct makefile_options *opts)
{
	gen_output_release(o);
	o->packs = xcalloc(plan->nr_callables + 1, sizeof(*o->packs));
	planwrite(plan, &o->side, o->packs);
	opts->packs = o->packs;
	return makefile_write(plan, opts, &o->makefile, &o->inputs);
}

/* Publish text as the file SELF<suffix>. */
static int write_beside(const char *self, const char *suffix, const struct buf *text)
{
	char *path = xstrfmt("%s%s", self, suffix);
	int ret = publish_bytes(path, text->s ? text->s : "", text->len);

	free(path);
	return ret;
}

int gen_output_publish(const struct gen_output *o, const char *self)
{
	char *dir = path_dirname(self);
	int ret = 0;

	if (mkdir_p(dir))
		ret = error_errno("cannot create '%s'", dir);
	free(dir);
	if (ret || write_beside(self, PLANFILE_SUFFIX, &o->side) ||
	    write_beside(self, MAKEFILE_INPUTS_SUFFIX, &o->inputs) ||
	    write_beside(self, "", &o->makefile))
		return -1;
	return 0;
}
