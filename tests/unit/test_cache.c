/* Unit tests of cache: the folder layout; an entry is one file, the artifact
 * then its manifest and length line, exactly as cache.h documents (a
 * hand-built entry is valid too); store and adopt publish that one file and
 * nothing beside it; each kind of corruption is found with its reason; adopt
 * leaves the compiled file byte for byte as it was when it fails (rename
 * refused, append cut short by RLIMIT_FSIZE); the per-entry locks are OFD
 * locks on one byte of entries.lock at the key's first 15 hex digits: held
 * against a second open file description in this process and against a
 * child, released by unlock or by the holder's exit, waited for by the
 * blocking lock. What a label holds is no entry structure (a label with
 * "\nsize 1").
 * Another user than root (a child dropped to uid 65534): adopt of a read-only
 * compiled file publishes a copy and leaves the file; on a cache it may only
 * read, a try-lock is a read lock that a write lock holds off and that holds
 * one off. */
#include "cache/cache.h"
#include "check.h"
#include "key/digest.h"
#include "path.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
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

static int child_try_lock(const struct cache *c, const char *key);

static void make_key(const char *seed, char key[DIGEST_HEX_SIZE])
{
	digest_bytes_hex(seed, strlen(seed), key);
}

/* A key of 64 hex digits: prefix, then fill repeated. */
static void key_from(const char *prefix, char fill, char key[DIGEST_HEX_SIZE])
{
	size_t n = strlen(prefix);

	memcpy(key, prefix, n);
	memset(key + n, fill, 64 - n);
	key[64] = '\0';
}

/* The names in dir, sorted, each followed by a space ("" when empty or missing). */
static char *listing(const char *dir)
{
	struct dirent **names;
	struct buf b = BUF_INIT;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
			buf_addf(&b, "%s ", names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	buf_adds(&b, "");
	return buf_detach(&b);
}

/* The listing of the folder of entry key. */
static char *entry_folder(const struct cache *c, const char *key)
{
	char *m = cache_unit_path(c, key, ".m"), *dir = path_dirname(m), *ret = listing(dir);

	free(dir);
	free(m);
	return ret;
}

/* Publish the compiled file tmp_path as entry key, as a compile does: begin,
 * then finish. */
static int adopt(const struct cache *c, const char *key, const char *tmp_path, const char *label)
{
	struct cache_adoption a;

	if (cache_unit_adopt_begin(c, key, tmp_path, label, NULL, &a, NULL))
		return -1;
	return cache_unit_adopt_finish(&a);
}

static void read_bytes(const char *path, char **data, size_t *len)
{
	if (read_file_all(path, data, len))
		die("cannot read '%s': %s", path, strerror(errno));
}

/* Store bytes as entry key through a temp file in the cache's tmp/. */
static int store(const struct cache *c, const char *key, const void *data, size_t len,
		 const char *label)
{
	char *tmp = xstrfmt("%s/tmp/artifact.%.16s", c->dir, key);
	int ret;

	check_write_file(tmp, data, len, 0644);
	ret = cache_unit_store(c, key, tmp, label, NULL, NULL);
	/* store copies: the compiled file stays for the caller. */
	CHECK(exists(tmp));
	unlink(tmp);
	free(tmp);
	return ret;
}

/* The manifest of an artifact, as documented, without its length line. */
static char *manifest_of(const char *key, const void *data, size_t len, const char *label)
{
	char sha[DIGEST_HEX_SIZE];

	digest_bytes_hex(data, len, sha);
	return xstrfmt("kwarm-entry 2\nkey %s\nsize %zu\nsha256 %s\nunit %s\n", key, len, sha,
		       label);
}

/* An entry's bytes by hand: artifact, manifest, then the 8-digit length line
 * (the manifest's length with the line itself). */
static void entry_bytes(struct buf *b, const void *data, size_t len, const char *manifest)
{
	buf_reset(b);
	buf_add(b, data, len);
	buf_adds(b, manifest);
	buf_addf(b, "%08zu\n", strlen(manifest) + 9);
}

/* The entry store writes for data under label, by hand. */
static void entry_of(struct buf *b, const char *key, const void *data, size_t len,
		     const char *label)
{
	char *man = manifest_of(key, data, len, label);

	entry_bytes(b, data, len, man);
	free(man);
}

/* Write raw bytes as entry key's file. */
static void write_entry(const struct cache *c, const char *key, const void *data, size_t len)
{
	char *m = cache_unit_path(c, key, ".m");

	check_write_file(m, data, len, 0644);
	free(m);
}

/* check with report set: the return value, and stderr must contain want (or be
 * empty when want is NULL). */
static int check_reported(const struct cache *c, const char *key, const char *want)
{
	char *msg, *line;
	int ret;

	check_capture_begin(2);
	ret = cache_unit_check(c, key, 1);
	msg = check_capture_end(2);
	if (want) {
		char *m = cache_unit_path(c, key, ".m");

		line = xstrfmt("kwarm: error: cache entry '%s' is corrupt: %s\n", m, want);
		if (!CHECK_STR(msg, line))
			fprintf(stderr, "  (for \"%s\")\n", want);
		free(line);
		free(m);
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
	sub = xstrfmt("%s/units/%.1s/%s", dir, key, key);
	CHECK_STR(p, sub);
	free(p);
	free(sub);
	p = cache_unit_path(&c, key, ".m");
	sub = xstrfmt("%s/units/%.1s/%s.m", dir, key, key);
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

static const char artifact[] = "artifact\0bytes\n";

/* Absent, then stored and read back after what the buffer held. */
/* The artifact of a valid entry into out: 0, else -1. */
static int read_unit(const struct cache *c, const char *key, struct buf *out)
{
	const char *why;

	return cache_unit_get(c, key, out, &why, NULL) == 1 ? 0 : -1;
}

/* Whether entry key is valid and its artifact is exactly len bytes of data. */
static int reads_back(const struct cache *c, const char *key, const void *data, size_t len)
{
	struct buf out = BUF_INIT;
	int same = !read_unit(c, key, &out) && out.len == len && !memcmp(out.s, data, len);

	buf_release(&out);
	return same;
}

static void test_store_read(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];
	struct buf out = BUF_INIT;
	const char *why;

	make_key("store", key);
	CHECK_INT(cache_unit_check(c, key, 1), 0);	/* absent */
	CHECK_INT(cache_unit_get(c, key, &out, &why, NULL), 0);
	CHECK_INT(out.len, 0);

	CHECK_INT(store(c, key, artifact, sizeof(artifact), "lib/k.cpp"), 0);
	CHECK_INT(check_reported(c, key, NULL), 1);
	buf_adds(&out, "prefix:");
	CHECK_INT(read_unit(c, key, &out), 0);
	CHECK_INT(out.len, 7 + sizeof(artifact));
	CHECK(!memcmp(out.s + 7, artifact, sizeof(artifact)));
	buf_release(&out);
}

/* A use reads the entry as a get does, refreshes its atime (for prune),
 * keeps its mtime (a make target's) and says what it was, with the
 * artifact's digest. */
static void test_use(const struct cache *c)
{
	static const struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 500000000 } };
	char key[DIGEST_HEX_SIZE], sha[DIGEST_HEX_SIZE], *m;
	struct buf out = BUF_INIT;
	const char *why;
	struct cache_use used = { 0 };
	double before = now_wall();
	struct stat st;

	make_key("use", key);
	CHECK_INT(cache_unit_get(c, key, &out, &why, &used), 0);	/* absent */
	CHECK_INT(store(c, key, artifact, sizeof(artifact), "lib/u.cpp"), 0);
	m = cache_unit_path(c, key, ".m");
	CHECK_INT(utimensat(AT_FDCWD, m, old, 0), 0);
	CHECK_INT(cache_unit_get(c, key, &out, &why, &used), 1);
	CHECK(out.len == sizeof(artifact) && !memcmp(out.s, artifact, sizeof(artifact)));
	CHECK(used.mtime == 1000000000.5);
	digest_bytes_hex(artifact, sizeof(artifact), sha);
	CHECK_STR(used.sha, sha);
	CHECK_INT(stat(m, &st), 0);
	CHECK_INT(st.st_mtim.tv_sec, 1000000000);
	CHECK(st.st_atim.tv_sec >= (time_t)before - 1);
	free(m);
	buf_release(&out);
}

