/* kwarm gen: spec -> plan -> the Makefile and the files beside it (gen/output.h). */
#include "commands.h"
#include "report/annotate.h"
#include "cache/cache.h"
#include "cache/cachedir.h"
#include "makefile.h"
#include "os.h"
#include "output.h"
#include "parseopt.h"
#include "path.h"
#include "plan/plan.h"
#include "publish.h"
#include "cache/remote.h"
#include "spec/spec.h"
#include "cache/store.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char usage_gen[] =
	"usage: kwarm gen [-o FILE] [--cache DIR] [--out DIR] [--launcher CMD] [--format FMT]\n"
	"                 [--remote URL] SPEC\n"
	"\n"
	"Write the warm-up Makefile of SPEC (default FILE: warmup.mk).\n"
	"  -o FILE        where to write the Makefile\n"
	"  --cache DIR    the cache (default: $KWARM_CACHE, else the spec's 'cache',\n"
	"                 else $XDG_CACHE_HOME/kwarm or ~/.cache/kwarm)\n"
	"  --out DIR      where callables go (default: the spec's 'out', else\n"
	"                 ROOT/build/callables)\n"
	"  --launcher CMD prefix every compile with CMD (words split at spaces), e.g.\n"
	"                 distcc, icecc or ccache; not part of any cache key\n"
	"  --format FMT   how the warm-up reports failures: text, or github (GitHub\n"
	"                 Actions annotations); default: github when GITHUB_ACTIONS\n"
	"                 is true where make runs, else text\n"
	"  --remote URL   a remote cache shared over HTTP (default: $KWARM_REMOTE,\n"
	"                 else the spec's 'remote'; an empty URL turns it off)\n"
	"Exit status: 0 written, 1 failure, 2 bad usage or bad input (nothing written).\n";

/* The absolute path of this program, for the Makefile's recipes. */
static char *self_path(void)
{
	char *p = os_self_path();

	if (!p)
		die_errno("cannot find the kwarm program");
	return p;
}

/* Fetch every unit missing from the cache that the remote has, in one
 * process over one kept-alive connection (not one process per unit while
 * make runs); the number fetched. Their entries are checked as the compile
 * step checks them; the plan is then made again, to learn what they read. */
static int prefetch(const struct plan *plan, const struct cache *cache, const char *url)
{
	struct remote r;
	char *private_dir, *marks = NULL;
	int fetched = 0;

	if (!url || (getenv("KWARM_REMOTE_PREFETCH") && !strcmp(getenv("KWARM_REMOTE_PREFETCH"), "0")))
		return 0;
	/* Run by a Makefile's remake, gen shares the make run's markers: a dead
	 * server found here is not asked again by the run's steps. */
	if (getenv("MAKELEVEL")) {
		private_dir = store_private_dir(plan->out_dir);
		marks = remote_marker_dir(private_dir);
		free(private_dir);
	}
	remote_init(&r, url, marks);
	free(marks);
	for (size_t i = 0; i < plan->nr_units && !r.off; i++)
		if (!cache_unit_check(cache, plan->units[i]->key, 0))
			fetched += remote_fetch(&r, cache, plan->units[i]->key, NULL) == 1;
	remote_release(&r);
	return fetched;
}

/* gen's warning that the cache is not used; data: the cache's and the
 * private store's folders. */
static void warn_private(void *data, const char *why)
{
	const char *const *dirs = data;

	warning("cache '%s' cannot be used (%s); compiling without it, results go to '%s' "
		"(nothing is shared)", dirs[0], why, dirs[1]);
}

/* Plan the spec and check that gen's files can be written from it. */
static int plan_once(struct spec *spec, const char *cache_dir, const char *out_dir,
		     const struct strvec *launcher, struct makefile_options *mo,
		     struct plan *plan)
{
	if (!plan_build(plan, spec, cache_dir, out_dir, launcher) &&
	    !gen_output_check(plan, mo))
		return 0;
	plan_release(plan);
	return -1;
}

/* A store folder this gen made, when the spec fails: what planning wrote in
 * it (the compilers' identity memos under tools/, made again on need) goes,
 * then every folder it made that is empty. */
static void remove_made(const char *made, const char *tools)
{
	DIR *d = opendir(tools);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			(void)unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir_empty(made);
}

/*
 * Plan the spec and check that gen's files can be written from it, over the
 * store results go to (store.h): the cache *cache_dir, or the private store
 * (*cache_dir is replaced, one warning). The keys depend on the store's
 * entries, so it is chosen first. With a remote, fetch what the cache lacks
 * and plan again, to learn what the fetched entries read. 0 with plan built,
 * or the exit status (plan released; the folders the choice made removed:
 * nothing is written for a spec that fails).
 */
static int make_plan(struct spec *spec, char **cache_dir, const char *out_dir,
		     const struct strvec *launcher, struct makefile_options *mo,
		     struct plan *plan)
{
	struct cache cache = { NULL };
	char *private_dir = store_private_dir(out_dir);
	char *made[] = { path_first_missing(*cache_dir), path_first_missing(private_dir) };
	char *tools[] = { path_join(*cache_dir, "tools"), path_join(private_dir, "tools") };
	const char *dirs[] = { *cache_dir, private_dir };
	int ret = 1;

