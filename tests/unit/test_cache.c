#include "cache.h"
#include "check.h"
#include "digest.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static void make_key(const char *seed, char key[DIGEST_HEX_SIZE])
{
	digest_bytes_hex(seed, strlen(seed), key);
}

/* Store bytes as entry key through a temp file in the cache's tmp/. */
static int store(const struct cache *c, const char *key, const void *data, size_t len,
		 const char *label)
{
	char *tmp = xstrfmt("%s/tmp/artifact.%.16s", c->dir, key);
	int ret;

	check_write_file(tmp, data, len, 0644);
	ret = cache_unit_store(c, key, tmp, label);
	/* Whether the temp is moved or copied is the store's business. */
	unlink(tmp);
	free(tmp);
	return ret;
}

/* check with report set: the return value, and stderr must contain want (or be
 * empty when want is NULL). */
static int check_reported(const struct cache *c, const char *key, const char *want)
{
	char *msg;
	int ret;

	check_capture_begin(2);
	ret = cache_unit_check(c, key, 1);
	msg = check_capture_end(2);
	if (want) {
		CHECK(strstr(msg, "kwarm: error: cache entry '") != NULL);
		CHECK(strstr(msg, "' is corrupt: ") != NULL);
		if (!CHECK(strstr(msg, want) != NULL))
			fprintf(stderr, "message was: %s", msg);
	} else {
		CHECK_STR(msg, "");
	}
	free(msg);
	return ret;
}

static void test_init_paths(const char *tmp)
{
	struct cache c;
	char *dir = xstrfmt("%s/nested/cache", tmp), *sub, *p;
	char key[DIGEST_HEX_SIZE];

	CHECK_INT(cache_init(&c, dir), 0);
	CHECK(c.dir[0] == '/');
	CHECK_STR(c.dir, dir);
	for (int i = 0; i < 2; i++) {
		sub = xstrfmt("%s/%s", dir, (const char *[]){ "units", "tmp" }[i]);
		CHECK(is_dir(sub));
		free(sub);
	}
	/* Descriptions live beside the Makefile: no packs/ any more. */
	sub = xstrfmt("%s/packs", dir);
	CHECK(access(sub, F_OK) != 0);
	free(sub);
	/* Again on an existing cache: fine. */
	cache_release(&c);
	CHECK(c.dir == NULL);
	CHECK_INT(cache_init(&c, dir), 0);

	make_key("paths", key);
	p = cache_unit_path(&c, key, "");
	sub = xstrfmt("%s/units/%.2s/%s", dir, key, key);
	CHECK_STR(p, sub);
	free(p);
	free(sub);
	p = cache_unit_path(&c, key, ".m");
	sub = xstrfmt("%s/units/%.2s/%s.m", dir, key, key);
	CHECK_STR(p, sub);
	free(p);
	free(sub);
	p = cache_unit_path(&c, key, ".lock");
	sub = xstrfmt("%s/units/%.2s/%s.lock", dir, key, key);
	CHECK_STR(p, sub);
	free(p);
	free(sub);
	cache_release(&c);

	/* A file in the way of the cache folder: reported, -1. */
	p = xstrfmt("%s/plainfile", tmp);
	check_write_file(p, "x", 1, 0644);
	sub = xstrfmt("%s/plainfile/cache", tmp);
	check_capture_begin(2);
	CHECK_INT(cache_init(&c, sub), -1);
	free(p);
	p = check_capture_end(2);
	CHECK(starts_with(p, "kwarm: error: ") && strstr(p, "/plainfile/cache") != NULL);
	cache_release(&c);
	free(p);
	free(sub);
	free(dir);
}