/* The same checks on bytes from elsewhere (a remote's object). */
static void test_entry_check(const struct cache *c)
{
	const char *why = NULL;
	char key[DIGEST_HEX_SIZE], other[DIGEST_HEX_SIZE];
	char sha[DIGEST_HEX_SIZE], want[DIGEST_HEX_SIZE];
	char *entry, *raw;
	size_t rawlen;

	make_key("entry check", key);
	CHECK_INT(store(c, key, artifact, sizeof(artifact), "lib/k.cpp"), 0);
	entry = cache_unit_path(c, key, ".m");
	CHECK_INT(read_file_all(entry, &raw, &rawlen), 0);
	CHECK_INT(cache_entry_check(raw, rawlen, key, &why, sha), (long long)sizeof(artifact));
	digest_bytes_hex(artifact, sizeof(artifact), want);
	CHECK_STR(sha, want);
	make_key("other", other);
	CHECK_INT(cache_entry_check(raw, rawlen, other, &why, NULL), -1);
	CHECK_STR(why, "manifest names another key");
	raw[0] ^= 1;
	CHECK_INT(cache_entry_check(raw, rawlen, key, &why, NULL), -1);
	CHECK_STR(why, "artifact SHA-256 differs from its manifest");
	CHECK_INT(cache_entry_check(raw, rawlen / 2, key, &why, NULL), -1);
	CHECK_INT(cache_entry_check("", 0, key, &why, NULL), -1);
	free(raw);
	free(entry);
}

/* Beside key's entry file its folder holds other entries only: no artifact
 * file, no lock file, no temp. */
static void check_alone(const struct cache *c, const char *key)
{
	char *ls = entry_folder(c, key), *want = xstrfmt("%s.m ", key);
	const char *p = ls, *end;

	CHECK(strstr(ls, want) != NULL);
	for (; *p; p = end + 1) {
		end = strchr(p, ' ');
		if (!CHECK(end - p == 66 && !strncmp(end - 2, ".m", 2)))
			fprintf(stderr, "  beside the entry: %.*s\n", (int)(end - p), p);
	}
	free(want);
	free(ls);
}

/* One file, exactly as documented: artifact, manifest, length line; storing
 * again replaces it. */
static void test_one_file(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];
	struct buf out = BUF_INIT, want = BUF_INIT;
	char *mpath, *bytes;
	size_t len;

	make_key("one file", key);
	CHECK_INT(store(c, key, artifact, sizeof(artifact), "lib/k.cpp"), 0);
	mpath = cache_unit_path(c, key, ".m");
	read_bytes(mpath, &bytes, &len);
	entry_of(&want, key, artifact, sizeof(artifact), "lib/k.cpp");
	CHECK_INT(len, want.len);
	CHECK(len == want.len && !memcmp(bytes, want.s, len));
	CHECK(len >= 9 && !memcmp(bytes + len - 9, "00000", 5));	/* 8 digits, zero-padded */
	free(bytes);
	check_alone(c, key);

	CHECK_INT(store(c, key, "v2", 2, "again"), 0);
	CHECK_INT(read_unit(c, key, &out), 0);
	CHECK_STR(out.s, "v2");
	buf_release(&out);
	check_alone(c, key);
	buf_release(&want);
	free(mpath);
}

/* An entry built by hand to the documented format is valid: the format
 * is the contract, not whatever store happens to write. */
static void test_by_hand(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];
	struct buf want = BUF_INIT;

	make_key("by hand", key);
	entry_of(&want, key, "hand", 4, "a label with spaces 'and quotes'");
	write_entry(c, key, want.s, want.len);
	CHECK_INT(check_reported(c, key, NULL), 1);
	CHECK(reads_back(c, key, "hand", 4));
	buf_release(&want);
}

/* An artifact that itself ends like an entry changes nothing: only the
 * last length line counts. */
static void test_nested(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];
	struct buf inner = BUF_INIT;

	make_key("nested", key);
	entry_of(&inner, key, "x", 1, "inner");
	CHECK_INT(store(c, key, inner.s, inner.len, "outer"), 0);
	CHECK(reads_back(c, key, inner.s, inner.len));
	buf_release(&inner);
}

/* An empty artifact is a valid entry. */
static void test_empty_artifact(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];

	make_key("empty", key);
	CHECK_INT(store(c, key, "", 0, "empty"), 0);
	CHECK_INT(cache_unit_check(c, key, 1), 1);
	CHECK(reads_back(c, key, "", 0));
}

