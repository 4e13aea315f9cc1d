/* kwarm stale: the remake check of a generated Makefile, run by the Makefile
 * itself ($(shell) at its end) in place of naming every input to make. */
#include "commands.h"
#include "inputs.h"
#include "parseopt.h"
#include "util.h"

#include <stdio.h>

const char usage_stale[] =
	"usage: kwarm stale MAKEFILE\n"
	"\n"
	"Print the first input of MAKEFILE (a Makefile kwarm gen wrote) that changed\n"
	"since gen started: one missing or not older than it (gen gives it its start\n"
	"time), or the entry of a unit never built that now exists; nothing when\n"
	"none did. The Makefile runs this to know whether to remake itself.\n";

int cmd_stale(int argc, char **argv)
{
	struct option opts[] = { OPT_END() };
	struct buf changed = BUF_INIT;
	int ret = 0;

	argc = parse_command(argc, argv, opts, 0, usage_stale, &ret);
	if (argc < 0)
		return ret;
	if (argc != 1)
		return usage_error(usage_stale, "one MAKEFILE is needed");
	ret = inputs_changed(argv[0], &changed) ? 1 : 0;
	if (changed.len)
		printf("%s\n", changed.s);
	buf_release(&changed);
	return ret;
}
