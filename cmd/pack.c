/* kwarm pack: placeholder until the module lands. */
#include "commands.h"

const char usage_pack[] = "usage: kwarm pack\n";

int cmd_pack(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return usage_error(usage_pack, "'pack' is not built yet");
}
