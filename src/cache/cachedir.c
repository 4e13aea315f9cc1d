#include "cache/cachedir.h"
#include "path.h"
#include "util.h"

#include <stdlib.h>

char *cache_choose_dir(const char *opt, const char *spec_cache, int use_default)
{
	const char *env = getenv("KWARM_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (opt)
		return path_absolute(opt);
	if (env && *env)
		return path_absolute(env);
	if (spec_cache)
		return xstrdup(spec_cache);
	if (!use_default)
		return NULL;
	if (xdg && *xdg)
		return xstrfmt("%s/kwarm", xdg);
	return xstrfmt("%s/.cache/kwarm", home && *home ? home : "/tmp");
}