/* A temp file that is not there: reported, nothing published. */
static void test_missing_temp(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];
	char *missing = xstrfmt("%s/tmp/never-written", c->dir), *msg;

	make_key("no-temp", key);
	check_capture_begin(2);
	CHECK_INT(cache_unit_store(c, key, missing, "x", NULL, NULL), -1);
	msg = check_capture_end(2);
	CHECK(strstr(msg, "kwarm: error: cannot read compiled output '") != NULL);
	free(msg);
	free(missing);
	CHECK_INT(cache_unit_check(c, key, 0), 0);
}

/* A compile's output file beside entry key, as cmd/compile.c names it. */
static char *compiled_file(const struct cache *c, const char *key, const void *data, size_t len)
{
	char *stem = cache_unit_path(c, key, "");
	char *tmp = xstrfmt("%s.tmp.%ld.00000a00", stem, (long)getpid());

	check_write_file(tmp, data, len, 0644);
	free(stem);
	return tmp;
}

/* Whether path holds exactly len bytes of data. */
static int holds(const char *path, const void *data, size_t len)
{
	char *bytes;
	size_t n;
	int same;

	if (read_file_all(path, &bytes, &n))
		return 0;
	same = n == len && !memcmp(bytes, data, len);
	free(bytes);
	return same;
}

/* adopt with a why: begin's and finish's failures go there, nothing is
 * printed, and the compiled file is left as it was. */
static void test_adopt_why(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];
	char *missing = xstrfmt("%s/tmp/never-written", c->dir), *tmp, *mpath, *msg;
	struct cache_adoption a;
	struct buf why = BUF_INIT;

	make_key("adopt-why", key);
	check_capture_begin(2);
	CHECK_INT(cache_unit_adopt_begin(c, key, missing, "x", NULL, &a, &why), -1);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK(starts_with(buf_str(&why), "cannot read compiled output '"));
	free(msg);
	buf_reset(&why);
	/* A folder where the entry goes: finish cannot rename over it. */
	tmp = compiled_file(c, key, "obj", 3);
	mpath = cache_unit_path(c, key, ".m");
	CHECK_INT(mkdir(mpath, 0777), 0);
	check_capture_begin(2);
	CHECK_INT(cache_unit_adopt_begin(c, key, tmp, "x", NULL, &a, &why), 0);
	CHECK_INT(cache_unit_adopt_finish(&a), -1);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK(starts_with(buf_str(&why), "cannot rename '"));
	CHECK(holds(tmp, "obj", 3));
	free(msg);
	rmdir(mpath);
	unlink(tmp);
	buf_release(&why);
	free(mpath);
	free(tmp);
	free(missing);
}

static void test_adopt(const struct cache *c)
{
	static const char data[] = "compiled\0object\n";
	char key[DIGEST_HEX_SIZE];
	struct buf out = BUF_INIT, want = BUF_INIT;
	char *tmp, *mpath, *ls, *msg;

	make_key("adopt", key);
	mpath = cache_unit_path(c, key, ".m");
	tmp = compiled_file(c, key, data, sizeof(data));
	CHECK_INT(adopt(c, key, tmp, "unit 'adopt'"), 0);
	/* The compiled file became the entry: renamed, not copied. */
	CHECK(!exists(tmp));
	entry_of(&want, key, data, sizeof(data), "unit 'adopt'");
	CHECK(holds(mpath, want.s, want.len));
	ls = entry_folder(c, key);
	msg = xstrfmt("%s.m ", key);
	CHECK_STR(ls, msg);
	free(msg);
	free(ls);
	CHECK_INT(check_reported(c, key, NULL), 1);
	CHECK(reads_back(c, key, data, sizeof(data)));
	free(tmp);

	/* Over a corrupt entry: replaced, valid. */
	write_entry(c, key, "garbage", 7);
	CHECK_INT(cache_unit_check(c, key, 0), -1);
	tmp = compiled_file(c, key, "v2", 2);
	CHECK_INT(adopt(c, key, tmp, "v2"), 0);
	CHECK(!exists(tmp));
	CHECK_INT(read_unit(c, key, &out), 0);
	CHECK_STR(out.s, "v2");
	buf_release(&out);
	free(tmp);

	/* An empty compiled file. */
	make_key("adopt empty", key);
	tmp = compiled_file(c, key, "", 0);
	CHECK_INT(adopt(c, key, tmp, "empty"), 0);
	CHECK_INT(cache_unit_check(c, key, 1), 1);
	free(tmp);

	/* No compiled file: reported, nothing published. */
	make_key("adopt missing", key);
	tmp = xstrfmt("%s/tmp/never-compiled", c->dir);
	check_capture_begin(2);
	CHECK_INT(adopt(c, key, tmp, "x"), -1);
	msg = check_capture_end(2);
	CHECK(starts_with(msg, "kwarm: error: cannot read compiled output '"));
	free(msg);
	CHECK_INT(cache_unit_check(c, key, 0), 0);
	CHECK(!exists(tmp));
	free(tmp);
	buf_release(&want);
	free(mpath);
}

/* Adopt fails at the rename: reported, the compiled file byte for byte as it
 * was, no entry. */
static void test_adopt_rename_fails(const struct cache *c)
{
	static const char data[] = "keep me exactly\n";
	char key[DIGEST_HEX_SIZE];
	char *tmp, *mpath, *blocker, *msg;
	struct stat before, after;

	/* A non-empty folder in the entry's place. */
	make_key("adopt blocked", key);
	mpath = cache_unit_path(c, key, ".m");
	blocker = path_join(mpath, "inside");
	check_write_file(blocker, "b", 1, 0644);
	tmp = compiled_file(c, key, data, sizeof(data));
	CHECK_INT(stat(tmp, &before), 0);
	check_capture_begin(2);
	CHECK_INT(adopt(c, key, tmp, "blocked"), -1);
	msg = check_capture_end(2);
	CHECK(starts_with(msg, "kwarm: error: cannot rename '"));
	CHECK(holds(tmp, data, sizeof(data)));
	CHECK_INT(stat(tmp, &after), 0);
	CHECK_INT(after.st_ino, before.st_ino);	/* the same file, not a copy */
	CHECK(is_dir(mpath));
	CHECK(exists(blocker));
	free(msg);
	unlink(tmp);
	unlink(blocker);
	rmdir(mpath);
	free(tmp);
	free(blocker);
	free(mpath);

	/* A compiled file outside the entry's folder, which does not exist yet. */
	key_from("fe", '9', key);
	tmp = xstrfmt("%s/tmp/outside.o", c->dir);
	check_write_file(tmp, data, sizeof(data), 0644);
	mpath = cache_unit_path(c, key, ".m");
	{
		char *dir = path_dirname(mpath);

		CHECK(!exists(dir));
		free(dir);
	}
	check_capture_begin(2);
	CHECK_INT(adopt(c, key, tmp, "elsewhere"), -1);
	msg = check_capture_end(2);
	CHECK(starts_with(msg, "kwarm: error: cannot rename '"));
	CHECK(holds(tmp, data, sizeof(data)));
	CHECK(!exists(mpath));
	free(msg);
	unlink(tmp);
	free(tmp);
	free(mpath);
}

