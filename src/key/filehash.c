#include "key/filehash.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct filehash_entry {
	struct filestamp stamp;
	char hex[DIGEST_HEX_SIZE];
};

void filestamp_from_stat(struct filestamp *fs, const struct stat *st)
{
	memset(fs, 0, sizeof(*fs));
	fs->dev = (uint64_t)st->st_dev;
	fs->ino = (uint64_t)st->st_ino;
	fs->size = (uint64_t)st->st_size;
	fs->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	fs->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

int filestamp_equal(const struct filestamp *a, const struct filestamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

void filehash_init(struct filehash *fh)
{
	hashmap_init(&fh->map);
	fh->reads = 0;
}

void filehash_release(struct filehash *fh)
{
	for (size_t i = 0; i < fh->map.nr; i++)
		free(fh->map.entries[i].value);
	hashmap_release(&fh->map);
	fh->reads = 0;
}

int filehash_get(struct filehash *fh, const char *path, char hex[DIGEST_HEX_SIZE])
{
	struct filehash_entry *e = hashmap_get(&fh->map, path);
	struct filestamp before, after;
	struct stat st;
	uint64_t n;

	if (stat(path, &st))
		return -1;
	filestamp_from_stat(&before, &st);
	if (e && filestamp_equal(&e->stamp, &before)) {
		memcpy(hex, e->hex, DIGEST_HEX_SIZE);
		return 0;
	}
	fh->reads++;
	if (digest_file_hex(path, hex, &n))
		return -1;
	/* A file rewritten while we read it is not remembered: the next call reads it again. */
	if (stat(path, &st))
		return -1;
	filestamp_from_stat(&after, &st);
	if (!filestamp_equal(&before, &after) || n != before.size)
		return 0;
	if (!e) {
		e = xmalloc(sizeof(*e));
		hashmap_put(&fh->map, path, e);
	}
	e->stamp = before;
	memcpy(e->hex, hex, DIGEST_HEX_SIZE);
	return 0;
}
