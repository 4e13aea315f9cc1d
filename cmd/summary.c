/* kwarm summary: rewrite OUT/.kwarm/summary.json now (say after a make run
 * that had nothing to do, which starts no step), and print the class counts. */
#include "commands.h"
#include "report/annotate.h"
#include "parseopt.h"
#include "report/runstate.h"
#include "report/summary.h"
#include "util.h"

#include <stdio.h>

const char usage_summary[] =
	"usage: kwarm summary --state DIR --plan FILE [--format FMT]\n"
	"\n"
	"Rewrite DIR/summary.json (DIR is OUT/.kwarm) now and print how many classes\n"
	"are built, cached, failed and pending: in a CI step after the warm-up, or\n"
	"after a make run that had nothing to do (it starts no step, so it leaves\n"
	"the file as the last run that did work wrote it). The counts and seconds\n"
	"are those of the last run that did work; cached classes are current.\n"
	"  --state DIR     the run's report folder, OUT/.kwarm\n"
	"  --plan FILE     the plan 'kwarm gen' wrote beside the Makefile (MAKEFILE.plan)\n"
	"  --format FMT    text or github (default: github when GITHUB_ACTIONS=true)\n";

int cmd_summary(int argc, char **argv)
{
	const char *state = NULL, *format = NULL, *plan = NULL;
	struct runstate rs;
	int lock, github, ret = 0, counts[4];
	struct option opts[] = {
		OPT_STRING("--state", &state),
		OPT_STRING("--plan", &plan),
		OPT_FORMAT(&format),
		OPT_END(),
	};

	argc = parse_command(argc, argv, opts, 0, usage_summary, &ret);
	if (argc < 0)
		return ret;
	if (argc)
		return usage_error(usage_summary, "unknown argument '%s'", argv[0]);
	if (!state || !plan)
		return usage_error(usage_summary, "--state and --plan are needed");
	github = annotate_pick_format(format);
	runstate_open_last(&rs, state, plan);
	lock = runstate_lock(&rs);
	/* A report: it never fails the warm-up that just succeeded. */
	if (lock < 0 || summary_write(&rs, counts)) {
		warning("cannot write '%s/%s'", state, SUMMARY_FILE);
		ret = 1;
	}
	runstate_unlock(lock);
	runstate_release(&rs);
	if (!ret)
		printf("%swarm-up: %d classes built, %d cached, %d failed, %d pending\n",
		       github ? "::notice title=kwarm::" : "kwarm: ", counts[0], counts[1],
		       counts[2], counts[3]);
	return 0;
}
