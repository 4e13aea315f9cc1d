#include "cache/cachedir.h"
#include "util.h"

#include <stdlib.h>

char *cache_default_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		return xstrfmt("%s/kwarm", xdg);
	return xstrfmt("%s/.cache/kwarm", home && *home ? home : "/tmp");
}
