/* kwarm stale: the remake check of a generated Makefile, run by the Makefile
 * itself ($(shell) at its start and at its end) in place of naming every
 * input to make. */
#include "commands.h"
#include "inputs.h"
#include "parseopt.h"
#include "report/runid.h"
#include "staleahead.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>

const char usage_stale[] =
	"usage: kwarm stale [--tag] MAKEFILE\n"
	"       kwarm stale --ahead PID MAKEFILE\n"
	"       kwarm stale [--tag] --answer TOKEN MAKEFILE\n"
	"\n"
	"Print the first input of MAKEFILE (a Makefile kwarm gen wrote) that changed\n"
	"since gen started: one missing or not older than it (gen gives it its start\n"
	"time), or the entry of a unit never built that now exists; nothing when\n"
	"none did. The Makefile runs this to know whether to remake itself.\n"
	"\n"
	"    --ahead PID     start the check in the background and print a token for\n"
	"                    --answer (nothing when it cannot start); the check keeps\n"
	"                    its answer until asked or until process PID ends\n"
	"    --answer TOKEN  print the answer of the check TOKEN names, or check now\n"
	"                    when there is none (an empty TOKEN, a check gone)\n"
	"    --tag           print first the tag of the make run this runs under,\n"
	"                    then the word 'changed' in place of the input's name\n"
	"                    (the Makefile reads its run's tag from this)\n";

int cmd_stale(int argc, char **argv)
{
	uint64_t ahead = 0;
	const char *token = NULL;
	int tag = 0;
	struct option opts[] = {
		OPT_U64("--ahead", &ahead),
		OPT_STRING("--answer", &token),
		OPT_FLAG("--tag", &tag),
		OPT_END(),
	};
	struct buf out = BUF_INIT;
	int ret = 0;

	argc = parse_command(argc, argv, opts, 0, usage_stale, &ret);
	if (argc < 0)
		return ret;
	if (argc != 1)
		return usage_error(usage_stale, "one MAKEFILE is needed");
	if (ahead && token)
		return usage_error(usage_stale, "--ahead and --answer do not go together");
	if (ahead && tag)
		return usage_error(usage_stale, "--ahead and --tag do not go together");
	if (ahead)
		stale_ahead_start(argv[0], (long)ahead, &out);
	else if (token)
		ret = stale_ahead_answer(token, argv[0], &out) ? 1 : 0;
	else
		ret = inputs_changed(argv[0], &out) ? 1 : 0;
	/* One word each: a name of any bytes could pass for none in make's
	 * $(word 2,...). */
	if (tag) {
		char run[RUNID_TAG_SIZE];

		runid_tag(run, sizeof(run));
		printf("%s\n%s", run, out.len ? "changed\n" : "");
	} else if (out.len) {
		printf("%s\n", out.s);
	}
	buf_release(&out);
	return ret;
}
