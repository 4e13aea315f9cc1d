/* pack: the pack step. It packs a callable from its description (packdesc.h)
 * and its units' entries; where the description lies in the plan side file
 * (planfile.h) its recipe says, and the callable key it names is checked
 * against the description's digest. */
#ifndef KWARM_PACK_H
#define KWARM_PACK_H

#include "cache/cache.h"
#include "plan/planfile.h"

/* What pack_run calls for a unit whose entry is corrupt or missing: make the
 * entry valid (compile the unit, in the cache or the private store, removing
 * a corrupt entry first); 0, or -1 after reporting. */
struct pack_recompile {
	int (*compile)(struct pack_recompile *self, const char *key);
	/* An entry made since the run began, maybe by another process from other
	 * files than this run's (its artifact's digest is sha): 0 when it read
	 * what this run sees, else -1 after reporting. */
	int (*check)(struct pack_recompile *self, const char *key, const char *sha);
};

/* Pack callable ckey from the cache into out_path and mark stamp_path; 0 or -1
 * after reporting. Nothing is published unless every unit is present and valid.
 * Units (and the description) missing from the cache are read from the store at
 * private_dir (may be NULL), where compiles go when the cache cannot be used.
 * A unit found corrupt or missing is compiled again through rc (may be NULL:
 * then the corrupt entry is removed, for the next run, and the pack fails). */
int pack_run(const struct cache *cache, const char *private_dir, const char *ckey,
	     const struct planfile_ref *desc, const char *out_path, const char *stamp_path,
	     struct pack_recompile *rc);

#endif
