/* cache: the persistent content-addressed store of compiled units.
 *
 * On disk, under the cache folder:
 *
 *   units/<k0>/<key>.m        unit <key>: its artifact, then its manifest (the make target)
 *   units/<k0>/<key>.tmp.*    a compile's outputs; the last one becomes the entry by rename
 *                             (these names, the temps' and the probes': cacheentry.h)
 *   entries.lock              the per-entry locks: entry <key> is an fcntl OFD write lock
 *                             on one byte of this file, at its key's first 15 hex digits
 *   tools/                    compiler identities, reused while a compiler's stat holds
 *                             (their memo: toolid.c), and compilers' include search
 *                             lists (searchlist.c); prune removes those unused
                             for its --max-age
 *   tmp/                      probes of whether the cache can be written
 *   reads/<k0>/<base>         the entry last compiled for a base key (reads.h)
 *   events.log, events.lock   what each step did with the cache (cachelog.c)
 *   durations.log, durations.lock
 *                             how long each unit took to compile (durations.c)
 *
 * An entry is one file, so that one rename publishes it (files are
 * costly to create on some filesystems, and a compile is short):
 *
 *   <the artifact's bytes>
 *   kwarm-entry 2
 *   key <64 hex>
 *   size <bytes of the artifact>
 *   sha256 <64 hex of the artifact>
 *   deps <gcc|clang|none>      how the files the compiler read were listed
 *   read <64 hex> <path>       one per file the compiler read beyond the scanner's
 *                              closure (its dependency output), as it named it
 *   places <n> <16 hex>        how many of the next three lines follow, and the
 *                              FNV-1a of their bytes
 *   absent <path>              a place its lookups found nothing, a folder they
 *   folder <path>              passed over, a file they found and it did not
 *   file <path>                read (searchlist.h): still so
 *   unit <label>
 *   <8 digits: the manifest's length in bytes, this line included>
 *
 * An entry is trusted only when its manifest is whole, names its own key and the
 * current schema, and the artifact's size and SHA-256 match it. Publication:
 * the manifest is appended to the compiled file, which is renamed over <key>.m,
 * with no fsync: that check takes what a crash may leave of it (an empty file,
 * zero-filled blocks, a prefix) for a corrupt entry, a miss that heals. */
#ifndef KWARM_CACHE_H
#define KWARM_CACHE_H

#include "buf.h"
#include "cache/cacheentry.h"
#include "key/digest.h"
#include "strvec.h"

#include <stdint.h>

#define CACHE_ENTRY_MAGIC "kwarm-entry 2"
#define CACHE_LOCK_FILE "entries.lock"

struct cache {
	char *dir;	/* absolute */
};

/* A function that takes a why reports to it (error_to: on stderr when why is NULL). */

/* Set up dir (created with its sub-folders if missing); 0 or -1 after reporting. */
int cache_init(struct cache *c, const char *dir);
/* The same without reporting: on failure *why says why (caller frees it). */
int cache_try_init(struct cache *c, const char *dir, char **why);
/* Can data be written and files locked in the cache? 0, or -1 with *why set
 * (caller frees). A real write, so a full disk shows. */
int cache_probe(const struct cache *c, char **why);
void cache_release(struct cache *c);
/* Take the entry's lock, waiting for it with wait: the lock fd, -1 when
 * someone holds it (only without wait), -2 when it cannot be taken at all. */
int cache_lock_unit(const struct cache *c, const char *key, int wait, struct buf *why);
void cache_unlock(int fd);
/* 1 when the entry is present and valid, 0 when absent, -1 when present but
 * corrupt (reported when report is set). */
int cache_unit_check(const struct cache *c, const char *key, int report);
/* What a use of an entry (the pack step's) learns of it. */
struct cache_use {
	double mtime;			/* a make target's: kept */
	char sha[DIGEST_HEX_SIZE];	/* the artifact's digest */
};
/* The same, silent, adding a valid entry's artifact to data (may be NULL); for
 * a corrupt one (-1), *why says what is wrong (static text, or strerror's).
 * With used (a use of the entry: the pack step's), a valid entry's manifest
 * gets now as its atime (its last use, for prune) and keeps its mtime, which
 * goes to *used with the artifact's digest. */
int cache_unit_get(const struct cache *c, const char *key, struct buf *data,
		   const char **why, struct cache_use *used);
/* Check the bytes of a whole entry file (from elsewhere: a remote) as entry
 * key: the artifact's size, with its digest in sha (may be NULL), or -1 with
 * *why set (static text). data must be followed by a NUL byte (as buf and
 * read_file_all leave it). */
long long cache_entry_check(const char *data, size_t len, const char *key, const char **why,
			    char *sha);
/* Publish a copy of the finished file tmp_path, with its manifest, as entry key;
 * extra (may be NULL) holds manifest lines that go before the unit line.
 * 0, or -1; tmp_path is left as it was either way. */
int cache_unit_store(const struct cache *c, const char *key, const char *tmp_path,
		     const char *label, const char *extra, struct buf *why);
/* Publish the finished file tmp_path, which lies in the entry's own folder, in
 * two steps, so that a failure of begin leaves the caller its fallback: begin
 * appends the manifest (or, when the file cannot be opened for append,
 * publishes a copy at once); finish closes and renames it. Each is 0, or -1
 * with tmp_path left as it was (unless it could not be restored: then it is
 * gone).
 * After a begin that returned 0, call finish or abort; abort leaves tmp_path
 * with its manifest appended, for the caller to discard. */
struct cache_adoption {
	char *tmp, *mpath;	/* owned */
	int fd;			/* open on tmp until finish; -1 when a copy was published */
	uint64_t size;		/* the artifact's, to restore tmp on failure */
	char sha[DIGEST_HEX_SIZE];	/* the artifact's digest, as begin read it */
	struct buf *why;	/* begin's, for finish */
};
int cache_unit_adopt_begin(const struct cache *c, const char *key, const char *tmp_path,
			   const char *label, const char *extra, struct cache_adoption *a,
			   struct buf *why);
int cache_unit_adopt_finish(struct cache_adoption *a);
void cache_unit_adopt_abort(struct cache_adoption *a);
/* Remove an entry (a corrupt one, say); 0 or -1. */
int cache_unit_remove(const struct cache *c, const char *key);

/* Add entry key's manifest text (without its length line) to text, reading only
 * the end of the entry, not its artifact: 1, 0 when there is no such entry (or
 * it cannot be opened), -1 when it does not end in a manifest of key. */
int cache_unit_manifest(const char *dir, const char *key, struct buf *text);
/* The recorded reads of a manifest's text ("HEX PATH", appended to reads; an
 * absent, folder or file line as "WORD PATH" with the word padded to 64
 * characters) and its deps family (empty when the manifest has none). */
void cache_manifest_reads(const char *text, struct strvec *reads, char deps[16]);
/* The manifest lines of places (each "WORD PATH", no newline), with the
 * count and sum before them; nothing for none. */
void cache_add_places(struct buf *out, const struct strvec *places);

#endif
