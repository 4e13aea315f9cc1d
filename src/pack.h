/* pack: the pack step. A callable's description (packdesc.h) lies in a file
 * gen writes beside the Makefile (<Makefile>.packs), all callables' one after
 * the other; each pack recipe names its callable key and where its
 * description lies in that file. The callable key is the SHA-256 of the
 * description, checked on reading.
 *
 * Right after each description come the compile records of its distinct
 * units (not part of the key), so that a pack that finds a unit's entry
 * corrupt or missing can compile it again in the same run, reading only its
 * own callable's part of the file:
 *
 *   unit <unit key> <n>
 *   <word>                  n lines: the words of the unit's `kwarm compile`
 *                           recipe after "compile" (options, "--", command),
 *                           less the run's report options */
#ifndef KWARM_PACK_H
#define KWARM_PACK_H

#include "cache.h"

#include <stdint.h>

/* Where a callable's description lies, and its units' records after it. */
struct pack_desc_ref {
	const char *file;
	uint64_t offset, len;
	uint64_t cmds_len;
};

/* What pack_run calls for a unit whose entry is corrupt or missing: make the
 * entry valid (compile the unit, in the cache or the private store, removing
 * a corrupt entry first); 0, or -1 after reporting. */
struct pack_recompile {
	int (*compile)(struct pack_recompile *self, const char *key);
};

/* Pack callable ckey from the cache into out_path and mark stamp_path; 0 or -1
 * after reporting. Nothing is published unless every unit is present and valid.
 * Units (and the description) missing from the cache are read from the store at
 * private_dir (may be NULL), where compiles go when the cache cannot be used.
 * A unit found corrupt or missing is compiled again through rc (may be NULL:
 * then the corrupt entry is removed, for the next run, and the pack fails). */
int pack_run(const struct cache *cache, const char *private_dir, const char *ckey,
	     const struct pack_desc_ref *desc, const char *out_path, const char *stamp_path,
	     struct pack_recompile *rc);

#endif
