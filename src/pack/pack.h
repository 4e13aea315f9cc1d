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
/* pack_run for a pack made before its Makefile's recipe (packnow.h), which
 * still runs: where pack_run would report or remove anything (a unit missing
 * or corrupt, one that rc->check refuses, any error), it gives up quietly,
 * -1, and leaves it all to the recipe. rc->compile is not called (rc may be
 * NULL). Success is reported as pack_run's. */
int pack_run_gently(const struct cache *cache, const char *private_dir, const char *ckey,
		    const struct planfile_ref *desc, const char *out_path,
		    const char *stamp_path, struct pack_recompile *rc);

struct packdesc;
struct made_table;
/* Whether unit key has its entry for this run: the cache's, else the store's
 * at private_dir (which may be NULL) when made (made.h) says this run's step
 * made it; a stat or two. */
int pack_unit_there(const char *cache_dir, const char *private_dir,
		    struct made_table *made, const char *key);
/* Whether each unit of description d has its entry for this run (as
 * pack_unit_there): a stat each, the last units first, up to the first
 * missing; known, a key known to be there, or NULL. */
int pack_units_there(const char *cache_dir, const char *private_dir,
		     struct made_table *made, const struct packdesc *d, const char *known);
/* Whether the callable of description d is packed and current, as make would
 * judge its stamp: the stamp and the output (not a folder) exist, and each
 * unit's entry exists and is not newer than the stamp. Reads no unit. */
int pack_current(const char *cache_dir, const char *private_dir, const struct packdesc *d,
		 const char *out_path, const char *stamp_path);

#endif
