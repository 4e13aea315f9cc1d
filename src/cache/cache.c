#include "cache/cache.h"
#include "os.h"
#include "path.h"
#include "publish.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cache_probe(const struct cache *c, char **why)
{
	char *probe = cache_probe_path(c->dir, (long)getpid());
	int fd = open(probe, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	char block[4096] = { 0 };

	*why = NULL;
	/* A real write: creating an empty file still works on a full disk. The
	 * write reserves its space (delayed allocation), and where it cannot
	 * (NFS, FUSE) the close flushes it and says: no fsync, which would
	 * commit the journal at every gen. */
	if (fd < 0 || write_all(fd, block, sizeof(block)))
		*why = xstrfmt_errno("cannot write in '%s'", c->dir);
	/* The entries' locks are of this kind: probe it. */
	else if (os_lock_range(fd, 0, 0, 1, 0))
		*why = xstrfmt_errno("cannot lock files in '%s'", c->dir);
	if (fd >= 0) {
		if (close(fd) && !*why)
			*why = xstrfmt_errno("cannot write in '%s'", c->dir);
		unlink(probe);
	}
	free(probe);
	return *why ? -1 : 0;
}

int cache_try_init(struct cache *c, const char *dir, char **why)
{
	static const char *const subdirs[] = { CACHE_UNITS_DIR, CACHE_PROBES_DIR };

	c->dir = path_absolute(dir);
	*why = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(subdirs) && !*why; i++) {
		char *sub = path_join(c->dir, subdirs[i]);

		if (mkdir_p(sub))
			*why = xstrfmt_errno("cannot create '%s'", sub);
		free(sub);
	}
	return *why ? -1 : 0;
}

int cache_init(struct cache *c, const char *dir)
{
	char *why;

	if (!cache_try_init(c, dir, &why))
		return 0;
	error("cache folder unusable: %s", why);
	free(why);
	return -1;
}

void cache_release(struct cache *c)
{
	free(c->dir);
	c->dir = NULL;
}

/* The byte of the lock file that stands for key: its first 15 hex digits,
 * so two entries share a lock only if their keys agree on 60 bits. */
static off_t lock_offset(const char *key)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 15 && key[i]; i++) {
		char ch = key[i];
		unsigned digit = ch >= '0' && ch <= '9' ? (unsigned)(ch - '0')
			       : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10) : 0;

		v = v << 4 | digit;
	}
	return (off_t)v;
}

/* A lock of the open file description (os.h), not a lock file per entry:
 * nothing to create per compile, and it goes with the fd (the compiler kwarm
 * starts has none). */
int cache_lock_unit(const struct cache *c, const char *key, int wait, struct buf *why)
{
	char *path = path_join(c->dir, CACHE_LOCK_FILE);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666), exclusive = 1;

	/* A cache this user may only read (verify, prune of another's cache): a
	 * read lock still conflicts with a compile's write lock. */
	if (fd < 0 && !wait && (errno == EACCES || errno == EROFS)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		exclusive = 0;
		/* No lock file, and none can be made: nobody holds a lock. The
		 * folder stands for the lock, so the caller has an fd to close. */
		if (fd < 0 && errno == ENOENT) {
			fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd >= 0)
				goto out;
		}
	}
	if (fd < 0) {
		error_errno_to(why, "cannot open lock '%s'", path);
		fd = -2;
		goto out;
	}
	if (os_lock_range(fd, lock_offset(key), 1, exclusive, wait)) {
		int busy = !wait && (errno == EAGAIN || errno == EACCES);

		if (!busy)
			error_errno_to(why, "cannot lock '%.16s' in '%s'", key, path);
		close(fd);
		fd = busy ? -1 : -2;
	}
out:
	free(path);
	return fd;
}

void cache_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the lock */
}

struct manifest {
	char key[DIGEST_HEX_SIZE];
	char sha[DIGEST_HEX_SIZE];
	uint64_t size;
};

