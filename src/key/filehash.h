/* filehash: a per-process memo of file content digests, validated by stat. */
#ifndef KWARM_FILEHASH_H
#define KWARM_FILEHASH_H

#include "key/digest.h"
#include "hashmap.h"

#include <stdint.h>
#include <sys/stat.h>

/* What stat says about a file; equal stamps mean the content is trusted unchanged. */
struct filestamp {
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
};

/* The stamp of st. */
void filestamp_from_stat(struct filestamp *fs, const struct stat *st);
/* True when a and b describe the same unchanged file. */
int filestamp_equal(const struct filestamp *a, const struct filestamp *b);

struct filehash {
	struct hashmap map;	/* path as given -> struct filehash_entry (private) */
	unsigned long reads;	/* files read so far (the memo's misses) */
};

void filehash_init(struct filehash *fh);
void filehash_release(struct filehash *fh);
/* SHA-256 of path's content (symlinks followed), read at most once while its
 * stamp holds. 0 or -1 with errno set (no message). */
int filehash_get(struct filehash *fh, const char *path, char hex[DIGEST_HEX_SIZE]);

#endif