static void test_store_read(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE], sha[DIGEST_HEX_SIZE];
	static const char data[] = "artifact\0bytes\n";
	struct buf out = BUF_INIT;
	char *mpath, *text, *want, *msg;

	make_key("store", key);
	CHECK_INT(cache_unit_check(c, key, 1), 0);	/* absent */
	check_capture_begin(2);
	CHECK_INT(cache_unit_read(c, key, &out), -1);
	msg = check_capture_end(2);
	CHECK(strstr(msg, "kwarm: error: cache entry '") && strstr(msg, "' is missing"));
	free(msg);

	CHECK_INT(store(c, key, data, sizeof(data), "lib/k.cpp"), 0);
	CHECK_INT(check_reported(c, key, NULL), 1);
	buf_adds(&out, "prefix:");
	CHECK_INT(cache_unit_read(c, key, &out), 0);
	CHECK_INT(out.len, 7 + sizeof(data));
	CHECK(!memcmp(out.s + 7, data, sizeof(data)));
	buf_release(&out);

	/* The manifest, exactly as documented. */
	mpath = cache_unit_path(c, key, ".m");
	text = check_must_read(mpath);
	digest_bytes_hex(data, sizeof(data), sha);
	want = xstrfmt("kwarm-manifest 1\nkey %s\nsize %zu\nsha256 %s\nunit lib/k.cpp\n", key,
		       sizeof(data), sha);
	CHECK_STR(text, want);
	free(text);
	free(want);
	free(mpath);

	/* Storing again replaces the entry. */
	CHECK_INT(store(c, key, "v2", 2, "again"), 0);
	CHECK_INT(cache_unit_read(c, key, &out), 0);
	CHECK_STR(out.s, "v2");
	buf_release(&out);

	/* An empty artifact is a valid entry. */
	make_key("empty", key);
	CHECK_INT(store(c, key, "", 0, "empty"), 0);
	CHECK_INT(cache_unit_check(c, key, 1), 1);
	CHECK_INT(cache_unit_read(c, key, &out), 0);
	CHECK_INT(out.len, 0);
	buf_release(&out);

	/* A temp file that is not there: reported, nothing published. */
	make_key("no-temp", key);
	check_capture_begin(2);
	{
		char *missing = xstrfmt("%s/tmp/never-written", c->dir);

		CHECK_INT(cache_unit_store(c, key, missing, "x"), -1);
		free(missing);
	}
	msg = check_capture_end(2);
	CHECK(strstr(msg, "kwarm: error: cannot read compiled output '") != NULL);
	free(msg);
	CHECK_INT(cache_unit_check(c, key, 0), 0);
}

static void test_corrupt(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE], other[DIGEST_HEX_SIZE];
	struct buf out = BUF_INIT;
	char *apath, *mpath, *bytes, *text, *msg;
	size_t len;

	make_key("corrupt", key);
	apath = cache_unit_path(c, key, "");
	mpath = cache_unit_path(c, key, ".m");

	/* One flipped byte. */
	CHECK_INT(store(c, key, "0123456789", 10, "flip"), 0);
	if (read_file_all(apath, &bytes, &len))
		die("cannot read '%s'", apath);
	bytes[4] ^= 0x01;
	check_write_file(apath, bytes, len, 0644);
	free(bytes);
	CHECK_INT(check_reported(c, key, "artifact SHA-256 differs from its manifest"), -1);
	check_capture_begin(2);
	CHECK_INT(cache_unit_check(c, key, 0), -1);	/* silent without report */
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	free(msg);
	check_capture_begin(2);
	CHECK_INT(cache_unit_read(c, key, &out), -1);
	msg = check_capture_end(2);
	CHECK(strstr(msg, "corrupt") != NULL);
	CHECK_INT(out.len, 0);	/* nothing handed out */
	free(msg);

	/* Truncated. */
	CHECK_INT(store(c, key, "0123456789", 10, "trunc"), 0);
	check_write_file(apath, "01234", 5, 0644);
	CHECK_INT(check_reported(c, key, "artifact size differs from its manifest"), -1);
	check_capture_begin(2);
	CHECK_INT(cache_unit_read(c, key, &out), -1);
	free(check_capture_end(2));
	CHECK_INT(out.len, 0);

	/* Artifact missing, manifest present. */
	CHECK_INT(store(c, key, "0123456789", 10, "gone"), 0);
	CHECK_INT(unlink(apath), 0);
	CHECK_INT(check_reported(c, key, "artifact missing"), -1);

	/* A manifest naming another key (copied from another, valid entry). */
	make_key("other", other);
	CHECK_INT(store(c, other, "same bytes", 10, "other"), 0);
	CHECK_INT(store(c, key, "same bytes", 10, "mine"), 0);
	{
		char *omp = cache_unit_path(c, other, ".m");

		text = check_must_read(omp);
		check_write_file(mpath, text, strlen(text), 0644);
		free(text);
		free(omp);
	}
	CHECK_INT(check_reported(c, key, "manifest names another key"), -1);
	CHECK_INT(cache_unit_check(c, other, 0), 1);

	/* A manifest of another schema, and an incomplete one. */
	check_write_file(mpath, "kwarm-manifest 2\n", 17, 0644);
	CHECK_INT(check_reported(c, key, "unknown manifest schema"), -1);
	text = xstrfmt("kwarm-manifest 1\nkey %s\nsize 10\n", key);
	check_write_file(mpath, text, strlen(text), 0644);
	free(text);
	CHECK_INT(check_reported(c, key, "incomplete manifest"), -1);
	text = xstrfmt("kwarm-manifest 1\nkey %s\nsize 10x\nsha256 %s\n", key, key);
	check_write_file(mpath, text, strlen(text), 0644);
	free(text);
	CHECK_INT(check_reported(c, key, "bad size in manifest"), -1);

	/* No manifest: absent (0), whatever the artifact is. */
	CHECK_INT(unlink(mpath), 0);
	check_write_file(apath, "junk", 4, 0644);
	CHECK_INT(check_reported(c, key, NULL), 0);

	/* remove: both files go; removing again is fine. */
	CHECK_INT(store(c, key, "abc", 3, "rm"), 0);
	CHECK_INT(cache_unit_check(c, key, 0), 1);
	CHECK_INT(cache_unit_remove(c, key), 0);
	CHECK(!exists(apath));
	CHECK(!exists(mpath));
	CHECK_INT(cache_unit_check(c, key, 0), 0);
	CHECK_INT(cache_unit_remove(c, key), 0);
	/* A store after corruption makes the entry valid again. */
	CHECK_INT(store(c, key, "fresh", 5, "fresh"), 0);
	CHECK_INT(cache_unit_read(c, key, &out), 0);
	CHECK_STR(out.s, "fresh");
	buf_release(&out);
	free(apath);
	free(mpath);
}