/* Adopt fails while appending the manifest (the file size limit lets only
 * a few bytes of it through): the compiled file is cut back to what it was. */
static void test_adopt_append_fails(const struct cache *c)
{
	static const char data[] = "0123456789abcdef";
	char key[DIGEST_HEX_SIZE], msg[512];
	char *tmp, *mpath;
	int err[2], status;
	size_t len;
	ssize_t n;
	pid_t pid;

	make_key("adopt append", key);
	mpath = cache_unit_path(c, key, ".m");
	tmp = compiled_file(c, key, data, 16);
	pid = check_fork_piped(err);
	if (!pid) {
		/* 10 bytes of the manifest fit: a partial append to undo. */
		struct rlimit rl = { 16 + 10, 16 + 10 };

		close(err[0]);
		if (dup2(err[1], 2) < 0)
			_exit(3);
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(4);
		_exit(adopt(c, key, tmp, "too big") == -1 ? 0 : 1);
	}
	close(err[1]);
	len = 0;
	while (len < sizeof(msg) - 1 && (n = read(err[0], msg + len, sizeof(msg) - 1 - len)) > 0)
		len += (size_t)n;
	msg[len] = '\0';
	close(err[0]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!CHECK(starts_with(msg, "kwarm: error: cannot append to '")))
		fprintf(stderr, "  message was: %s", msg);
	CHECK(holds(tmp, data, 16));
	CHECK(!exists(mpath));
	CHECK_INT(cache_unit_check(c, key, 0), 0);
	/* Without the limit the same file is adopted. */
	CHECK_INT(adopt(c, key, tmp, "fits"), 0);
	CHECK_INT(cache_unit_check(c, key, 1), 1);
	free(tmp);
	free(mpath);
}

/*
 * Corrupt entries, one row each: make writes the entry's bytes into b (from an
 * entry the cache stored, or by hand as cache.h documents), and check must
 * say want (-1), or accept it (1) when want is NULL.
 */
#define NO_MANIFEST "no manifest at its end (truncated?)"

/* The file the cache writes for key holding the ten bytes "0123456789". */
static void stored(const struct cache *c, const char *key, struct buf *b)
{
	char *mpath = cache_unit_path(c, key, ".m"), *bytes;
	size_t len;

	if (store(c, key, "0123456789", 10, "stored"))
		die("cannot store '%s'", key);
	read_bytes(mpath, &bytes, &len);
	buf_reset(b);
	buf_add(b, bytes, len);
	free(bytes);
	free(mpath);
}

/* Keep the first len bytes of b. */
static void cut(struct buf *b, size_t len)
{
	b->len = len;
	b->s[len] = '\0';
}

/* A hand-built entry of "0123456789" whose length line says len + delta. */
static void length_line(const char *key, struct buf *b, long delta)
{
	char *man = manifest_of(key, "0123456789", 10, "len");
	char *text = xstrfmt("%08zu", (size_t)((long)strlen(man) + 9 + delta));

	entry_bytes(b, "0123456789", 10, man);
	memcpy(b->s + b->len - 9, text, 8);
	free(text);
	free(man);
}

/* A hand-built entry of "abc" whose manifest has "size SIZE" then sha256 on. */
static void sized(const char *key, struct buf *b, const char *size)
{
	char *man = manifest_of(key, "abc", 3, "bad size");
	char *text = xstrfmt("kwarm-entry 2\nkey %s\nsize %s\n%s", key, size, strstr(man, "sha256 "));

	entry_bytes(b, "abc", 3, text);
	free(text);
	free(man);
}

static void stored_whole(const struct cache *c, const char *key, struct buf *b)
{
	stored(c, key, b);
}

static void flipped(const struct cache *c, const char *key, struct buf *b)
{
	stored(c, key, b);
	b->s[4] ^= 0x01;
}

static void last_byte_gone(const struct cache *c, const char *key, struct buf *b)
{
	stored(c, key, b);
	cut(b, b->len - 1);
}

static void artifact_alone(const struct cache *c, const char *key, struct buf *b)
{
	stored(c, key, b);
	cut(b, 10);
}

/* Artifact bytes lost at the front: the manifest is whole, the size is not. */
static void first_byte_gone(const struct cache *c, const char *key, struct buf *b)
{
	stored(c, key, b);
	memmove(b->s, b->s + 1, b->len - 1);
	cut(b, b->len - 1);
}

static void length_line_alone(const struct cache *c, const char *key, struct buf *b)
{
	(void)c, (void)key;
	buf_reset(b);
	buf_adds(b, "1234567\n");
}

static void empty(const struct cache *c, const char *key, struct buf *b)
{
	(void)c, (void)key;
	buf_reset(b);
}

static void no_end(const struct cache *c, const char *key, struct buf *b)
{
	(void)c, (void)key;
	buf_reset(b);
	buf_adds(b, "no end");
}

static void hand_built(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	length_line(key, b, 0);
}

static void length_not_digits(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	length_line(key, b, 0);
	memcpy(b->s + b->len - 9, "0000009x", 8);
}

static void length_past_start(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	length_line(key, b, 0);
	memcpy(b->s + b->len - 9, "99999999", 8);
}

static void length_below_line(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	length_line(key, b, 0);
	memcpy(b->s + b->len - 9, "00000008", 8);
}

/* One byte off either way: the manifest no longer starts where it says. */
static void length_one_less(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	length_line(key, b, -1);
}

static void length_one_more(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	length_line(key, b, 1);
}

static void length_no_newline(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	length_line(key, b, 0);
	b->s[b->len - 1] = ' ';
}

/* A whole valid entry, of another key, copied. */
static void other_key(const struct cache *c, const char *key, struct buf *b)
{
	char other[DIGEST_HEX_SIZE];

	(void)key;
	make_key("other", other);
	stored(c, other, b);
}

static void other_schema(const struct cache *c, const char *key, struct buf *b)
{
	(void)c, (void)key;
	entry_bytes(b, "abc", 3, "kwarm-entry 3\n");
}

