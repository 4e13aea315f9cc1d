/* kwarm compile: one unit's Makefile recipe (the work is unitcompile.h's). */
#include "commands.h"
#include "report/annotate.h"
#include "pack/packnow.h"
#include "publish.h"
#include "unitcompile.h"
#include "util.h"

const char usage_compile[] =
	"usage: kwarm compile --cache DIR --root DIR --platform P --key KEY\n"
	"                     (--unit LABEL [--id ID] [--owners A,B] | --plan FILE)\n"
	"                     [--private DIR] [--launcher WORD]...\n"
	"                     [--link WORD]... [--extract text] [--deps gcc|clang|none]\n"
	"                     [--env NAME]...\n"
	"                     [--state DIR] [--goals GOALS] [--format FMT]\n"
	"                     [--remote URL]\n"
	"                     -- COMPILER ARGS... -o {out} SOURCE...\n"
	"\n"
	"Compile one unit into the cache (the generated Makefile's recipe). The key is\n"
	"computed again from the files compiled; nothing is cached under a stale key.\n"
	"  --state DIR     OUT/.kwarm: report progress, trace and summary of the run there\n"
	"  --plan FILE     the plan 'kwarm gen' wrote beside the Makefile (MAKEFILE.plan):\n"
	"                  the unit's label, id and owners by its key, the run's units;\n"
	"                  with --state, a callable of the run's goals that the unit\n"
	"                  completes is packed at once, in this step\n"
	"  --goals GOALS   the make run's goals, for the progress total and to know\n"
	"                  when the run is over\n"
	"  --format FMT    text, or github: failures also as GitHub annotations\n"
	"  --deps FAMILY   how the compiler lists the files it read (default: by its name)\n"
	"  --env NAME      a variable that steers the compiler (part of the key)\n"
	"  --remote URL    a remote cache: fetch the unit from it before compiling,\n"
	"                  upload what compiles (see KWARM_REMOTE_* in kwarm(1))\n";

/* The unit is published and reported: pack what it completes (packnow.h). */
static void pack_now(struct compile_job *o)
{
	struct packnow pn = {
		.plan = o->plan, .key = o->key, .packs = o->found.packs,
		.nr_packs = o->found.nr_packs, .cache_dir = o->cache,
		.private_dir = o->private_dir, .goals = o->goals, .github = o->github,
	};

	packnow(o->rs, &pn);
}

int cmd_compile(int argc, char **argv)
{
	struct compile_job o;
	struct runstate rs;
	char *bad;
	int ret, cached;

	compile_job_init(&o);
	ret = compile_job_parse(&o, argc - 1, argv + 1, &bad);
	if (ret) {
		ret = parse_failed(usage_compile, ret, bad);
		compile_job_release(&o);
		return ret;
	}
	if (o.state) {
		runstate_open(&rs, o.state, o.plan ? o.plan : "");
		o.rs = &rs;
	}
	publish_install_signal_cleanup();
	ret = compile_job_run_shown(&o, &cached, 1) ? 1 : 0;
	if (o.state) {
		if (!ret)
			pack_now(&o);
		runstate_release(&rs);
	}
	compile_job_release(&o);
	return ret;
}
