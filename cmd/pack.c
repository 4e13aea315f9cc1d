/* kwarm pack: one callable's Makefile recipe. */
#include "commands.h"
#include "cache.h"
#include "pack.h"
#include "publish.h"

#include <string.h>

const char usage_pack[] =
	"usage: kwarm pack --cache DIR --out FILE --stamp FILE CKEY\n"
	"\n"
	"Pack callable CKEY (its description and units are in the cache) into FILE,\n"
	"children in spec order, and publish it by rename (the generated Makefile's\n"
	"recipe). STAMP records which callable FILE holds.\n";

int cmd_pack(int argc, char **argv)
{
	const char *cache_dir = NULL, *out = NULL, *stamp = NULL, *ckey = NULL;
	struct cache cache = { NULL };
	int ret = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--cache") || !strcmp(a, "--out") || !strcmp(a, "--stamp")) {
			if (i + 1 >= argc)
				return usage_error(usage_pack, "option '%s' needs a value", a);
			if (!strcmp(a, "--cache"))
				cache_dir = argv[++i];
			else if (!strcmp(a, "--out"))
				out = argv[++i];
			else
				stamp = argv[++i];
		} else if (a[0] == '-') {
			return usage_error(usage_pack, "unknown option '%s'", a);
		} else if (ckey) {
			return usage_error(usage_pack, "more than one callable key given");
		} else {
			ckey = a;
		}
	}
	if (!cache_dir || !out || !stamp || !ckey || strlen(ckey) != 64)
		return usage_error(usage_pack, "missing options or callable key");
	publish_install_signal_cleanup();
	if (!cache_init(&cache, cache_dir) && !pack_run(&cache, ckey, out, stamp))
		ret = 0;
	cache_release(&cache);
	return ret;
}
