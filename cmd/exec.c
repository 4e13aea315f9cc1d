/* kwarm exec: placeholder until the module lands. */
#include "commands.h"

const char usage_exec[] = "usage: kwarm exec\n";

int cmd_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return usage_error(usage_exec, "'exec' is not built yet");
}
