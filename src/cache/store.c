#include "cache/store.h"
#include "path.h"
#include "report/runstate.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/statvfs.h>

char *store_private_dir(const char *out_dir)
{
	return path_join(out_dir, RUNSTATE_PRIVATE_DIR);
}

char *store_unusable(const struct cache *c)
{
	struct statvfs st;
	char *why;

	/* Under 1 MiB left for us counts as full: a compile there just failed. */
	if (!statvfs(c->dir, &st) && (uint64_t)st.f_bavail * st.f_frsize < (1u << 20))
		return xstrdup("its disk is full");
	cache_probe(c, &why);
	return why;
}

/* Set up c at dir when it can take results: NULL, or why not (caller frees;
 * c left unset). */
static char *try_open(struct cache *c, const char *dir, int probe)
{
	char *why = NULL;

	if (cache_try_init(c, dir, &why) || (probe && cache_probe(c, &why))) {
		cache_release(c);
		return why;
	}
	return NULL;
}

int store_fall_back(struct cache *priv, const char *private_dir, int probe, const char *why,
		    store_warn_fn *warn, void *data)
{
	char *bad;

	if (!private_dir)
		return -1;
	if (warn)
		warn(data, why);
	if (priv->dir)
		return 0;
	bad = try_open(priv, private_dir, probe);
	if (!bad)
		return 0;
	error("cache folder unusable: %s", bad);
	free(bad);
	return -1;
}

int store_open(struct cache *c, const char *dir, const char *private_dir, int probe,
	       store_warn_fn *warn, void *data)
{
	char *why = try_open(c, dir, probe);
	int ret = 0;

	if (why) {
		ret = store_fall_back(c, private_dir, probe, why, warn, data) ? -1 : 1;
		free(why);
	}
	return ret;
}
