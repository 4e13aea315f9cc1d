/* reads: how a unit's key covers the files its compiler really read.
 *
 * The base key (unitkey) covers what the scanner sees. Each entry's manifest
 * lists the files its compile read beyond that (the compiler's dependency
 * output: macro-named includes, headers found through CPATH or the compiler's
 * own folders, system headers) with their digests. A unit's key is then:
 *
 *   - its base key, when the entry of that name is missing (never built) or
 *     its recorded reads still have the same digests;
 *   - else the entry a pointer names (CACHE/reads/<k0>/<base>: the last entry
 *     compiled for this base), when its recorded reads still match;
 *   - else a fresh name: SHA-256 over the base and the files last recorded,
 *     with their digests now (the first free name, or the first whose entry
 *     matches, if that name is taken).
 *
 * So an edit of any recorded file gives a new key (make compiles it), and an
 * entry is used only when every file it read is as it was. The places where
 * the compiler looked for a header and found none are recorded too (as
 * "absent PATH", "folder PATH" and "file PATH", searchlist.h): a change of
 * what is there counts as an edit. The pointer:
 *
 *   kwarm-reads 1
 *   <key of the entry>
 */
#ifndef KWARM_READS_H
#define KWARM_READS_H

#include "buf.h"
#include "key/closure.h"
#include "key/digest.h"
#include "strvec.h"

#include <time.h>

/* Choose the key of base (see above). inputs (may be NULL) gets the absolute
 * paths of the recorded reads the choice relied on; appear (may be NULL) the
 * entry whose appearance would change the choice (a unit never built). 0, or
 * -1 after reporting. */
int reads_pick_key(struct closure_cache *cc, const char *cache_dir, const char *root,
		   const char *base, char key[DIGEST_HEX_SIZE], struct strvec *inputs,
		   struct strvec *appear);
/* Does entry key exist, with recorded reads that match the files under root
 * now? 1 or 0. */
int reads_entry_matches(struct closure_cache *cc, const char *cache_dir, const char *root,
			const char *key);
/* Remember that entry key holds the last compile of base (best effort). */
void reads_point(const char *cache_dir, const char *base, const char *key);
/* The first field of a recorded place (a line "absent PATH": nothing is
 * there; "folder PATH": a folder; "file PATH": a file, not read), padded as
 * a digest is, in the reads cache_manifest_reads gives. */
#define READS_ABSENT "absent"
#define READS_FOLDER "folder"
#define READS_FILE "file"

/* The manifest lines of a compile's reads: "deps FAMILY", one "read HEX PATH"
 * per file of listed (paths as the compiler named them, relative to root) that
 * the closure does not hold, in path order, then the lines of places (where
 * the compiler's lookups looked: "absent PATH", "folder PATH", "file PATH";
 * searchlist.h). 0; 1 when, with since (a file
 * system stamp taken before the compile, os_file_stamp_at), a file of the
 * closure or of listed changed after it (*changed: its path, caller frees);
 * or -1 after reporting (a file that cannot be read, a path with a newline). */
int reads_manifest_lines(struct closure_cache *cc, const char *root, const char *family,
			 const struct strvec *listed, const struct strvec *places,
			 const struct closure *closure, const struct timespec *since,
			 char **changed, struct buf *out);
/* Compare recorded reads ("HEX PATH", or a place: READS_ABSENT, READS_FOLDER
 * or READS_FILE padded to 64, then " PATH") with the files now: 1 when all match;
 * 0 otherwise, with the first difference described in why (may be NULL). */
int reads_match(struct closure_cache *cc, const char *root, const struct strvec *reads,
		struct buf *why);

#endif
