/* kwarm compile: placeholder until the module lands. */
#include "commands.h"

const char usage_compile[] = "usage: kwarm compile\n";

int cmd_compile(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return usage_error(usage_compile, "'compile' is not built yet");
}