/* Parse a manifest's lines (without its length line); 0, or -1 with *why set
 * to a static reason. */
/* A line of the reads (reads.h): "read <64 hex> <path>", "deps <family>", or
 * 2 for a place: "absent <path>", "folder <path>", "file <path>"; the explain
 * lines "id ..." and "covers ...". */
static int reads_line(const char *p, size_t len)
{
	if (starts_with(p, "read "))
		return len > 70 && strspn(p + 5, "0123456789abcdef") == 64 && p[69] == ' ';
	if (starts_with(p, "deps "))
		return len > 5 && len - 5 < 16;
	if (starts_with(p, "absent ") || starts_with(p, "folder "))
		return len > 7 ? 2 : 0;
	if (starts_with(p, "file "))
		return len > 5 ? 2 : 0;
	return starts_with(p, "id ") || starts_with(p, "covers ");
}

/* FNV-1a: any one byte changed changes it (each step is a bijection of the
 * state), at a small cost per byte, unlike a digest's. */
static uint64_t places_sum(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

void cache_add_places(struct buf *out, const struct strvec *places)
{
	size_t at;

	if (!places->nr)
		return;
	buf_addf(out, "places %zu ", places->nr);
	at = out->len;
	buf_addf(out, "%016llx\n", 0ULL);
	for (size_t i = 0; i < places->nr; i++)
		buf_addf(out, "%s\n", places->v[i]);
	snprintf(out->s + at, 17, "%016llx", (unsigned long long)places_sum(out->s + at + 17,
									 out->len - at - 17));
	out->s[at + 16] = '\n';
}

/* "places N SUM" at p: the next N lines have places_sum SUM. A place whose
 * name a flipped bit changed, or that a flipped newline joined to the next,
 * still holds (nothing is at the name it says), so a read line's check on
 * its own file would not see the damage. 0 (*n set), or -1. */
static int places_line(const char *p, size_t len, unsigned long long *n)
{
	const char *start = p + len + 1, *end = start;
	char *after, sum[17];

	errno = 0;
	*n = strtoull(p + 7, &after, 10);
	if (errno || p[7] < '0' || p[7] > '9' || *after != ' ' || after + 17 != p + len ||
	    p[len] != '\n')
		return -1;
	for (unsigned long long i = 0; i < *n; i++) {
		end = strchr(end, '\n');
		if (!end++)
			return -1;
	}
	snprintf(sum, sizeof(sum), "%016llx",
		 (unsigned long long)places_sum(start, (size_t)(end - start)));
	return memcmp(sum, after + 1, 16) ? -1 : 0;
}

/* Every line before the label is one cache.h lists: a damaged one (a flipped
 * bit, a NUL byte) must not hide a read line and leave the entry in use
 * whatever that file holds now. */
static int parse_manifest(const char *text, size_t tlen, struct manifest *m, const char **why)
{
	const char *p = text;
	int have = 0, kind;
	unsigned long long places = 0, counted = 0;

	if (strlen(text) != tlen) {
		*why = "a NUL byte in the manifest";
		return -1;
	}
	if (!starts_with(p, CACHE_ENTRY_MAGIC "\n")) {
		*why = "unknown entry schema";
		return -1;
	}
	p += strlen(CACHE_ENTRY_MAGIC "\n");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len == 68 && starts_with(p, "key ")) {
			memcpy(m->key, p + 4, 64);
			m->key[64] = '\0';
			have |= 1;
		} else if (len == 71 && starts_with(p, "sha256 ")) {
			memcpy(m->sha, p + 7, 64);
			m->sha[64] = '\0';
			have |= 2;
		} else if (starts_with(p, "unit ")) {
			break;	/* the last line: a label's text is never a field */
		} else if (starts_with(p, "size ")) {
			char *end;

			errno = 0;
			m->size = strtoull(p + 5, &end, 10);
			if (errno || end != p + len) {
				*why = "bad size in manifest";
				return -1;
			}
			have |= 4;
		} else if (starts_with(p, "places ")) {
			if (places_line(p, len, &places)) {
				*why = "damaged places in manifest";
				return -1;
			}
		} else if (!(kind = reads_line(p, len))) {
			*why = "unknown line in manifest";
			return -1;
		} else {
			counted += kind == 2;
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	if (have != 7 || places != counted) {
		*why = "incomplete manifest";
		return -1;
	}
	return 0;
}

/* The length line that ends an entry: 8 digits and a newline. */
#define LENGTH_LINE 9

/* The manifest's length that line states, or 0 when it is no length line. */
static size_t length_line(const char *line)
{
	size_t tlen = 0;

	for (size_t i = 0; i < LENGTH_LINE - 1; i++) {
		if (line[i] < '0' || line[i] > '9')
			return 0;
		tlen = tlen * 10 + (size_t)(line[i] - '0');
	}
	return line[LENGTH_LINE - 1] == '\n' ? tlen : 0;
}

/* Split entry bytes into artifact and manifest; the artifact's size (its
 * digest to hex), or -1 with *why set to a static reason. */
static long long split_entry(const char *data, size_t len, const char *key, const char **why,
			     char hex[DIGEST_HEX_SIZE])
{
	struct manifest m;
	char *text;
	size_t tlen = len < LENGTH_LINE ? 0 : length_line(data + len - LENGTH_LINE), start;
	int bad;

	if (!tlen) {
		*why = "no manifest at its end (truncated?)";
		return -1;
	}
	if (tlen < LENGTH_LINE || tlen > len) {
		*why = "bad manifest length";
		return -1;
	}
	start = len - tlen;
	text = xstrndup(data + start, tlen - LENGTH_LINE);
	bad = parse_manifest(text, tlen - LENGTH_LINE, &m, why);
	free(text);
	if (bad)
		return -1;
	if (strcmp(m.key, key)) {
		*why = "manifest names another key";
		return -1;
	}
	if (m.size != start) {
		*why = "artifact size differs from its manifest";
		return -1;
	}
	digest_bytes_hex(data, start, hex);
	if (strcmp(hex, m.sha)) {
		*why = "artifact SHA-256 differs from its manifest";
		return -1;
	}
	return (long long)start;
}

long long cache_entry_check(const char *data, size_t len, const char *key, const char **why,
			    char *sha)
{
	char hex[DIGEST_HEX_SIZE];
	long long size;

	if (!len) {
		*why = "empty";
		return -1;
	}
	size = split_entry(data, len, key, why, hex);
	if (size >= 0 && sha)
		memcpy(sha, hex, sizeof(hex));
	return size;
}

int cache_unit_get(const struct cache *c, const char *key, struct buf *data,
		   const char **why, struct cache_use *used)
{
	static const struct timespec now_atime[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
	char *mpath = cache_unit_path(c, key, CACHE_ENTRY_SUFFIX), *bytes = NULL;
	int fd = open(mpath, O_RDONLY | O_CLOEXEC);
	char hex[DIGEST_HEX_SIZE];
	long long size;
	struct stat st;
	size_t len;
	int ret = -1;

	*why = NULL;
	if (fd < 0 || read_fd_all(fd, &bytes, &len, &st)) {
		if (errno == ENOENT)
			ret = 0;
		else
			*why = strerror(errno);
		goto out;
	}
	size = split_entry(bytes, len, key, why, hex);
	if (size < 0)
		goto out;
	if (data)
		buf_add(data, bytes, (size_t)size);
	if (used) {
		used->mtime = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
		memcpy(used->sha, hex, sizeof(hex));
		(void)futimens(fd, now_atime);
	}
	ret = 1;
out:
	if (fd >= 0)
		close(fd);
	free(bytes);
	free(mpath);
	return ret;
}

int cache_unit_check(const struct cache *c, const char *key, int report)
{
	const char *why;
	int ret = cache_unit_get(c, key, NULL, &why, NULL);

	if (ret < 0 && report) {
		char *mpath = cache_unit_path(c, key, CACHE_ENTRY_SUFFIX);

		error("cache entry '%s' is corrupt: %s", mpath, why);
		free(mpath);
	}
	return ret;
}

/* Append the manifest of an artifact of size bytes with digest hex to b. */
static void add_manifest(struct buf *b, const char *key, uint64_t size, const char *hex,
			 const char *label, const char *extra)
{
	size_t start = b->len;

	buf_addf(b, "%s\nkey %s\nsize %llu\nsha256 %s\n", CACHE_ENTRY_MAGIC, key,
		 (unsigned long long)size, hex);
	if (extra)
		buf_adds(b, extra);	/* ~1 KB of lines: copied, not formatted */
	buf_addf(b, "unit %s\n", label);
	if (b->len - start + LENGTH_LINE > 99999999)
		BUG("a manifest of %zu bytes", b->len - start);
	buf_addf(b, "%08zu\n", b->len - start + LENGTH_LINE);
}

int cache_unit_store(const struct cache *c, const char *key, const char *tmp_path,
		     const char *label, const char *extra, struct buf *why)
{
	char *mpath = cache_unit_path(c, key, CACHE_ENTRY_SUFFIX), *dir = path_dirname(mpath);
	char hex[DIGEST_HEX_SIZE];
	struct buf entry = BUF_INIT;
	char *bytes = NULL;
	size_t size;
	int ret = -1;

	/* The bytes are copied, not renamed: the compiled file stays where it is for
	 * the caller's fallback, and the digest is of exactly what is published. */
	if (read_file_all(tmp_path, &bytes, &size)) {
		error_errno_to(why, "cannot read compiled output '%s'", tmp_path);
		goto out;
	}
	digest_bytes_hex(bytes, size, hex);
	if (mkdir_p(dir)) {
		error_errno_to(why, "cannot create cache folder '%s'", dir);
		goto out;
	}
	buf_add(&entry, bytes, size);
	add_manifest(&entry, key, size, hex, label, extra);
	ret = publish_unsynced_gently(mpath, entry.s, entry.len, why);
out:
	buf_release(&entry);
	free(bytes);
	free(dir);
	free(mpath);
	return ret;
}

int cache_unit_adopt_begin(const struct cache *c, const char *key, const char *tmp_path,
			   const char *label, const char *extra, struct cache_adoption *a,
			   struct buf *why)
{
	struct buf man = BUF_INIT;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->why = why;
	/* One open: read for the digest, then appended to. */
	a->fd = open(tmp_path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (a->fd < 0) {
		/* A compiler may leave its output read-only: publish a copy now. */
		return cache_unit_store(c, key, tmp_path, label, extra, why);
	}
	if (digest_fd_hex(a->fd, a->sha, &a->size)) {
		error_errno_to(why, "cannot read compiled output '%s'", tmp_path);
		close(a->fd);
		a->fd = -1;
		return -1;
	}
	add_manifest(&man, key, a->size, a->sha, label, extra);
	if (write_all(a->fd, man.s, man.len)) {
		error_errno_to(why, "cannot append to '%s'", tmp_path);
		/* Leave the compiled file as it was, for the caller's fallback. */
		if (ftruncate(a->fd, (off_t)a->size))
			unlink(tmp_path);
		close(a->fd);
		a->fd = -1;
		goto out;
	}
	a->tmp = xstrdup(tmp_path);
	a->mpath = cache_unit_path(c, key, CACHE_ENTRY_SUFFIX);
	ret = 0;
out:
	buf_release(&man);
	return ret;
}

/* No fsync of the entry nor of its folder (as ccache, ninja and make's own
 * outputs): every reader checks an entry against its trailer, so what a crash
 * may leave of it (empty, zero-filled blocks, a prefix) is a miss that heals,
 * never a wrong hit (README, "No fsync in the cache"). */
int cache_unit_adopt_finish(struct cache_adoption *a)
{
	int fd = a->fd, ret = -1;

	if (fd < 0)
		return 0;	/* a copy was published by begin */
	a->fd = -1;
	if (close(fd)) {
		error_errno_to(a->why, "cannot close '%s'", a->tmp);
		/* Leave the compiled file as it was, for the caller's fallback. */
		if (truncate(a->tmp, (off_t)a->size))
			unlink(a->tmp);
	} else if (rename(a->tmp, a->mpath)) {
		error_errno_to(a->why, "cannot rename '%s'", a->tmp);
		if (truncate(a->tmp, (off_t)a->size))
			unlink(a->tmp);
	} else {
		ret = 0;
	}
	cache_unit_adopt_abort(a);
	return ret;
}

void cache_unit_adopt_abort(struct cache_adoption *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	free(a->tmp);
	free(a->mpath);
	a->tmp = a->mpath = NULL;
}

int cache_unit_remove(const struct cache *c, const char *key)
{
	char *mpath = cache_unit_path(c, key, CACHE_ENTRY_SUFFIX);
	int ret = 0;

	if (unlink(mpath) && errno != ENOENT)
		ret = error_errno("cannot remove '%s'", mpath);
	free(mpath);
	return ret;
}

int cache_unit_manifest(const char *dir, const char *key, struct buf *text)
{
	struct buf path = BUF_INIT;
	char tail[LENGTH_LINE + 1];
	struct manifest m;
	const char *why;
	struct stat st;
	size_t tlen;
	int fd, ret = -1;

	cache_add_unit_path(&path, dir, key, CACHE_ENTRY_SUFFIX);
	fd = open(path.s, O_RDONLY | O_CLOEXEC);
	buf_release(&path);
	/* An entry that cannot be opened is not one to choose: absent. */
	if (fd < 0)
		return 0;
	/* Only the manifest: the artifact is checked where it is used. */
	if (fstat(fd, &st) || st.st_size < LENGTH_LINE ||
	    pread(fd, tail, LENGTH_LINE, st.st_size - LENGTH_LINE) != LENGTH_LINE)
		goto out;
	tlen = length_line(tail);
	if (tlen < LENGTH_LINE || tlen > (size_t)st.st_size)
		goto out;
	buf_grow(text, tlen);
	if (pread(fd, text->s + text->len, tlen - LENGTH_LINE, st.st_size - (off_t)tlen) !=
	    (ssize_t)(tlen - LENGTH_LINE))
		goto out;
	text->len += tlen - LENGTH_LINE;
	text->s[text->len] = '\0';
	if (parse_manifest(text->s, text->len, &m, &why) || strcmp(m.key, key))
		goto out;
	ret = 1;
out:
	close(fd);
	return ret;
}

void cache_manifest_reads(const char *text, struct strvec *reads, char deps[16])
{
	const char *p = strchr(text, '\n');

	deps[0] = '\0';
	/* strncmp of known lengths, not starts_with's strlen and call: gen reads
	 * every manifest's lines here, hundreds for a unit of system headers. */
	while (p && *++p && strncmp(p, "unit ", 5)) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!strncmp(p, "read ", 5) && len > 5 + 65 && p[69] == ' ') {
			strvec_push_nodup(reads, xstrndup(p + 5, len - 5));
		} else if (!strncmp(p, "absent ", 7) || !strncmp(p, "folder ", 7) ||
			   !strncmp(p, "file ", 5)) {
			size_t word = strcspn(p, " ");
			char *line = xmalloc(65 + len - word);

			/* Padded as a digest: every reads line's path is at 65. */
			memset(line, ' ', 65);
			memcpy(line, p, word);
			memcpy(line + 65, p + word + 1, len - word - 1);
			line[64 + len - word] = '\0';
			strvec_push_nodup(reads, line);
		} else if (!strncmp(p, "deps ", 5) && len - 5 < 16) {
			memcpy(deps, p + 5, len - 5);
			deps[len - 5] = '\0';
		}
		p = nl;
	}
}