static void no_sha(const struct cache *c, const char *key, struct buf *b)
{
	char *text = xstrfmt("kwarm-entry 2\nkey %s\nsize 3\nunit no sha\n", key);

	(void)c;
	entry_bytes(b, "abc", 3, text);
	free(text);
}

static void size_not_number(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	sized(key, b, "3x");
}

static void size_lies(const struct cache *c, const char *key, struct buf *b)
{
	(void)c;
	sized(key, b, "2");
}

static const struct corruption {
	const char *name;
	void (*make)(const struct cache *c, const char *key, struct buf *b);
	const char *want;
} corruptions[] = {
	{ "entry_stored", stored_whole, NULL },
	{ "entry_hand_built", hand_built, NULL },
	{ "corrupt_flipped_byte", flipped, "artifact SHA-256 differs from its manifest" },
	{ "corrupt_last_byte_gone", last_byte_gone, NO_MANIFEST },
	{ "corrupt_artifact_alone", artifact_alone, NO_MANIFEST },
	{ "corrupt_length_line_alone", length_line_alone, NO_MANIFEST },
	{ "corrupt_empty", empty, NO_MANIFEST },
	{ "corrupt_no_end", no_end, NO_MANIFEST },
	{ "corrupt_first_byte_gone", first_byte_gone, "artifact size differs from its manifest" },
	{ "corrupt_length_not_digits", length_not_digits, NO_MANIFEST },
	{ "corrupt_length_past_start", length_past_start, "bad manifest length" },
	{ "corrupt_length_below_line", length_below_line, "bad manifest length" },
	{ "corrupt_length_one_less", length_one_less, "unknown entry schema" },
	{ "corrupt_length_one_more", length_one_more, "unknown entry schema" },
	{ "corrupt_length_no_newline", length_no_newline, NO_MANIFEST },
	{ "corrupt_other_key", other_key, "manifest names another key" },
	{ "corrupt_other_schema", other_schema, "unknown entry schema" },
	{ "corrupt_no_sha", no_sha, "incomplete manifest" },
	{ "corrupt_size_not_number", size_not_number, "bad size in manifest" },
	{ "corrupt_size_lies", size_lies, "artifact size differs from its manifest" },
};

/* One row: the reason reported once, nothing said without report, and
 * nothing handed out by read. */
static void test_corruption(const struct cache *c, const struct corruption *row)
{
	char key[DIGEST_HEX_SIZE];
	struct buf out = BUF_INIT, b = BUF_INIT;
	const char *why;
	char *msg;

	make_key(row->name, key);
	row->make(c, key, &b);
	write_entry(c, key, b.s, b.len);
	CHECK_INT(check_reported(c, key, row->want), row->want ? -1 : 1);
	check_capture_begin(2);
	CHECK_INT(cache_unit_check(c, key, 0), row->want ? -1 : 1);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	free(msg);
	CHECK_INT(cache_unit_get(c, key, &out, &why, NULL), row->want ? -1 : 1);
	if (row->want) {
		CHECK_STR(why, row->want);
		CHECK_INT(out.len, 0);
	} else {
		CHECK(out.len == 10 && !memcmp(out.s, "0123456789", 10));
	}
	buf_release(&out);
	buf_release(&b);
}

/* No entry file: absent (0). remove: the entry goes; removing again is fine. */
/* Every bit of a manifest that records reads, flipped alone: the entry is
 * refused, or its reads name the same files (a digest that changed does not
 * match the file: a miss) and its places are as they were (a place whose
 * name changed would still hold); a read line must never drop out unseen, or
 * the entry would be used whatever that file holds now. */
static void test_manifest_bits(const struct cache *c)
{
	static const char key[] = "9e0000000000000000000000000000000000000000000000000000000000000f";
	static const char *const places[] = { "absent /usr/local/include/a.h", "file inc/c.h" };
	static const char *const place_items[] = {
		"absent                                                           /usr/local/include/a.h",
		"file                                                             inc/c.h",
	};
	char *tmp = xstrfmt("%s/tmp/artifact.bits", c->dir), *mpath = cache_unit_path(c, key, ".m");
	char *bytes, deps[16];
	size_t len, start, bad = 0;
	struct buf text = BUF_INIT, copy = BUF_INIT, extra = BUF_INIT;
	struct strvec place_lines = STRVEC_INIT;

	buf_adds(&extra, "deps gcc\n"
		 "read 1111111111111111111111111111111111111111111111111111111111111111 /usr/include/a.h\n"
		 "read 2222222222222222222222222222222222222222222222222222222222222222 inc/b.h\n");
	for (size_t i = 0; i < ARRAY_SIZE(places); i++)
		strvec_push(&place_lines, places[i]);
	cache_add_places(&extra, &place_lines);
	strvec_release(&place_lines);
	check_write_file(tmp, "0123456789", 10, 0644);
	CHECK_INT(cache_unit_store(c, key, tmp, "bits", extra.s, NULL), 0);
	unlink(tmp);
	read_bytes(mpath, &bytes, &len);
	start = 10;
	for (size_t at = start; at < len; at++) {
		for (int bit = 0; bit < 8; bit++) {
			struct strvec reads;
			int got;

			buf_reset(&copy);
			buf_add(&copy, bytes, len);
			copy.s[at] ^= (char)(1 << bit);
			check_write_file(mpath, copy.s, copy.len, 0644);
			buf_reset(&text);
			strvec_init(&reads);
			got = cache_unit_manifest(c->dir, key, &text);
			if (got == 1)
				cache_manifest_reads(text.s, &reads, deps);
			/* Both read lines still there (a flipped newline joins them:
			 * one line whose path names no file). */
			for (size_t i = 0; got == 1 && i < reads.nr; i++)
				if (strstr(reads.v[i] + 1, "read "))
					got = 2;
			for (size_t i = 0; got == 1 && i < ARRAY_SIZE(place_items); i++)
				if (strvec_find(&reads, place_items[i]) < 0)
					got = 3;
			if ((got == 3 || (got == 1 && reads.nr < 4)) && !bad++)
				fprintf(stderr, "byte %zu bit %d: %zu reads accepted\n", at, bit, reads.nr);
			strvec_release(&reads);
		}
	}
	CHECK_INT(bad, 0);
	buf_release(&text);
	buf_release(&copy);
	free(bytes);
	buf_release(&extra);
	free(mpath);
	free(tmp);
}

