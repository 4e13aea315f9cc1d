/* kwarm gen: placeholder until the module lands. */
#include "commands.h"

const char usage_gen[] = "usage: kwarm gen\n";

int cmd_gen(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return usage_error(usage_gen, "'gen' is not built yet");
}
