/* cacheentry: the names of a cache entry's files, written and parsed here and
 * nowhere else (the folder's layout and the entry's bytes are cache.h's).
 *
 *   units/<k0>/<key>.m                  entry <key> (<k0>: its first hex digit)
 *   <final>.tmp.<pid>.<8 hex>           a temp of process <pid> that becomes
 *                                       <final> by rename: publish's temps (the
 *                                       hex random), a compile's outputs
 *                                       (<final> the entry's stem units/<k0>/<key>,
 *                                       the hex random but for its last digit,
 *                                       the output's number), the
 *                                       compiler identities' memos in tools/ (0)
 *   tmp/probe.<pid>                     process <pid>'s probe of whether the
 *                                       cache can be written
 *
 * A temp or probe is left behind (an orphan, for prune and verify to remove)
 * when its process is gone or when it is older than CACHE_TEMP_MAX_AGE: its
 * process may be on another machine that shares the cache.
 */
#ifndef KWARM_CACHEENTRY_H
#define KWARM_CACHEENTRY_H

#include "buf.h"
#include "key/digest.h"

#include <stdint.h>

/* The cache folder's sub-folders of entries, of probes and of the compilers'
 * memos; an entry's suffix. */
#define CACHE_UNITS_DIR "units"
#define CACHE_PROBES_DIR "tmp"
#define CACHE_TOOLS_DIR "tools"
#define CACHE_ENTRY_SUFFIX ".m"

/* Temps older than this (seconds) are orphans whatever their process. */
#define CACHE_TEMP_MAX_AGE 86400

struct cache;

/* Add the path of unit key's file in cache folder dir to b: suffix
 * CACHE_ENTRY_SUFFIX (the entry), "" (the stem of its compile's temps). The
 * one place that knows the fan-out. */
void cache_add_unit_path(struct buf *b, const char *dir, const char *key, const char *suffix);
/* The same as a string of c's (caller frees). */
char *cache_unit_path(const struct cache *c, const char *key, const char *suffix);
/* Add "<k0>/<key>", unit key's place under units/ without a suffix, to b: the
 * Makefile names many entries at once as units/ + this + CACHE_ENTRY_SUFFIX. */
void cache_add_unit_name(struct buf *b, const char *key);
/* Call fn with the name "<k0>/<file>" of every file in cache folder dir's
 * units/<k0>/ folders: 0, or -1 when a folder could not be read (the names
 * given then are not all). */
typedef void cache_unit_name_fn(const char *name, void *data);
int cache_for_each_unit_name(const char *dir, cache_unit_name_fn *fn, void *data);
/* The key of an entry's file name "<64 hex>.m" into key: 1, or 0 when name is
 * not an entry's. */
int cache_entry_name_key(const char *name, char key[DIGEST_HEX_SIZE]);

/* Add the name of process pid's temp of final, told apart by word, to b. */
void cache_add_temp_name(struct buf *b, const char *final, long pid, uint32_t word);
/* A random word for a temp's name (from the clock when the system has none). */
uint32_t cache_temp_word(void);
/* Process pid's temp of final (caller frees), of a random word whose last hex
 * digit is number (< 16), that no file has now: a temp left behind by a
 * killed process whose pid this one reuses is never taken for this process's
 * output. One lstat: drawn when a step is about to write it, not before. */
char *cache_fresh_temp_name(const char *final, long pid, unsigned number);
/* The pid in a temp's (file) name, or -1 when name is not a temp's. */
long cache_temp_name_pid(const char *name);
/* The path of process pid's probe in cache folder dir (caller frees). */
char *cache_probe_path(const char *dir, long pid);
/* The pid in a probe's file name, or -1 when name is not a probe's. */
long cache_probe_name_pid(const char *name);
/* Whether a temp or probe of process pid, last changed at mtime (unix
 * seconds), is left behind at now. */
int cache_temp_orphaned(long pid, double mtime, double now);

#endif
