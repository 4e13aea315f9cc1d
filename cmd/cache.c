/* kwarm cache: placeholder until the module lands. */
#include "commands.h"

const char usage_cache[] = "usage: kwarm cache\n";

int cmd_cache(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return usage_error(usage_cache, "'cache' is not built yet");
}
