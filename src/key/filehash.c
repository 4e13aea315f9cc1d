#include "key/filehash.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct filehash_entry {
	struct filestamp stamp;		/* what hex is the digest of */
	char hex[DIGEST_HEX_SIZE];
	int hashed;			/* hex holds a digest */
	struct filestamp seen;		/* the last look at the path (filehash_seen) */
	int64_t link_ctime_ns;		/* then: the symlink's own ctime, or -1 */
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

int filestamp_look(const char *path, struct filestamp *fs, int64_t *link_ctime_ns)
{
	struct stat st;

	if (lstat(path, &st))
		return -1;
	*link_ctime_ns = -1;
	if (S_ISLNK(st.st_mode)) {
		*link_ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
		if (stat(path, &st))
			return -1;
	}
	filestamp_from_stat(fs, &st);
	return 0;
}

/* What the look at path saw, in its entry e (made when NULL); returns e. */
static struct filehash_entry *note_seen(struct filehash *fh, struct filehash_entry *e,
					const char *path, const struct filestamp *fs,
					int64_t link_ctime_ns)
{
	if (!e) {
		e = xcalloc(1, sizeof(*e));
		hashmap_put(&fh->map, path, e);
	}
	e->seen = *fs;
	e->link_ctime_ns = link_ctime_ns;
	return e;
}

static void forget_seen(struct filehash_entry *e)
{
	if (e)
		memset(&e->seen, 0, sizeof(e->seen));
}

int filehash_get(struct filehash *fh, const char *path, char hex[DIGEST_HEX_SIZE])
{
	struct filehash_entry *e = hashmap_get(&fh->map, path);
	struct filestamp before, after;
	int64_t link_before, link_after;
	uint64_t n;

	if (filestamp_look(path, &before, &link_before)) {
		forget_seen(e);
		return -1;
	}
	if (e && e->hashed && filestamp_equal(&e->stamp, &before)) {
		note_seen(fh, e, path, &before, link_before);
		memcpy(hex, e->hex, DIGEST_HEX_SIZE);
		return 0;
	}
	fh->reads++;
	if (digest_file_hex(path, hex, &n) || filestamp_look(path, &after, &link_after)) {
		forget_seen(e);
		return -1;
	}
	e = note_seen(fh, e, path, &after, link_after);
	/* A file rewritten while we read it is not remembered: the next call reads it again. */
	if (!filestamp_equal(&before, &after) || n != before.size)
		return 0;
	e->stamp = before;
	e->hashed = 1;
	memcpy(e->hex, hex, DIGEST_HEX_SIZE);
	return 0;
}

int filehash_seen(const struct filehash *fh, const char *path, struct filestamp *stamp,
		  int64_t *link_ctime_ns)
{
	const struct filehash_entry *e = hashmap_get(&fh->map, path);

	/* No real file has inode 0: a zeroed look is none. */
	if (!e || !e->seen.ino)
		return 0;
	*stamp = e->seen;
	*link_ctime_ns = e->link_ctime_ns;
	return 1;
}
