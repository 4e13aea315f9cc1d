/* Unit tests of cachemaint on small real caches: scan's entries (one file
 * each), bytes and temps; verify naming each kind of corrupt entry (a
 * flipped byte, a truncated file, a bad length line, another key's entry) and
 * the orphaned temps, and --repair removing them, entries
 * whose lock is held skipped as busy (held by a child, or by this process
 * through another open file description); prune by age and by size (least
 * recently used first), the grace period, held entries skipped, temps of dead
 * processes and old temps removed; sizes. A child's lock is sequenced through pipes. An old
 * held entry both prune passes reach is busy once; verify by another user
 * than root (a child dropped to uid 65534) of a cache it may only read checks
 * each entry without a lock error and finds a held one busy. The compilers'
 * memos under tools/: counted by scan, removed by an age limit only when
 * unused for it (a use's atime refreshes), their orphaned temps removed, the
 * learning runs' sources and other files left alone. */
#include "cache/cache.h"
#include "cache/cachemaint.h"
#include "check.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *tmpdir;

static void write_bytes(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);

	if (fd < 0 || write_all(fd, data, len) || close(fd))
		die("cannot write '%s'", path);
}

static int exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		die("cannot stat '%s'", path);
	return (uint64_t)st.st_size;
}

static void set_times(const char *path, double atime, double mtime)
{
	struct timespec ts[2] = {
		{ (time_t)atime, (long)((atime - (double)(time_t)atime) * 1e9) },
		{ (time_t)mtime, (long)((mtime - (double)(time_t)mtime) * 1e9) },
	};

	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW))
		die("cannot set the times of '%s': %s", path, strerror(errno));
}

static void make_key(const char *seed, char key[DIGEST_HEX_SIZE])
{
	digest_bytes_hex(seed, strlen(seed), key);
}

/* A fresh cache folder tmpdir/name. */
static void fresh_cache(struct cache *c, const char *name)
{
	char *dir = path_join(tmpdir, name);

	if (cache_init(c, dir))
		die("cannot set up '%s'", dir);
	free(dir);
}

/* Store len bytes of fill as entry key; returns the entry's bytes: its one
 * file, artifact and manifest. */
static uint64_t store(const struct cache *c, const char *key, size_t len, char fill)
{
	char *tmp = xstrfmt("%s/tmp/src.%.8s", c->dir, key), *data = xmalloc(len ? len : 1);
	char *m = cache_unit_path(c, key, ".m");
	uint64_t bytes;

	memset(data, fill, len);
	write_bytes(tmp, data, len);
	if (cache_unit_store(c, key, tmp, "unit 'x'", NULL, NULL))
		die("cannot store");
	unlink(tmp);
	bytes = file_size(m);
	if (bytes <= len)
		die("entry '%s' has no manifest", m);
	free(m);
	free(tmp);
	free(data);
	return bytes;
}

/* make_key(seed) into key, then store len bytes of fill as that entry. */
static uint64_t store_new(const struct cache *c, const char *seed, char key[DIGEST_HEX_SIZE],
			  size_t len, char fill)
{
	make_key(seed, key);
	return store(c, key, len, fill);
}

/* Make entry key last used at t. */
static void age_entry(const struct cache *c, const char *key, double t)
{
	char *m = cache_unit_path(c, key, ".m");

	set_times(m, t, t);
	free(m);
}

static int entry_present(const struct cache *c, const char *key)
{
	char *m = cache_unit_path(c, key, ".m");
	int ret = exists(m);

	free(m);
	return ret;
}

/* Entry key's file with the byte at off (from the start, or from the end
 * when negative) changed by f; or cut to len bytes when f is 0. */
static void damage(const struct cache *c, const char *key, long off, char f, size_t len)
{
	char *m = cache_unit_path(c, key, ".m"), *bytes;
	size_t n;

	if (read_file_all(m, &bytes, &n))
		die("cannot read '%s'", m);
	if (f)
		bytes[off < 0 ? (long)n + off : off] ^= f;
	else
		n = len;
	write_bytes(m, bytes, n);
	free(bytes);
	free(m);
}

/* A pid that is surely not running: a child's, reaped. */
/* A child process holding entry key's lock until holder_release. */
struct holder {
	pid_t pid;
	int go;		/* write end: a byte lets the child go */
};

