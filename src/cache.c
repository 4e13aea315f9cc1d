#include "cache.h"
#include "path.h"
#include "publish.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int cache_probe(const struct cache *c, char **why)
{
	char *probe = xstrfmt("%s/tmp/probe.%ld", c->dir, (long)getpid());
	int fd = open(probe, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666), ret = 0;
	char block[4096];

	*why = NULL;
	memset(block, 0, sizeof(block));
	if (fd < 0) {
		*why = xstrfmt("cannot write in '%s': %s", c->dir, strerror(errno));
		ret = -1;
	} else {
		/* A real write: creating an empty file still works on a full disk. */
		if (write_all(fd, block, sizeof(block)) || fsync(fd))
			*why = xstrfmt("cannot write in '%s': %s", c->dir, strerror(errno));
		else if (flock(fd, LOCK_EX | LOCK_NB))
			*why = xstrfmt("cannot lock files in '%s': %s", c->dir, strerror(errno));
		ret = *why ? -1 : 0;
		close(fd);
		unlink(probe);
	}
	free(probe);
	return ret;
}

int cache_try_init(struct cache *c, const char *dir, char **why)
{
	static const char *const subdirs[] = { "units", "tmp" };

	c->dir = path_absolute(dir);
	*why = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
		char *sub = path_join(c->dir, subdirs[i]);

		if (mkdir_p(sub)) {
			*why = xstrfmt("cannot create '%s': %s", sub, strerror(errno));
			free(sub);
			return -1;
		}
		free(sub);
	}
	return 0;
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

char *cache_unit_path(const struct cache *c, const char *key, const char *suffix)
{
	return xstrfmt("%s/units/%.2s/%s%s", c->dir, key, key, suffix);
}

int cache_lock_unit(const struct cache *c, const char *key)
{
	char *path = cache_unit_path(c, key, ".lock"), *dir = path_dirname(path);
	int fd;

	if (mkdir_p(dir)) {
		error("cannot create cache folder '%s': %s", dir, strerror(errno));
		fd = -1;
		goto out;
	}
	for (;;) {
		struct stat held, now;

		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
		if (fd < 0) {
			error("cannot open lock '%s': %s", path, strerror(errno));
			goto out;
		}
		while (flock(fd, LOCK_EX)) {
			if (errno == EINTR)
				continue;
			error("cannot lock '%s': %s", path, strerror(errno));
			close(fd);
			fd = -1;
			goto out;
		}
		/* prune removes lock files while holding them: a lock on a file that
		 * is no longer at path guards nothing, so take the new one. */
		if (!fstat(fd, &held) && !stat(path, &now) && held.st_dev == now.st_dev &&
		    held.st_ino == now.st_ino)
			break;
		close(fd);
	}
out:
	free(dir);
	free(path);
	return fd;
}

void cache_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

struct manifest {
	char key[DIGEST_HEX_SIZE];
	char sha[DIGEST_HEX_SIZE];
	uint64_t size;
};

/* Parse a manifest; 0, or -1 with *why set to a static reason. */
static int parse_manifest(const char *text, struct manifest *m, const char **why)
{
	const char *p = text;
	int have = 0;

	if (!starts_with(p, CACHE_MANIFEST_MAGIC "\n")) {
		*why = "unknown manifest schema";
		return -1;
	}
	p += strlen(CACHE_MANIFEST_MAGIC "\n");
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
		} else if (starts_with(p, "size ")) {
			char *end;

			errno = 0;
			m->size = strtoull(p + 5, &end, 10);
			if (errno || end != p + len) {
				*why = "bad size in manifest";
				return -1;
			}
			have |= 4;
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	if (have != 7) {
		*why = "incomplete manifest";
		return -1;
	}
	return 0;
}

/* Check an entry; on success, fills *data when data is non-NULL. */
static int check_entry(const struct cache *c, const char *key, int report, struct buf *data)
{
	char *mpath = cache_unit_path(c, key, ".m"), *apath = cache_unit_path(c, key, "");
	char *text = NULL, *bytes = NULL, hex[DIGEST_HEX_SIZE];
	const char *why = NULL;
	struct manifest m;
	size_t len, blen;
	int ret = -1;

	if (read_file_all(mpath, &text, &len)) {
		if (errno == ENOENT) {
			ret = 0;
			goto out;
		}
		why = strerror(errno);
		goto bad;
	}
	if (parse_manifest(text, &m, &why))
		goto bad;
	if (strcmp(m.key, key)) {
		why = "manifest names another key";
		goto bad;
	}
	if (read_file_all(apath, &bytes, &blen)) {
		why = errno == ENOENT ? "artifact missing" : strerror(errno);
		goto bad;
	}
	if (blen != m.size) {
		why = "artifact size differs from its manifest";
		goto bad;
	}
	digest_bytes_hex(bytes, blen, hex);
	if (strcmp(hex, m.sha)) {
		why = "artifact SHA-256 differs from its manifest";
		goto bad;
	}
	if (data)
		buf_add(data, bytes, blen);
	ret = 1;
	goto out;
bad:
	if (report)
		error("cache entry '%s' is corrupt: %s", mpath, why);
out:
	free(text);
	free(bytes);
	free(mpath);
	free(apath);
	return ret;
}