	switch (store_open(&cache, *cache_dir, private_dir, 1, warn_private, dirs)) {
	case -1:
		goto out;
	case 1:
		free(*cache_dir);
		*cache_dir = private_dir;
		private_dir = NULL;
		break;
	}
	ret = 2;
	if (plan_once(spec, *cache_dir, out_dir, launcher, mo, plan))
		goto out;
	if (prefetch(plan, &cache, mo->remote)) {
		plan_release(plan);
		if (plan_once(spec, *cache_dir, out_dir, launcher, mo, plan))
			goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < ARRAY_SIZE(made); i++) {
		if (ret && made[i])
			remove_made(made[i], tools[i]);
		free(made[i]);
		free(tools[i]);
	}
	free(private_dir);
	cache_release(&cache);
	return ret;
}

/* The usage errors found before the spec is read; 0 when none. */
static int check_words(int nr_specs, const char *remote_opt)
{
	const char *problem;

	if (nr_specs != 1)
		return usage_error(usage_gen, "%s", nr_specs ? "more than one spec given"
							    : "no spec given");
	/* Not the URL itself in the message: it may hold a password. */
	problem = remote_opt && *remote_opt ? remote_url_problem(remote_opt) : NULL;
	if (problem)
		return usage_error(usage_gen, "the --remote URL cannot be used: %s", problem);
	return 0;
}

/*
 * A spec of thousands of units: gen's heap grows to hundreds of MB, and on a
 * virtual machine a page fault is dear. At 100k units (bench's scale rows)
 * 4 KB pages cost 87k faults and gen took 4.5-4.8 s; in huge pages, grown
 * 64 MB at a time, 3.6k faults and 2.7-3.0 s. 64 KB of spec is some 700
 * units, where gen takes ~30 ms and starting again ~2 ms.
 */
static int spec_is_large(const char *path)
{
	struct stat st;

	return !stat(path, &st) && st.st_size >= 64 * 1024;
}

/* A written plan and its spec are not freed: the kernel takes gen's heap
 * back at once at exit, where freeing a 100k-unit plan piece by piece costs
 * ~7% of the gen. Kept here, they stay reachable for the leak checker. */
static struct spec spec;
static struct plan plan;

int cmd_gen(int argc, char **argv)
{
	const char *output = "warmup.mk", *cache_opt = NULL, *out_opt = NULL, *spec_path;
	const char *format = NULL, *remote_opt = NULL, *problem;
	char *cache_dir = NULL, *out_dir = NULL, *self = NULL, *kwarm = NULL, *spec_abs = NULL;
	char *plan_file = NULL;
	struct makefile_options mo;
	struct gen_output files;
	struct timespec start;
	struct strvec launcher, launcher_opts;
	int ret, have_plan = 0, have_launcher;
	struct option opts[] = {
		OPT_STRING("-o", &output),
		OPT_STRING("--cache", &cache_opt),
		OPT_STRING("--out", &out_opt),
		OPT_LIST("--launcher", &launcher_opts),
		OPT_FORMAT(&format),
		OPT_STRING("--remote", &remote_opt),
		OPT_END(),
	};

	strvec_init(&launcher_opts);
	argc = parse_command(argc, argv, opts, 0, usage_gen, &ret);
	if (argc < 0 || (ret = check_words(argc, remote_opt))) {
		strvec_release(&launcher_opts);
		return ret;
	}
	spec_path = argv[0];
	os_heap_for_bulk(spec_is_large(spec_path));
	have_launcher = launcher_opts.nr > 0;
	strvec_init(&launcher);
	gen_output_init(&files);
	for (size_t i = 0; i < launcher_opts.nr; i++)
		strvec_split(&launcher, launcher_opts.v[i], 0);
	strvec_release(&launcher_opts);

	publish_install_signal_cleanup();
	/* Before any input is read: the time the Makefile gets (output.h),
	 * as the file system stamps a file written now. */
	os_file_stamp_now(output, &start);
	if (spec_load(&spec, spec_path)) {
		strvec_release(&launcher);
		return 2;
	}
	cache_dir = cache_choose_dir(cache_opt, spec.cache, 1);
	out_dir = out_opt ? path_absolute(out_opt)
			  : spec.out ? xstrdup(spec.out) : path_join(spec.root, "build/callables");
	self = path_absolute(output);
	kwarm = self_path();
	spec_abs = path_absolute(spec_path);
	mo.kwarm = kwarm;
	mo.self = self;
	mo.spec_abs = spec_abs;
	mo.format = format;
	mo.remote = remote_choose(remote_opt, spec.remote);
	mo.remote_arg = remote_opt ? remote_opt : getenv("KWARM_REMOTE");
	problem = mo.remote ? remote_url_problem(mo.remote) : NULL;
	if (problem) {
		error("the remote URL ($KWARM_REMOTE) cannot be used: %s", problem);
		ret = 2;
		goto out;
	}
	plan_file = xstrfmt("%s%s", self, PLANFILE_SUFFIX);
	mo.plan_file = plan_file;
	/* Nothing is written before the whole plan is known good. */
	ret = make_plan(&spec, &cache_dir, out_dir, have_launcher ? &launcher : NULL, &mo, &plan);
	if (ret)
		goto out;
	have_plan = 1;
	ret = 1;
	if (gen_output_write(&files, &plan, &mo, self, &start))
		goto out;
	ret = 0;
out:
	if (ret && have_plan)
		plan_release(&plan);
	if (ret)
		spec_release(&spec);
	gen_output_release(&files);
	free(cache_dir);
	free(out_dir);
	free(self);
	free(kwarm);
	free(spec_abs);
	free(plan_file);
	strvec_release(&launcher);
	return ret;
}
