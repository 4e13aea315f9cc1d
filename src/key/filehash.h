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
/* The stamp of the file path names (stat), by lstat first: when path is a
 * symlink, its own ctime goes in *link_ctime_ns (else -1). 0, or -1 with
 * errno set. */
int filestamp_look(const char *path, struct filestamp *fs, int64_t *link_ctime_ns);

struct filehash {
	struct hashmap map;	/* path as given -> struct filehash_entry (private) */
	unsigned long reads;	/* files read so far (the memo's misses) */
};

void filehash_init(struct filehash *fh);
void filehash_release(struct filehash *fh);
/* SHA-256 of path's content (symlinks followed), read at most once while its
 * stamp holds. 0 or -1 with errno set (no message). */
int filehash_get(struct filehash *fh, const char *path, char hex[DIGEST_HEX_SIZE]);
/* What filehash_get's last look at path saw (it stats path each call): the
 * stamp of the file it names, and when path is a symlink the link's own
 * ctime in *link_ctime_ns, else -1. 1, or 0 when no look at it succeeded. */
int filehash_seen(const struct filehash *fh, const char *path, struct filestamp *stamp,
		  int64_t *link_ctime_ns);

#endif
