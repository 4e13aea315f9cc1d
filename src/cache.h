/* cache: the persistent content-addressed store of compiled units.
 *
 * On disk, under the cache folder:
 *
 *   units/<k0k1>/<key>        the artifact bytes of unit <key>
 *   units/<k0k1>/<key>.m      its manifest, published last (the make target)
 *   units/<k0k1>/<key>.lock   flock(2) here decides who compiles a missing entry
 *   units/<k0k1>/<key>.tmp.*  a compile's outputs, renamed into place when done
 *   tools/                    compiler identities, reused while a compiler's stat holds
 *   tmp/                      probes of whether the cache can be written
 *
 * A manifest is text:
 *
 *   kwarm-manifest 1
 *   key <64 hex>
 *   size <bytes>
 *   sha256 <64 hex of the artifact>
 *   unit <label>
 *
 * An entry is trusted only when its manifest is there, names its own key and the
 * current schema, and the artifact's size and SHA-256 match it. Publication:
 * artifact by rename, then the manifest by rename, each fsync'd with its folder. */
#ifndef KWARM_CACHE_H
#define KWARM_CACHE_H

#include "buf.h"
#include "digest.h"

#define CACHE_MANIFEST_MAGIC "kwarm-manifest 1"

struct cache {
	char *dir;	/* absolute */
};

/* Set up dir (created with its sub-folders if missing); 0 or -1 after reporting. */
int cache_init(struct cache *c, const char *dir);
/* The same without reporting: on failure *why says why (caller frees it). */
int cache_try_init(struct cache *c, const char *dir, char **why);
/* Can data be written and files locked in the cache? 0, or -1 with *why set
 * (caller frees). A real write, so a full disk shows. */
int cache_probe(const struct cache *c, char **why);
void cache_release(struct cache *c);
/* Path of a unit entry's file: suffix "" (artifact), ".m" or ".lock". Caller frees. */
char *cache_unit_path(const struct cache *c, const char *key, const char *suffix);
/* Take the entry's lock (blocking); returns the lock fd, or -1 after reporting. */
int cache_lock_unit(const struct cache *c, const char *key);
void cache_unlock(int fd);
/* 1 when the entry is present and valid, 0 when absent, -1 when present but
 * corrupt (reported when report is set). */
int cache_unit_check(const struct cache *c, const char *key, int report);
/* Publish a copy of the finished file tmp_path as entry key, then its manifest.
 * 0 or -1 after reporting; tmp_path is left as it was either way. */
int cache_unit_store(const struct cache *c, const char *key, const char *tmp_path,
		     const char *label);
/* Publish the finished file tmp_path, which lies in the entry's own folder, by
 * renaming it; then its manifest. 0, or -1 after reporting (tmp_path is left
 * where it was when the rename did not happen). */
int cache_unit_adopt(const struct cache *c, const char *key, const char *tmp_path,
		     const char *label);
/* True when the cache's filesystem is (nearly) full. */
int cache_fs_full(const struct cache *c);
/* Read a verified entry into out; -1 after reporting when absent or corrupt. */
int cache_unit_read(const struct cache *c, const char *key, struct buf *out);
/* Remove an entry's manifest and artifact (a corrupt one, say); 0 or -1. */
int cache_unit_remove(const struct cache *c, const char *key);

#endif
