/* kwarm pack: one callable's Makefile recipe. */
#include "commands.h"
#include "cache.h"
#include "pack.h"
#include "publish.h"

#include <stdlib.h>
#include <string.h>

const char usage_pack[] =
	"usage: kwarm pack --cache DIR [--private DIR] --out FILE --stamp FILE CKEY\n"
	"\n"
	"Pack callable CKEY (its description and units are in the cache) into FILE,\n"
	"children in spec order, and publish it by rename (the generated Makefile's\n"
	"recipe). STAMP records which callable FILE holds. Units missing from the\n"
	"cache are looked for in the --private store (compiled without the cache).\n";

int cmd_pack(int argc, char **argv)
{
	const char *cache_dir = NULL, *out = NULL, *stamp = NULL, *ckey = NULL, *priv = NULL;
	struct cache cache = { NULL };
	char *why = NULL;
	int ret = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--cache") || !strcmp(a, "--out") || !strcmp(a, "--stamp") ||
		    !strcmp(a, "--private")) {
			if (i + 1 >= argc)
				return usage_error(usage_pack, "option '%s' needs a value", a);
			if (!strcmp(a, "--cache"))
				cache_dir = argv[++i];
			else if (!strcmp(a, "--private"))
				priv = argv[++i];
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
	cache.dir = NULL;
	if (cache_try_init(&cache, cache_dir, &why)) {
		/* The units were compiled without the cache: read the private store. */
		free(why);
		cache_release(&cache);
		if (!priv || cache_init(&cache, priv))
			goto out;
		priv = NULL;
	}
	if (!pack_run(&cache, priv, ckey, out, stamp))
		ret = 0;
out:
	cache_release(&cache);
	return ret;
}