static int try_lock(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), ret, err;

	if (fd < 0)
		return -2;
	ret = flock(fd, LOCK_EX | LOCK_NB);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

static void test_lock(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE], ch;
	int to_parent[2], to_child[2], status, fd;
	char *lpath;
	pid_t pid;

	make_key("lock", key);
	lpath = cache_unit_path(c, key, ".lock");
	if (pipe(to_parent) || pipe(to_child))
		die("cannot create pipes");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("cannot fork");
	if (!pid) {
		int lfd = cache_lock_unit(c, key);

		close(to_parent[0]);
		close(to_child[1]);
		if (lfd < 0 || write(to_parent[1], "L", 1) != 1)
			_exit(1);
		/* Hold the lock until the parent says so. */
		if (read(to_child[0], &ch, 1) != 1)
			_exit(2);
		cache_unlock(lfd);
		if (write(to_parent[1], "U", 1) != 1)
			_exit(3);
		_exit(0);
	}
	close(to_parent[1]);
	close(to_child[0]);
	CHECK_INT(read(to_parent[0], &ch, 1), 1);
	CHECK_INT(ch, 'L');
	/* The lock file exists, and the lock is held. */
	CHECK(exists(lpath));
	errno = 0;
	CHECK_INT(try_lock(lpath), -1);
	CHECK_INT(errno, EWOULDBLOCK);
	errno = 0;
	CHECK_INT(try_lock(lpath), -1);	/* still held: nothing changed */
	CHECK_INT(errno, EWOULDBLOCK);
	CHECK_INT(write(to_child[1], "g", 1), 1);
	CHECK_INT(read(to_parent[0], &ch, 1), 1);
	CHECK_INT(ch, 'U');
	/* Released (the child is still alive or not: unlock alone frees it). */
	CHECK_INT(try_lock(lpath), 0);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("cannot wait");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(to_parent[0]);
	close(to_child[1]);

	/* The parent can take it now, and a second attempt sees it taken. */
	fd = cache_lock_unit(c, key);
	CHECK(fd >= 0);
	errno = 0;
	CHECK_INT(try_lock(lpath), -1);
	CHECK_INT(errno, EWOULDBLOCK);
	cache_unlock(fd);
	CHECK_INT(try_lock(lpath), 0);
	cache_unlock(-1);	/* harmless */
	free(lpath);
}


int main(void)
{
	char *tmp = check_tmpdir("cache"), *abs = realpath(tmp, NULL), *dir;
	struct cache c;

	if (!abs)
		die("cannot resolve '%s'", tmp);
	test_init_paths(abs);
	dir = path_join(abs, "c");
	if (cache_init(&c, dir))
		die("cannot set up the cache");
	test_store_read(&c);
	test_corrupt(&c);
	test_lock(&c);
	cache_release(&c);
	free(dir);
	free(abs);
	free(tmp);
	return check_done();
}