int cache_unit_check(const struct cache *c, const char *key, int report)
{
	return check_entry(c, key, report, NULL);
}

int cache_unit_read(const struct cache *c, const char *key, struct buf *out)
{
	int ret = check_entry(c, key, 1, out);

	if (ret == 0) {
		char *mpath = cache_unit_path(c, key, ".m");

		error("cache entry '%s' is missing", mpath);
		free(mpath);
	}
	return ret == 1 ? 0 : -1;
}

int cache_unit_store(const struct cache *c, const char *key, const char *tmp_path,
		     const char *label)
{
	char *apath = cache_unit_path(c, key, ""), *mpath = cache_unit_path(c, key, ".m");
	char *dir = path_dirname(apath), *bytes = NULL;
	char hex[DIGEST_HEX_SIZE];
	struct buf man = BUF_INIT;
	size_t size;
	int ret = -1;

	/* The bytes are copied, not renamed: the compiled file stays where it is for
	 * the caller's fallback, and the digest is of exactly what is published. */
	if (read_file_all(tmp_path, &bytes, &size)) {
		error("cannot read compiled output '%s': %s", tmp_path, strerror(errno));
		goto out;
	}
	digest_bytes_hex(bytes, size, hex);
	if (mkdir_p(dir)) {
		error("cannot create cache folder '%s': %s", dir, strerror(errno));
		goto out;
	}
	/* A stale manifest must never vouch for the new artifact mid-way. */
	if (unlink(mpath) && errno != ENOENT) {
		error("cannot remove '%s': %s", mpath, strerror(errno));
		goto out;
	}
	if (publish_bytes(apath, bytes, size))
		goto out;
	buf_addf(&man, "%s\nkey %s\nsize %zu\nsha256 %s\nunit %s\n",
		 CACHE_MANIFEST_MAGIC, key, size, hex, label);
	ret = publish_bytes(mpath, man.s, man.len);
out:
	buf_release(&man);
	free(bytes);
	free(dir);
	free(apath);
	free(mpath);
	return ret;
}

int cache_unit_adopt(const struct cache *c, const char *key, const char *tmp_path,
		     const char *label)
{
	char *apath = cache_unit_path(c, key, ""), *mpath = cache_unit_path(c, key, ".m");
	char hex[DIGEST_HEX_SIZE];
	struct buf man = BUF_INIT;
	uint64_t size;
	int fd, ret = -1;

	if (digest_file_hex(tmp_path, hex, &size)) {
		error("cannot read compiled output '%s': %s", tmp_path, strerror(errno));
		goto out;
	}
	fd = open(tmp_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd)) {
		error("cannot fsync '%s': %s", tmp_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	/* A stale manifest must never vouch for the new artifact mid-way. */
	if (unlink(mpath) && errno != ENOENT) {
		error("cannot remove '%s': %s", mpath, strerror(errno));
		goto out;
	}
	if (rename(tmp_path, apath)) {
		error("cannot rename '%s' to '%s': %s", tmp_path, apath, strerror(errno));
		goto out;
	}
	/* The manifest lives in the same folder: its publication's folder fsync
	 * makes both renames durable. */
	buf_addf(&man, "%s\nkey %s\nsize %llu\nsha256 %s\nunit %s\n", CACHE_MANIFEST_MAGIC,
		 key, (unsigned long long)size, hex, label);
	ret = publish_bytes(mpath, man.s, man.len);
out:
	buf_release(&man);
	free(apath);
	free(mpath);
	return ret;
}

int cache_fs_full(const struct cache *c)
{
	struct statvfs st;

	/* Under 1 MiB left for us counts as full: a compile there just failed. */
	return !statvfs(c->dir, &st) && (uint64_t)st.f_bavail * st.f_frsize < (1u << 20);
}

int cache_unit_remove(const struct cache *c, const char *key)
{
	char *mpath = cache_unit_path(c, key, ".m"), *apath = cache_unit_path(c, key, "");
	int ret = 0;

	if (unlink(mpath) && errno != ENOENT)
		ret = error("cannot remove '%s': %s", mpath, strerror(errno));
	if (unlink(apath) && errno != ENOENT)
		ret = error("cannot remove '%s': %s", apath, strerror(errno));
	free(mpath);
	free(apath);
	return ret;
}