static void test_remove(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];
	char *mpath;

	make_key("remove", key);
	mpath = cache_unit_path(c, key, ".m");
	CHECK_INT(check_reported(c, key, NULL), 0);
	CHECK_INT(store(c, key, "abc", 3, "rm"), 0);
	CHECK_INT(cache_unit_check(c, key, 0), 1);
	CHECK_INT(cache_unit_remove(c, key), 0);
	CHECK(!exists(mpath));
	CHECK_INT(cache_unit_check(c, key, 0), 0);
	CHECK_INT(cache_unit_remove(c, key), 0);
	free(mpath);
}

/* A store after corruption makes the entry valid again. */
static void test_store_repairs(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE];
	struct buf out = BUF_INIT;

	make_key("repair", key);
	write_entry(c, key, "garbage", 7);
	CHECK_INT(store(c, key, "fresh", 5, "fresh"), 0);
	CHECK_INT(read_unit(c, key, &out), 0);
	CHECK_STR(out.s, "fresh");
	buf_release(&out);
}

/* The offset of key's lock byte: its first 15 hex digits, as documented. */
static off_t documented_offset(const char *key)
{
	char prefix[16];

	memcpy(prefix, key, 15);
	prefix[15] = '\0';
	return (off_t)strtoull(prefix, NULL, 16);
}

/* The lock on byte off of c's entries.lock, as a new open file description
 * sees it: F_WRLCK when someone holds it, F_UNLCK when free. */
static int lock_at(const struct cache *c, off_t off)
{
	char *path = path_join(c->dir, CACHE_LOCK_FILE);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct flock fl;

	if (fd < 0)
		die("cannot open '%s': %s", path, strerror(errno));
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = off;
	fl.l_len = 1;
	if (fcntl(fd, F_OFD_GETLK, &fl))
		die("F_OFD_GETLK: %s", strerror(errno));
	close(fd);
	free(path);
	return fl.l_type;
}

/* cache_lock_unit without wait in a child: its result (1 busy, 0 taken, 2 error). */
static int child_try_lock(const struct cache *c, const char *key)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		int fd = cache_lock_unit(c, key, 0, NULL);

		_exit(fd == -1 ? 1 : fd >= 0 ? 0 : 2);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

