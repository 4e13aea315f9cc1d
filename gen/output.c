#include "output.h"
#include "os.h"
#include "path.h"
#include "planwrite.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

void gen_output_init(struct gen_output *o)
{
	sink_init(&o->makefile);
	sink_init(&o->inputs);
	sink_init(&o->side);
	o->packs = NULL;
}

void gen_output_release(struct gen_output *o)
{
	sink_release(&o->makefile);
	sink_release(&o->inputs);
	sink_release(&o->side);
	free(o->packs);
	o->packs = NULL;
}

int gen_output_check(const struct plan *plan, const struct makefile_options *opts)
{
	return makefile_check(plan, opts);
}

struct makefile_job {
	const struct plan *plan;
	const struct makefile_options *opts;
	struct gen_output *o;
};

static void *write_makefile(void *data)
{
	struct makefile_job *job = data;

	makefile_write(job->plan, job->opts, &job->o->makefile, &job->o->inputs);
	return NULL;
}

/* The Makefile on a thread of its own while this one writes the side file:
 * both read the plan and write to their own files, and only the packs'
 * recipes say where the side file's sections lie, which come last (a third
 * of gen's output time at 100k units). The side file, which allocates more,
 * stays on the thread that freed the planning's memory for it to reuse. */
static void make_files(struct gen_output *o, const struct plan *plan,
		       struct makefile_options *opts)
{
	struct makefile_job job = { plan, opts, o };
	pthread_t makefile;
	int threaded;

	o->packs = xcalloc(plan->nr_callables + 1, sizeof(*o->packs));
	opts->packs = NULL;
	threaded = !pthread_create(&makefile, NULL, write_makefile, &job);
	planwrite(plan, &o->side, o->packs);
	if (threaded)
		pthread_join(makefile, NULL);	/* fails only for a thread not joinable */
	else
		write_makefile(&job);
	opts->packs = o->packs;
	makefile_write_classes(plan, opts, &o->makefile);
}

int gen_output_make(struct gen_output *o, const struct plan *plan,
		    struct makefile_options *opts)
{
	gen_output_release(o);
	if (gen_output_check(plan, opts))
		return -1;
	make_files(o, plan, opts);
	return 0;
}

/* Begin the temp of the file SELF<suffix> in s. */
static int begin_beside(struct sink *s, const char *self, const char *suffix)
{
	char *path = xstrfmt("%s%s", self, suffix);
	int ret = sink_begin(s, path);

	free(path);
	return ret;
}

/* Give s's temp the time start, and start writing it back: the three
 * files' data goes out together, so that the first fsync's journal commit
 * covers all three and the other two have little left to wait for. */
static int stamp(struct sink *s, const struct timespec *start)
{
	struct timespec times[2] = { { 0, UTIME_OMIT }, *start };

	if (futimens(s->pub.fd, times))
		return error_errno("cannot set the time of '%s'", s->pub.tmp);
	os_start_writeback(s->pub.fd);
	return 0;
}

/* Publish s, whose folder a later publish_commit syncs. */
static int commit_batched(struct sink *s)
{
	int ret = publish_commit_batched(&s->pub, NULL);

	sink_release(s);
	return ret;
}

int gen_output_write(struct gen_output *o, const struct plan *plan,
		     struct makefile_options *opts, const char *self,
		     const struct timespec *start)
{
	char *dir = path_dirname(self);
	int ret = 0;

	gen_output_release(o);
	if (mkdir_p(dir))
		ret = error_errno("cannot create '%s'", dir);
	free(dir);
	if (ret || begin_beside(&o->side, self, PLANFILE_SUFFIX) ||
	    begin_beside(&o->inputs, self, MAKEFILE_INPUTS_SUFFIX) ||
	    begin_beside(&o->makefile, self, ""))
		goto fail;
	make_files(o, plan, opts);
	/* Every file whole in its temp, with the time gen started, before any
	 * is published: an input changed after gen read it is not older. All
	 * three are in one folder: the Makefile's commit, last, syncs it once. */
	if (sink_finish(&o->side) || sink_finish(&o->inputs) || sink_finish(&o->makefile) ||
	    stamp(&o->side, start) || stamp(&o->inputs, start) || stamp(&o->makefile, start) ||
	    commit_batched(&o->side) || commit_batched(&o->inputs) || sink_commit(&o->makefile))
		goto fail;
	return 0;
fail:
	gen_output_release(o);
	return -1;
}
