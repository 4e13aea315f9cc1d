/* store: where results go, decided in one place. The cache, when it can be
 * used; else the private store OUT/.kwarm/private of the out folder (a cache
 * folder shared with nobody), so that an unusable cache never fails a build
 * that would otherwise pass. gen decides it for the Makefile (the cache it
 * names may be the private store); each compile step decides it again for
 * its unit (the cache may fill up while make runs), and a pack reads where
 * the compiles wrote. */
#ifndef KWARM_STORE_H
#define KWARM_STORE_H

#include "cache/cache.h"

/* The private store of out folder out_dir (caller frees). */
char *store_private_dir(const char *out_dir);

/* Why cache c cannot take results now (caller frees), or NULL when it can:
 * its disk (nearly) full, or 4 KiB cannot be written or locked there. */
char *store_unusable(const struct cache *c);

/* Called with why the cache is not used, before the private store is opened. */
typedef void store_warn_fn(void *data, const char *why);

/* Set up c as the store for results at dir: the cache when it can be set up
 * (and, with probe, written and locked: cache_probe), 0; else
 * store_fall_back's, 1 with c the private store. -1 when neither can be used
 * (reported, unless there is no private store). */
int store_open(struct cache *c, const char *dir, const char *private_dir, int probe,
	       store_warn_fn *warn, void *data);
/* The cache cannot be used (why): warn(data, why) (warn may be NULL) and set
 * up priv, unless already set up, as the private store private_dir (checked
 * as store_open checks a cache). 0; -1 when private_dir is NULL (nothing
 * said), or after reporting that it cannot be used either. */
int store_fall_back(struct cache *priv, const char *private_dir, int probe, const char *why,
		    store_warn_fn *warn, void *data);

#endif