static void holder_start(struct holder *h, const struct cache *c, const char *key)
{
	int ready[2], go[2];
	char byte;

	if (pipe(ready) || pipe(go))
		die("pipe: %s", strerror(errno));
	h->pid = fork();
	if (h->pid < 0)
		die("fork: %s", strerror(errno));
	if (!h->pid) {
		int fd;

		close(ready[0]);
		close(go[1]);
		fd = cache_lock_unit(c, key, 1, NULL);
		if (fd < 0)
			_exit(2);
		byte = 'L';
		if (write(ready[1], &byte, 1) != 1)
			_exit(3);
		/* Hold the lock until the parent says so (or dies: EOF). */
		(void)!read(go[0], &byte, 1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	h->go = go[1];
	if (read(ready[0], &byte, 1) != 1 || byte != 'L')
		die("the lock holder did not take the lock");
	close(ready[0]);
}

static void holder_release(struct holder *h)
{
	int status;

	(void)!write(h->go, "x", 1);
	close(h->go);
	if (waitpid(h->pid, &status, 0) != h->pid)
		die("waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_scan(void)
{
	struct cache c;
	struct cache_scan s;
	char k1[DIGEST_HEX_SIZE], k2[DIGEST_HEX_SIZE], k3[DIGEST_HEX_SIZE];
	char *p, *unknown;
	uint64_t b1, b2;
	long dead = check_dead_pid();
	double now = now_wall();
	int fd;

	fresh_cache(&c, "scan");
	make_key("three", k3);
	b1 = store_new(&c, "one", k1, 100, 'a');
	b2 = store_new(&c, "two", k2, 0, 'b');
	/* Locks leave nothing to scan: k3 (never published) is no entry. */
	fd = cache_lock_unit(&c, k3, 1, NULL);
	CHECK(fd >= 0);
	cache_unlock(fd);
	fd = cache_lock_unit(&c, k1, 1, NULL);
	CHECK(fd >= 0);
	cache_unlock(fd);

	/* Temps of each kind, and files that are none of kwarm's. */
	unknown = cache_unit_path(&c, k1, "");
	p = xstrfmt("%s.tmp.%ld.0123abcd", unknown, dead);
	write_bytes(p, "x", 1);
	free(p);
	free(unknown);
	p = xstrfmt("%s/tmp/probe.%ld", c.dir, dead);
	write_bytes(p, "", 0);
	free(p);
	unknown = xstrfmt("%s/tmp/somebody-elses", c.dir);
	write_bytes(unknown, "", 0);
	free(unknown);
	unknown = cache_unit_path(&c, k2, ".old");
	write_bytes(unknown, "", 0);
	free(unknown);

	cache_scan_init(&s);
	CHECK_INT(cache_scan_run(&s, &c), 0);
	CHECK_INT(s.nr_units, 2);
	CHECK_INT(s.nr_temps, 2);
	for (size_t i = 1; i < s.nr_units; i++)
		CHECK(strcmp(s.units[i - 1].key, s.units[i].key) < 0);
	for (size_t i = 0; i < s.nr_units; i++) {
		struct cache_unit_entry *u = &s.units[i];

		CHECK_INT(u->removed, 0);
		if (!strcmp(u->key, k1)) {
			CHECK_INT(u->bytes, b1);
			CHECK(u->last_use > now - 600);
		} else {
			CHECK_STR(u->key, k2);
			CHECK_INT(u->bytes, b2);
		}
	}
	{
		int probes = 0;

		for (size_t i = 0; i < s.nr_temps; i++) {
			const struct cache_temp *t = &s.temps[i];

			probes += strstr(t->path, "/" CACHE_PROBES_DIR "/probe.") != NULL;
			/* Each one is left behind: a dead process's. */
			CHECK(cache_temp_orphaned(t->pid, t->mtime, now));
			CHECK_INT(t->pid, dead);
		}
		CHECK_INT(probes, 1);	/* and the other a temp in units/ */
	}
	/* A second run starts over. */
	CHECK_INT(cache_scan_run(&s, &c), 0);
	CHECK_INT(s.nr_units, 2);
	CHECK_INT(s.nr_temps, 2);
	cache_scan_release(&s);
	CHECK(s.units == NULL && s.nr_units == 0);

	/* An empty folder with no units/ at all: nothing, no error. */
	{
		struct cache bare = { NULL };

		bare.dir = path_join(tmpdir, "no-such-cache");
		CHECK_INT(cache_scan_run(&s, &bare), 0);
		CHECK_INT(s.nr_units + s.nr_temps, 0);
		free(bare.dir);
	}
	cache_scan_release(&s);
	cache_release(&c);
}

static int verify(const struct cache *c, int repair, struct cache_verify_result *r, char **msg)
{
	int ret;

	check_capture_begin(2);
	ret = cache_verify(c, repair, r);
	*msg = check_capture_end(2);
	return ret;
}

/* The line verify prints for c's entry key, corrupt for reason why (caller frees). */
static char *corrupt_line(const struct cache *c, const char *key, const char *why)
{
	char *m = cache_unit_path(c, key, ".m");
	char *line = xstrfmt("kwarm: error: cache entry '%s' is corrupt: %s\n", m, why);

	free(m);
	return line;
}

/* Whether msg names entry key as corrupt for reason why. */
static int names_corrupt(const char *msg, const struct cache *c, const char *key,
			 const char *why)
{
	char *line = corrupt_line(c, key, why);
	int ret = strstr(msg, line) != NULL;

	if (!ret)
		fprintf(stderr, "  no line: %s", line);
	free(line);
	return ret;
}

static void test_verify(void)
{
	struct cache c;
	struct cache_verify_result r;
	char good[DIGEST_HEX_SIZE], flipped[DIGEST_HEX_SIZE], cut[DIGEST_HEX_SIZE];
	char length[DIGEST_HEX_SIZE], wrong[DIGEST_HEX_SIZE];
	char held[DIGEST_HEX_SIZE], mine[DIGEST_HEX_SIZE];
	char *p, *msg, *dead_temp, *live_temp;
	struct holder h;
	struct stat before, after;
	double old_time = now_wall() - 5 * 86400;
	int fd;

	fresh_cache(&c, "verify");
	make_key("wrong key", wrong);
	store_new(&c, "good", good, 64, 'g');
	store_new(&c, "flipped", flipped, 64, 'f');
	store_new(&c, "cut", cut, 64, 'c');
	store_new(&c, "length", length, 64, 'l');
	store_new(&c, "held", held, 64, 'h');
	store_new(&c, "mine", mine, 64, 'm');

	/* One artifact byte flipped, same size. */
	damage(&c, flipped, 63, 0x20, 0);
	/* Truncated within the artifact. */
	damage(&c, cut, 0, 0, 10);
	/* A digit of the length line changed. */
	damage(&c, length, -2, 0x01, 0);
	/* Another key's entry under this key. */
	{
		char *from = cache_unit_path(&c, good, ".m"), *to = cache_unit_path(&c, wrong, ".m");
		char *bytes;
		size_t n;

		if (read_file_all(from, &bytes, &n))
			die("cannot read '%s'", from);
		p = path_dirname(to);
		CHECK_INT(mkdir_p(p), 0);
		free(p);
		write_bytes(to, bytes, n);
		free(bytes);
		free(from);
		free(to);
	}
	/* A temp of a dead process, and one of a live one (this). */
	dead_temp = xstrfmt("%s/tmp/probe.%ld", c.dir, check_dead_pid());
	write_bytes(dead_temp, "", 0);
	live_temp = xstrfmt("%s/tmp/probe.%ld", c.dir, (long)getpid());
	write_bytes(live_temp, "", 0);
	/* The good entry used long ago: verify must not make it look used. */
	age_entry(&c, good, old_time);
	p = cache_unit_path(&c, good, ".m");
	CHECK_INT(stat(p, &before), 0);

	/* held: by a child; mine: by this process, through another open file
	 * description than verify's. Both are busy, and skipped. */
	holder_start(&h, &c, held);
	fd = cache_lock_unit(&c, mine, 1, NULL);
	CHECK(fd >= 0);
	CHECK_INT(verify(&c, 0, &r, &msg), 0);
	cache_unlock(fd);
	holder_release(&h);
	CHECK_INT(r.checked, 5);	/* good, flipped, cut, length, wrong */
	CHECK_INT(r.busy, 2);
	CHECK_INT(r.bad, 5);	/* 4 corrupt entries, the dead temp */
	CHECK_INT(r.removed, 0);
	CHECK(names_corrupt(msg, &c, flipped, "artifact SHA-256 differs from its manifest"));
	CHECK(names_corrupt(msg, &c, cut, "no manifest at its end (truncated?)"));
	CHECK(names_corrupt(msg, &c, length, "unknown entry schema"));
	CHECK(names_corrupt(msg, &c, wrong, "manifest names another key"));
	CHECK_HAS(msg, dead_temp);
	CHECK(strstr(msg, live_temp) == NULL);
	CHECK(strstr(msg, good) == NULL);
	CHECK(strstr(msg, held) == NULL);
	CHECK(strstr(msg, mine) == NULL);
	/* Nothing removed without repair. */
	CHECK(entry_present(&c, flipped) && entry_present(&c, cut) && entry_present(&c, length));
	CHECK(entry_present(&c, wrong));
	CHECK(exists(dead_temp));
	free(msg);
	CHECK_INT(stat(p, &after), 0);
	CHECK_INT(after.st_atim.tv_sec, before.st_atim.tv_sec);
	CHECK_INT(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	free(p);

	/* Repair: the bad ones go, the good and the (no longer) held stay. */
	CHECK_INT(verify(&c, 1, &r, &msg), 0);
	free(msg);
	CHECK_INT(r.checked, 7);
	CHECK_INT(r.busy, 0);
	CHECK_INT(r.bad, 5);
	CHECK_INT(r.removed, 5);
	CHECK(!entry_present(&c, flipped));
	CHECK(!entry_present(&c, cut));
	CHECK(!entry_present(&c, length));
	CHECK(!entry_present(&c, wrong));
	CHECK(!exists(dead_temp));
	CHECK(exists(live_temp));
	CHECK_INT(cache_unit_check(&c, good, 0), 1);
	CHECK_INT(cache_unit_check(&c, held, 0), 1);
	CHECK_INT(cache_unit_check(&c, mine, 0), 1);

	/* Now all is well. */
	CHECK_INT(verify(&c, 0, &r, &msg), 0);
	CHECK_STR(msg, "");
	free(msg);
	CHECK_INT(r.checked, 3);
	CHECK_INT(r.bad, 0);

	unlink(live_temp);
	free(dead_temp);
	free(live_temp);
	cache_release(&c);
}

static int prune(const struct cache *c, double max_age, uint64_t max_size,
		 struct cache_prune_result *r)
{
	struct cache_prune_options o = { max_age, max_size, now_wall() };

	return cache_prune(c, &o, r);
}

static void test_prune_age(void)
{
	struct cache c;
	struct cache_prune_result r;
	char old[DIGEST_HEX_SIZE], hours[DIGEST_HEX_SIZE], recent[DIGEST_HEX_SIZE];
	char read_recently[DIGEST_HEX_SIZE];
	double now = now_wall();
	uint64_t b_old, b_hours, total;
	char *m;
	int fd;

	fresh_cache(&c, "age");
	b_old = store_new(&c, "old", old, 1000, 'o');
	b_hours = store_new(&c, "hours", hours, 1000, 'h');
	total = store_new(&c, "recent", recent, 1000, 'r');
	total += store_new(&c, "read recently", read_recently, 1000, 'x');
	age_entry(&c, old, now - 10 * 86400);
	age_entry(&c, hours, now - 2 * 3600);
	age_entry(&c, recent, now - 600);
	/* Written long ago, but its manifest was read (atime) a minute ago. */
	age_entry(&c, read_recently, now - 10 * 86400);
	m = cache_unit_path(&c, read_recently, ".m");
	set_times(m, now - 60, now - 10 * 86400);
	free(m);

	/* No limits: nothing goes. */
	CHECK_INT(prune(&c, -1, 0, &r), 0);
	CHECK_INT(r.units, 0);
	CHECK_INT(r.total_after, total + b_old + b_hours);

	/* Older than a day, but held (by a compile republishing it, say): kept. */
	fd = cache_lock_unit(&c, old, 1, NULL);
	CHECK(fd >= 0);
	CHECK_INT(prune(&c, 86400, 0, &r), 0);
	cache_unlock(fd);
	CHECK_INT(r.units, 0);
	CHECK_INT(r.busy, 1);
	CHECK(entry_present(&c, old));
	CHECK_INT(r.total_after, total + b_old + b_hours);

	/* Older than a day: only the 10-day one. */
	CHECK_INT(prune(&c, 86400, 0, &r), 0);
	CHECK_INT(r.busy, 0);
	CHECK_INT(r.units, 1);
	CHECK_INT(r.bytes, b_old);
	CHECK(!entry_present(&c, old));
	CHECK(entry_present(&c, hours));
	/* Nothing of it is left: its folder holds no other file. */
	m = cache_unit_path(&c, old, ".m");
	{
		char *dir = path_dirname(m);

		CHECK(rmdir(dir) == 0 || errno == ENOENT);
		free(dir);
	}
	free(m);

	/* max_age 0: everything older than the grace hour, not the 10-minute one. */
	CHECK_INT(prune(&c, 0, 0, &r), 0);
	CHECK_INT(r.units, 1);
	CHECK_INT(r.bytes, b_hours);
	CHECK(!entry_present(&c, hours));
	CHECK(entry_present(&c, recent));
	CHECK(entry_present(&c, read_recently));
	CHECK_INT(r.total_after, total);
	cache_release(&c);
}

static void test_prune_size(void)
{
	struct cache c;
	struct cache_prune_result r;
	char k[5][DIGEST_HEX_SIZE];
	uint64_t b[5], total = 0;
	double now = now_wall();
	struct holder h;
	int fd;

	fresh_cache(&c, "size");
	for (int i = 0; i < 5; i++) {
		char seed[16];

		snprintf(seed, sizeof(seed), "size%d", i);
		b[i] = store_new(&c, seed, k[i], 1000, (char)('0' + i));
		total += b[i];
	}
	/* Use order, oldest first: k[3], k[1], k[0], k[2]; k[4] within the grace. */
	age_entry(&c, k[3], now - 40 * 86400);
	age_entry(&c, k[1], now - 30 * 86400);
	age_entry(&c, k[0], now - 20 * 86400);
	age_entry(&c, k[2], now - 10 * 86400);
	age_entry(&c, k[4], now - 60);

	/* Room for all but one: the least recently used goes. */
	CHECK_INT(prune(&c, -1, total - 1, &r), 0);
	CHECK_INT(r.units, 1);
	CHECK(!entry_present(&c, k[3]));
	CHECK_INT(r.total_after, total - b[3]);
	total -= b[3];

	/* Under the limit: nothing. */
	CHECK_INT(prune(&c, -1, total, &r), 0);
	CHECK_INT(r.units, 0);

	/* The next in line is held by a compile: skipped, the one after goes. */
	holder_start(&h, &c, k[1]);
	CHECK_INT(prune(&c, -1, total - 1, &r), 0);
	holder_release(&h);
	CHECK_INT(r.busy, 1);
	CHECK_INT(r.units, 1);
	CHECK(entry_present(&c, k[1]));
	CHECK(!entry_present(&c, k[0]));
	total -= b[0];
	CHECK_INT(r.total_after, total);

	/* The same with the lock held by this process (prune's own open file
	 * description is another): k[1] is skipped again, k[2] goes. */
	fd = cache_lock_unit(&c, k[1], 1, NULL);
	CHECK(fd >= 0);
	CHECK_INT(prune(&c, -1, total - 1, &r), 0);
	cache_unlock(fd);
	CHECK_INT(r.busy, 1);
	CHECK_INT(r.units, 1);
	CHECK(entry_present(&c, k[1]));
	CHECK(!entry_present(&c, k[2]));
	CHECK_INT(r.bytes, b[2]);
	total -= b[2];
	CHECK_INT(r.total_after, total);

	/* A limit of one byte: all but the one used within the grace hour. */
	CHECK_INT(prune(&c, -1, 1, &r), 0);
	CHECK_INT(r.units, 1);
	CHECK_INT(r.busy, 0);
	CHECK(!entry_present(&c, k[1]));
	CHECK(entry_present(&c, k[4]));
	CHECK_INT(r.total_after, b[4]);
	CHECK_INT(cache_unit_check(&c, k[4], 0), 1);
	cache_release(&c);
}

static void test_prune_leftovers(void)
{
	struct cache c;
	struct cache_prune_result r;
	char held[DIGEST_HEX_SIZE], kept[DIGEST_HEX_SIZE];
	char *stem, *pub, *probe, *live, *old_live;
	long dead = check_dead_pid();
	struct holder h;
	double now = now_wall();

	fresh_cache(&c, "leftovers");
	store_new(&c, "kept", kept, 10, 'k');
	store_new(&c, "held", held, 10, 'h');

	stem = cache_unit_path(&c, kept, "");
	pub = xstrfmt("%s.tmp.%ld.89abcdef", stem, dead);
	write_bytes(pub, "half", 4);
	probe = xstrfmt("%s/tmp/probe.%ld", c.dir, dead);
	write_bytes(probe, "", 0);
	/* Temps of a live process: kept while fresh, removed when over a day old. */
	live = xstrfmt("%s.tmp.%ld.00000a00", stem, (long)getpid());
	write_bytes(live, "o", 1);
	old_live = xstrfmt("%s/tmp/probe.%ld", c.dir, (long)getpid());
	write_bytes(old_live, "", 0);
	set_times(old_live, now - 2 * 86400, now - 2 * 86400);

	/* No age or size limit: only what is left behind goes. */
	holder_start(&h, &c, held);
	CHECK_INT(prune(&c, -1, 0, &r), 0);
	holder_release(&h);
	CHECK_INT(r.units, 0);
	CHECK_INT(r.busy, 0);	/* no entry was a candidate */
	/* publish temp, probe, the old live probe */
	CHECK_INT(r.temps, 3);
	CHECK(!exists(pub));
	CHECK(!exists(probe));
	CHECK(!exists(old_live));
	CHECK(exists(live));
	CHECK_INT(cache_unit_check(&c, kept, 0), 1);
	CHECK_INT(cache_unit_check(&c, held, 0), 1);

	/* Again: nothing left to remove. */
	CHECK_INT(prune(&c, -1, 0, &r), 0);
	CHECK_INT(r.temps, 0);
	CHECK_INT(r.units, 0);
	CHECK(entry_present(&c, kept) && entry_present(&c, held));

	unlink(live);
	free(stem);
	free(pub);
	free(probe);
	free(live);
	free(old_live);
	cache_release(&c);
}

static void test_prune_memos(void)
{
	struct cache c;
	struct cache_scan s;
	struct cache_prune_result r;
	char hex[DIGEST_HEX_SIZE];
	char *tools, *old_id, *old_list, *used, *fresh, *empty, *other, *temp;
	double now = now_wall();

	fresh_cache(&c, "memos");
	tools = path_join(c.dir, CACHE_TOOLS_DIR);
	CHECK_INT(mkdir_p(tools), 0);
	make_key("memo", hex);
	old_id = xstrfmt("%s/%s", tools, hex);
	old_list = xstrfmt("%s/search-%s", tools, hex);
	make_key("used", hex);
	used = xstrfmt("%s/search-%s", tools, hex);
	make_key("fresh", hex);
	fresh = xstrfmt("%s/search-%s", tools, hex);
	empty = xstrfmt("%s/empty.cpp", tools);
	other = xstrfmt("%s/search-notahexname", tools);
	temp = xstrfmt("%s.tmp.%ld.0000000a", fresh, check_dead_pid());
	write_bytes(old_id, "id", 2);
	write_bytes(old_list, "list", 4);
	write_bytes(used, "used", 4);
	write_bytes(fresh, "fresh", 5);
	write_bytes(empty, "", 0);
	write_bytes(other, "x", 1);
	write_bytes(temp, "half", 4);
	set_times(old_id, now - 30 * 86400, now - 30 * 86400);
	set_times(old_list, now - 30 * 86400, now - 30 * 86400);
	set_times(empty, now - 30 * 86400, now - 30 * 86400);
	set_times(other, now - 30 * 86400, now - 30 * 86400);
	set_times(used, now - 60, now - 30 * 86400);

	cache_scan_init(&s);
	CHECK_INT(cache_scan_run(&s, &c), 0);
	CHECK_INT(s.nr_memos, 4);
	CHECK_INT(s.nr_temps, 1);
	cache_scan_release(&s);

	/* No age limit: memos stay, the dead process's temp goes. */
	CHECK_INT(prune(&c, -1, 0, &r), 0);
	CHECK_INT(r.memos, 0);
	CHECK_INT(r.temps, 1);
	CHECK(!exists(temp));
	CHECK(exists(old_id) && exists(old_list));

	CHECK_INT(prune(&c, 14 * 86400, 0, &r), 0);
	CHECK_INT(r.memos, 2);
	CHECK_INT(r.units, 0);
	CHECK(!exists(old_id) && !exists(old_list));
	CHECK(exists(used) && exists(fresh) && exists(empty) && exists(other));

	free(tools);
	free(old_id);
	free(old_list);
	free(used);
	free(fresh);
	free(empty);
	free(other);
	free(temp);
	cache_release(&c);
}

/* An old entry a compile holds, with both an age and a size limit: both
 * passes come to it, and it is busy once. Released, it goes. */
static void test_prune_busy_once(void)
{
	struct cache c;
	struct cache_prune_result r;
	char held[DIGEST_HEX_SIZE], free_old[DIGEST_HEX_SIZE];
	double now = now_wall();
	uint64_t b_held;
	int fd;

	fresh_cache(&c, "busy-once");
	make_key("old, free", free_old);
	b_held = store_new(&c, "held by a compile", held, 100, 'h');
	age_entry(&c, held, now - 10 * 86400);

	fd = cache_lock_unit(&c, held, 1, NULL);
	CHECK(fd >= 0);
	CHECK_INT(prune(&c, 60, 1, &r), 0);
	CHECK_INT(r.busy, 1);
	CHECK_INT(r.units, 0);
	CHECK(entry_present(&c, held));
	CHECK_INT(r.total_after, b_held);

	/* Beside an old entry nobody holds: that one goes, the held one is
	 * still busy once. */
	store(&c, free_old, 100, 'f');
	age_entry(&c, free_old, now - 20 * 86400);
	CHECK_INT(prune(&c, 60, 1, &r), 0);
	cache_unlock(fd);
	CHECK_INT(r.busy, 1);
	CHECK_INT(r.units, 1);
	CHECK(!entry_present(&c, free_old));
	CHECK(entry_present(&c, held));

	CHECK_INT(prune(&c, 60, 1, &r), 0);
	CHECK_INT(r.busy, 0);
	CHECK_INT(r.units, 1);
	CHECK_INT(r.bytes, b_held);
	CHECK(!entry_present(&c, held));
	cache_release(&c);
}

/* Read exactly n bytes of fd into p; 1, or 0 at an early end or an error. */
static int read_exact(int fd, void *p, size_t n)
{
	char *at = p;

	while (n) {
		ssize_t got = read(fd, at, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		at += got;
		n -= (size_t)got;
	}
	return 1;
}

/* cache_verify of c in a child that becomes CHECK_NOBODY (after closing
 * keep_out, the parent's lock fd, or -1): its return in *ret, its result in
 * *r and what it printed to stderr in *msg (caller frees). 0, or -1 when the
 * child could not become CHECK_NOBODY (*msg is then NULL). */
static int verify_as_nobody(const struct cache *c, int keep_out, int *ret,
			    struct cache_verify_result *r, char **msg)
{
	int to_parent[2], code, whole;
	char *got, *printed;
	pid_t pid;

	*msg = NULL;
	pid = check_fork_piped(to_parent);
	if (!pid) {
		close(to_parent[0]);
		if (keep_out >= 0)
			close(keep_out);	/* the parent's lock stays with the parent's fd */
		if (check_become_nobody())
			_exit(CHECK_NOT_NOBODY);
		*ret = verify(c, 0, r, &printed);
		if (write_all(to_parent[1], ret, sizeof(*ret)) ||
		    write_all(to_parent[1], r, sizeof(*r)) ||
		    write_all(to_parent[1], printed, strlen(printed)))
			_exit(3);
		_exit(0);
	}
	close(to_parent[1]);
	memset(r, 0, sizeof(*r));
	*ret = -99;
	whole = read_exact(to_parent[0], ret, sizeof(*ret)) &&
		read_exact(to_parent[0], r, sizeof(*r));
	got = check_read_to_end(to_parent[0]);
	close(to_parent[0]);
	code = check_child_status(pid);
	if (code == CHECK_NOT_NOBODY) {
		free(got);
		return -1;
	}
	CHECK_INT(code, 0);
	CHECK(whole);
	*msg = got;
	return 0;
}

/* verify of a cache this user may only read (another user's: entries.lock
 * root's with mode 0644, its folder not writable): each entry is still
 * checked, under a read lock, without a "cannot open lock" error, and an
 * entry a compile holds (this process's write lock) is busy. */
static void test_verify_read_only(void)
{
	struct cache c;
	struct cache_verify_result r;
	char good[DIGEST_HEX_SIZE], bad[DIGEST_HEX_SIZE], held[DIGEST_HEX_SIZE];
	char *lock, *line, *msg;
	mode_t old_umask = umask(022);	/* the entries readable by others */
	int fd, ret;
	struct stat st;

	fresh_cache(&c, "verify-ro");
	store_new(&c, "ro good", good, 64, 'g');
	store_new(&c, "ro bad", bad, 64, 'b');
	store_new(&c, "ro held", held, 64, 'h');
	damage(&c, bad, 10, 0x20, 0);
	lock = path_join(c.dir, CACHE_LOCK_FILE);
	fd = cache_lock_unit(&c, held, 1, NULL);	/* a compile; creates entries.lock */
	CHECK(fd >= 0);
	if (chmod(lock, 0644) || chmod(c.dir, 0755) || stat(lock, &st))
		die("cannot set up '%s': %s", lock, strerror(errno));
	if (verify_as_nobody(&c, fd, &ret, &r, &msg)) {
		printf("note: test_verify_read_only skipped: cannot become uid %d\n", CHECK_NOBODY);
	} else {
		CHECK_INT(st.st_uid, 0);
		CHECK_INT(ret, 0);
		CHECK_INT(r.checked, 2);	/* good, bad */
		CHECK_INT(r.busy, 1);		/* held */
		CHECK_INT(r.bad, 1);
		CHECK_INT(r.removed, 0);
		/* The one corrupt entry named, and nothing else: no lock error. */
		line = corrupt_line(&c, bad, "artifact SHA-256 differs from its manifest");
		CHECK_STR(msg, line);
		free(line);
	}
	cache_unlock(fd);
	umask(old_umask);
	free(msg);
	free(lock);
	cache_release(&c);
}

/* A cache another user made and never compiled in has no entries.lock, and
 * this user cannot create one: nobody can hold a lock there, so verify checks
 * every entry and says nothing about locks. */
static void test_verify_no_lock_file(void)
{
	struct cache c;
	struct cache_verify_result r;
	char good[DIGEST_HEX_SIZE], bad[DIGEST_HEX_SIZE];
	char *lock, *line, *msg;
	mode_t old_umask = umask(022);
	int ret;

	fresh_cache(&c, "verify-nolock");
	store_new(&c, "nolock good", good, 64, 'g');
	store_new(&c, "nolock bad", bad, 64, 'b');
	damage(&c, bad, 10, 0x20, 0);
	lock = path_join(c.dir, CACHE_LOCK_FILE);
	if ((unlink(lock) && errno != ENOENT) || chmod(c.dir, 0755))
		die("cannot set up '%s': %s", c.dir, strerror(errno));
	if (verify_as_nobody(&c, -1, &ret, &r, &msg)) {
		printf("note: test_verify_no_lock_file skipped: cannot become uid %d\n", CHECK_NOBODY);
	} else {
		CHECK_INT(ret, 0);
		CHECK_INT(r.checked, 2);
		CHECK_INT(r.busy, 0);
		CHECK_INT(r.bad, 1);
		line = corrupt_line(&c, bad, "artifact SHA-256 differs from its manifest");
		CHECK_STR(msg, line);
		CHECK(access(lock, F_OK) != 0);	/* and none was made */
		free(line);
	}
	umask(old_umask);
	free(msg);
	free(lock);
	cache_release(&c);
}

static void test_parse_size(void)
{
	static const struct { const char *s; uint64_t want; } good[] = {
		{ "0", 0 }, { "123", 123 }, { "123B", 123 }, { "1K", 1024 }, { "1k", 1024 },
		{ "500M", 500ull << 20 }, { "2G", 2ull << 30 }, { "2GB", 2ull << 30 },
		{ "2GiB", 2ull << 30 }, { "1T", 1ull << 40 },
		{ "16777215T", 16777215ull << 40 },
	};
	static const char *const bad[] = {
		"", "K", "-1", "1.5G", "1X", "1 G", "1GG", "1iB", "1Bi", "17179869184G",
		"18446744073709551616", "99999999999999999999",
	};
	uint64_t v;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		v = 7;
		if (!CHECK_INT(cache_parse_size(good[i].s, &v), 0))
			fprintf(stderr, "  for \"%s\"\n", good[i].s);
		CHECK(v == good[i].want);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 7;
		if (!CHECK_INT(cache_parse_size(bad[i], &v), -1))
			fprintf(stderr, "  for \"%s\"\n", bad[i]);
		CHECK(v == 7);
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("cachemaint");
	TEST(test_scan(), "scan");
	TEST(test_verify(), "verify");
	TEST(test_prune_age(), "prune_age");
	TEST(test_prune_size(), "prune_size");
	TEST(test_prune_leftovers(), "prune_leftovers");
	TEST(test_prune_busy_once(), "prune_busy_once");
	TEST(test_prune_memos(), "prune_memos");
	TEST(test_verify_read_only(), "verify_read_only");
	TEST(test_verify_no_lock_file(), "verify_no_lock_file");
	TEST(test_parse_size(), "parse_size");
	free(tmpdir);
	return check_done();
}