static void test_lock(const struct cache *c)
{
	char key[DIGEST_HEX_SIZE], other[DIGEST_HEX_SIZE], twin[DIGEST_HEX_SIZE];
	char near[DIGEST_HEX_SIZE];
	int fd, fd2, fd3, status, to_parent[2];
	char *ls, *units, *msg, ch;
	struct pollfd pfd;
	pid_t pid;

	make_key("lock", key);
	make_key("lock other", other);
	units = path_join(c->dir, "units");

	fd = cache_lock_unit(c, key, 1, NULL);
	CHECK(fd >= 0);
	/* The lock is one byte of entries.lock at the key's first 15 digits. */
	CHECK_INT(lock_at(c, documented_offset(key)), F_WRLCK);
	CHECK_INT(lock_at(c, documented_offset(key) + 1), F_UNLCK);
	CHECK_INT(lock_at(c, documented_offset(key) - 1), F_UNLCK);
	/* Held against another open file description, in this process too;
	 * silently, as busy is no error. */
	check_capture_begin(2);
	CHECK_INT(cache_lock_unit(c, key, 0, NULL), -1);
	CHECK_INT(cache_lock_unit(c, key, 0, NULL), -1);	/* nothing changed */
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	free(msg);
	/* And against another process. */
	CHECK_INT(child_try_lock(c, key), 1);
	/* Another key does not conflict: both held at once. */
	fd2 = cache_lock_unit(c, other, 0, NULL);
	CHECK(fd2 >= 0);
	CHECK_INT(child_try_lock(c, other), 1);
	CHECK_INT(cache_lock_unit(c, key, 0, NULL), -1);
	cache_unlock(fd2);
	CHECK_INT(child_try_lock(c, other), 0);
	CHECK_INT(lock_at(c, documented_offset(other)), F_UNLCK);
	/* No file per entry: units/ is as it was. */
	ls = listing(units);
	CHECK_STR(ls, "");
	free(ls);

	/* Released by unlock. */
	cache_unlock(fd);
	CHECK_INT(lock_at(c, documented_offset(key)), F_UNLCK);
	CHECK_INT(child_try_lock(c, key), 0);
	fd = cache_lock_unit(c, key, 0, NULL);
	CHECK(fd >= 0);
	cache_unlock(fd);
	cache_unlock(-1);	/* harmless */

	/* Keys that agree on their first 15 digits share a lock (as documented);
	 * the 15th digit tells them apart. */
	key_from("0000000000000ff", 'a', twin);
	key_from("0000000000000ff", 'b', key);
	key_from("0000000000000fe", 'a', near);
	fd = cache_lock_unit(c, twin, 1, NULL);
	CHECK(fd >= 0);
	CHECK_INT(lock_at(c, 255), F_WRLCK);
	CHECK_INT(cache_lock_unit(c, key, 0, NULL), -1);
	fd2 = cache_lock_unit(c, near, 0, NULL);
	CHECK(fd2 >= 0);
	CHECK_INT(lock_at(c, 254), F_WRLCK);
	cache_unlock(fd2);
	/* The largest offset works as well as the smallest. */
	key_from("fffffffffffffff", 'f', key);
	fd2 = cache_lock_unit(c, key, 0, NULL);
	CHECK(fd2 >= 0);
	CHECK_INT(lock_at(c, (off_t)0xfffffffffffffffLL), F_WRLCK);
	key_from("0", '0', key);
	fd3 = cache_lock_unit(c, key, 0, NULL);
	CHECK(fd3 >= 0);
	CHECK_INT(lock_at(c, 0), F_WRLCK);
	cache_unlock(fd3);
	cache_unlock(fd2);

	/* The blocking lock waits for the holder, then takes it. */
	pid = check_fork_piped(to_parent);
	if (!pid) {
		int lfd;

		close(to_parent[0]);
		/* The parent's lock fd came along: its open file description
		 * (and so the lock) would outlive the parent's unlock. */
		close(fd);
		lfd = cache_lock_unit(c, twin, 1, NULL);
		if (lfd < 0 || write(to_parent[1], "L", 1) != 1)
			_exit(1);
		/* Exit holding it: the lock goes with the process. */
		_exit(0);
	}
	close(to_parent[1]);
	pfd.fd = to_parent[0];
	pfd.events = POLLIN;
	CHECK_INT(poll(&pfd, 1, 0), 0);	/* not while this process holds it */
	cache_unlock(fd);
	CHECK_INT(read(to_parent[0], &ch, 1), 1);
	CHECK_INT(ch, 'L');
	close(to_parent[0]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fd = cache_lock_unit(c, twin, 0, NULL);
	CHECK(fd >= 0);
	cache_unlock(fd);
	free(units);
}

/* A lock file that cannot be opened: -2 (reported) without waiting, -1 from
 * the blocking lock; the gentle lock says why in the caller's buf, not on
 * stderr; a read goes on without the lock, and says nothing of it. */
static void test_lock_error(const char *tmp)
{
	struct cache c;
	char key[DIGEST_HEX_SIZE];
	char *dir = path_join(tmp, "lock-error"), *lock, *msg;
	struct buf why = BUF_INIT, out = BUF_INIT;

	if (cache_init(&c, dir))
		die("cannot set up '%s'", dir);
	lock = path_join(c.dir, CACHE_LOCK_FILE);
	CHECK_INT(mkdir(lock, 0777), 0);
	make_key("error", key);
	check_capture_begin(2);
	CHECK_INT(cache_lock_unit(&c, key, 0, NULL), -2);
	msg = check_capture_end(2);
	CHECK(starts_with(msg, "kwarm: error: cannot open lock '"));
	free(msg);
	check_capture_begin(2);
	CHECK_INT(cache_lock_unit(&c, key, 1, NULL), -2);
	msg = check_capture_end(2);
	CHECK(starts_with(msg, "kwarm: error: cannot open lock '"));
	free(msg);
	CHECK_INT(store(&c, key, "bytes", 5, "x"), 0);
	check_capture_begin(2);
	CHECK_INT(cache_lock_unit(&c, key, 1, &why), -2);
	CHECK_INT(read_unit(&c, key, &out), 0);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK(starts_with(buf_str(&why), "cannot open lock '"));
	CHECK_STR(buf_str(&out), "bytes");
	free(msg);
	buf_release(&why);
	buf_release(&out);
	rmdir(lock);
	free(lock);
	free(dir);
	cache_release(&c);
}

/* A compiler may leave its output read-only (mode 0444); a user other than
 * root then cannot append the manifest to it. adopt publishes a copy instead
 * (a valid entry, silently) and the compiled file stays, the same file byte
 * for byte. Root could open it, so a child drops to CHECK_NOBODY, in an entry
 * folder it may write. */
static void test_adopt_read_only(const char *tmp)
{
	static const char data[] = "read-only\0compiled output\n";
	char key[DIGEST_HEX_SIZE];
	char *dir = path_join(tmp, "adopt-ro"), *mpath, *edir, *cfile, *msg, *ls, *want_ls;
	struct buf want = BUF_INIT;
	struct stat before, after;
	struct cache c;
	int err[2], code;
	pid_t pid;

	if (cache_init(&c, dir))
		die("cannot set up '%s'", dir);
	make_key("adopt read-only", key);
	mpath = cache_unit_path(&c, key, ".m");
	edir = path_dirname(mpath);
	cfile = compiled_file(&c, key, data, sizeof(data));
	if (chmod(cfile, 0444))
		die("cannot chmod '%s': %s", cfile, strerror(errno));
	CHECK_INT(stat(cfile, &before), 0);
	pid = check_fork_piped(err);
	if (!pid) {
		int fd;

		close(err[0]);
		/* The compiler ran as CHECK_NOBODY, in a folder CHECK_NOBODY may write. */
		if (chown(edir, CHECK_NOBODY, CHECK_NOBODY) || chown(cfile, CHECK_NOBODY, CHECK_NOBODY) ||
		    check_become_nobody())
			_exit(CHECK_NOT_NOBODY);
		if (dup2(err[1], 2) < 0)
			_exit(3);
		/* The premise: this user cannot open it for append. */
		fd = open(cfile, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0 || errno != EACCES)
			_exit(4);
		_exit(adopt(&c, key, cfile, "read-only output") ? 1 : 0);
	}
	close(err[1]);
	msg = check_read_to_end(err[0]);
	close(err[0]);
	code = check_child_status(pid);
	if (code == CHECK_NOT_NOBODY) {
		printf("note: test_adopt_read_only skipped: cannot become uid %d\n", CHECK_NOBODY);
		goto out;
	}
	CHECK_INT(code, 0);
	CHECK_STR(msg, "");
	/* The compiled file: where it was, as it was. */
	CHECK(holds(cfile, data, sizeof(data)));
	if (CHECK_INT(stat(cfile, &after), 0)) {
		CHECK_INT(after.st_ino, before.st_ino);
		CHECK_INT(after.st_mode & 07777, 0444);
	}
	/* The entry: a copy, in the documented format, valid. */
	entry_of(&want, key, data, sizeof(data), "read-only output");
	CHECK(holds(mpath, want.s, want.len));
	CHECK_INT(check_reported(&c, key, NULL), 1);
	CHECK(reads_back(&c, key, data, sizeof(data)));
	/* Nothing else beside them: no publish temp left. */
	ls = entry_folder(&c, key);
	want_ls = xstrfmt("%s.m %s ", key, strrchr(cfile, '/') + 1);
	CHECK_STR(ls, want_ls);
	free(ls);
	free(want_ls);
out:
	unlink(cfile);
	buf_release(&want);
	free(msg);
	free(cfile);
	free(edir);
	free(mpath);
	free(dir);
	cache_release(&c);
}

/* A label is the unit line's text to its end: manifest fields after a newline
 * in it ("size 1", another key, another digest, a bad size) change nothing,
 * from store or from adopt. */
static void test_label_lines(const struct cache *c)
{
	static const char data[] = "label test artifact";
	char key[DIGEST_HEX_SIZE], other[DIGEST_HEX_SIZE];
	struct buf want = BUF_INIT;
	char *labels[5], *mpath, *cfile;

	make_key("label lines", key);
	make_key("label lines: another key", other);
	labels[0] = xstrdup("lib/k.cpp\nsize 1");
	labels[1] = xstrfmt("x\nkey %s", other);
	labels[2] = xstrfmt("x\nsha256 %064d", 0);
	labels[3] = xstrdup("x\nsize 1x");
	labels[4] = xstrdup("x\nunit y\nsize 2\n");
	mpath = cache_unit_path(c, key, ".m");
	for (size_t i = 0; i < ARRAY_SIZE(labels); i++) {
		int ok = 1;

		CHECK_INT(cache_unit_remove(c, key), 0);
		ok &= CHECK_INT(store(c, key, data, sizeof(data), labels[i]), 0);
		/* Written as it is, in the unit line. */
		entry_of(&want, key, data, sizeof(data), labels[i]);
		ok &= CHECK(holds(mpath, want.s, want.len));
		ok &= CHECK_INT(check_reported(c, key, NULL), 1);
		ok &= CHECK(reads_back(c, key, data, sizeof(data)));

		CHECK_INT(cache_unit_remove(c, key), 0);
		cfile = compiled_file(c, key, data, sizeof(data));
		ok &= CHECK_INT(adopt(c, key, cfile, labels[i]), 0);
		ok &= CHECK(holds(mpath, want.s, want.len));
		ok &= CHECK_INT(check_reported(c, key, NULL), 1);
		ok &= CHECK(reads_back(c, key, data, sizeof(data)));
		free(cfile);
		if (!ok)
			fprintf(stderr, "  (for the label \"%s\")\n", labels[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(labels); i++)
		free(labels[i]);
	buf_release(&want);
	free(mpath);
}

/* A cache this user may only read (another user's: entries.lock root's, mode
 * 0644, the folder not writable): a try-lock is a read lock, taken without a
 * word; it holds off a compile's write lock, and a compile's write lock holds
 * it off. A child as CHECK_NOBODY; the locks sequenced through pipes. */
static void test_lock_read_only(const char *tmp)
{
	char key[DIGEST_HEX_SIZE], other[DIGEST_HEX_SIZE];
	char *dir = path_join(tmp, "lock-ro"), *lock, *msg;
	int to_parent[2], to_child[2], err[2], fd, code;
	struct stat st;
	struct cache c;
	ssize_t n;
	pid_t pid;
	char ch;

	if (cache_init(&c, dir))
		die("cannot set up '%s'", dir);
	make_key("read-only lock", key);
	make_key("read-only lock, other", other);
	lock = path_join(c.dir, CACHE_LOCK_FILE);
	fd = cache_lock_unit(&c, key, 1, NULL);	/* creates entries.lock */
	CHECK(fd >= 0);
	cache_unlock(fd);
	if (chmod(lock, 0644) || chmod(c.dir, 0755) || stat(lock, &st))
		die("cannot set up '%s': %s", lock, strerror(errno));
	if (pipe(to_parent) || pipe(to_child) || pipe(err))
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		close(to_parent[0]);
		close(to_child[1]);
		close(err[0]);
		if (check_become_nobody())
			_exit(CHECK_NOT_NOBODY);
		if (dup2(err[1], 2) < 0)
			_exit(3);
		/* 'R' taken, 'B' busy, 'E' error: each a byte to the parent. */
		fd = cache_lock_unit(&c, key, 0, NULL);
		ch = fd >= 0 ? 'R' : fd == -1 ? 'B' : 'E';
		if (write(to_parent[1], &ch, 1) != 1 || read(to_child[0], &ch, 1) != 1)
			_exit(4);
		cache_unlock(fd);
		fd = cache_lock_unit(&c, other, 0, NULL);
		ch = fd >= 0 ? 'R' : fd == -1 ? 'B' : 'E';
		cache_unlock(fd);
		_exit(write(to_parent[1], &ch, 1) == 1 ? 0 : 5);
	}
	close(to_parent[1]);
	close(to_child[0]);
	close(err[1]);
	n = read(to_parent[0], &ch, 1);
	if (n == 1) {
		int mine;

		CHECK_INT(st.st_uid, 0);
		CHECK_INT(ch, 'R');
		/* The child's lock is a read lock on the key's byte... */
		CHECK_INT(lock_at(&c, documented_offset(key)), F_RDLCK);
		/* ...which a compile's write lock cannot take meanwhile. */
		mine = cache_lock_unit(&c, key, 0, NULL);
		CHECK_INT(mine, -1);
		cache_unlock(mine);
		/* A compile holds other: the child finds it busy. */
		fd = cache_lock_unit(&c, other, 1, NULL);
		CHECK(fd >= 0);
		if (write(to_child[1], "g", 1) != 1)
			die("cannot write to the child: %s", strerror(errno));
		CHECK_INT(read(to_parent[0], &ch, 1), 1);
		CHECK_INT(ch, 'B');
		cache_unlock(fd);
	}
	close(to_child[1]);
	close(to_parent[0]);
	msg = check_read_to_end(err[0]);
	close(err[0]);
	code = check_child_status(pid);
	if (code == CHECK_NOT_NOBODY) {
		printf("note: test_lock_read_only skipped: cannot become uid %d\n", CHECK_NOBODY);
	} else {
		CHECK_INT(code, 0);
		/* No "cannot open lock": a read-only cache is no error. */
		CHECK_STR(msg, "");
	}
	free(msg);
	free(lock);
	free(dir);
	cache_release(&c);
}

int main(int argc, char **argv)
{
	char *tmp = check_tmpdir("cache"), *abs = realpath(tmp, NULL), *dir;
	struct cache c;

	check_init(argc, argv);
	if (!abs)
		die("cannot resolve '%s'", tmp);
	TEST(test_init_paths(abs), "init_paths");
	dir = path_join(abs, "c");
	if (cache_init(&c, dir))
		die("cannot set up the cache");
	TEST(test_lock(&c), "lock");
	TEST(test_store_read(&c), "store_read");
	TEST(test_entry_check(&c), "entry_check");
	TEST(test_use(&c), "use");
	TEST(test_one_file(&c), "one_file");
	TEST(test_by_hand(&c), "by_hand");
	TEST(test_nested(&c), "nested");
	TEST(test_empty_artifact(&c), "empty_artifact");
	TEST(test_missing_temp(&c), "missing_temp");
	TEST(test_adopt_why(&c), "adopt_why");
	TEST(test_adopt(&c), "adopt");
	TEST(test_adopt_rename_fails(&c), "adopt_rename_fails");
	TEST(test_adopt_append_fails(&c), "adopt_append_fails");
	for (size_t i = 0; i < ARRAY_SIZE(corruptions); i++)
		TEST(test_corruption(&c, &corruptions[i]), corruptions[i].name);
	TEST(test_manifest_bits(&c), "manifest_bits");
	TEST(test_remove(&c), "remove");
	TEST(test_store_repairs(&c), "store_repairs");
	TEST(test_label_lines(&c), "label_lines");
	cache_release(&c);
	TEST(test_lock_error(abs), "lock_error");
	TEST(test_adopt_read_only(abs), "adopt_read_only");
	TEST(test_lock_read_only(abs), "lock_read_only");
	free(dir);
	free(abs);
	free(tmp);
	return check_done();
}
