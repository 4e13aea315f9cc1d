/* cachemaint: scan, verify and prune a cache folder.
 *
 * Nothing here holds a lock longer than one entry: a warm-up that wants an
 * entry prune is removing waits for that entry alone, then finds it missing
 * and compiles it. A compile in progress holds its entry's lock, so prune and
 * verify skip it rather than remove a half-published entry from under it.
 */
#include "cache/cachemaint.h"
#include "cache/cachelog.h"
#include "path.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double ts_seconds(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

static double last_use(const struct stat *st)
{
	double a = ts_seconds(&st->st_atim), m = ts_seconds(&st->st_mtim);

	return a > m ? a : m;
}

static void add_temp(struct cache_scan *s, const char *path, long pid, const struct stat *st)
{
	ALLOC_GROW(s->temps, s->nr_temps + 1, s->alloc_temps);
	s->temps[s->nr_temps++] = (struct cache_temp){ .path = xstrdup(path), .pid = pid,
						       .mtime = ts_seconds(&st->st_mtim) };
}

void cache_scan_init(struct cache_scan *s)
{
	memset(s, 0, sizeof(*s));
}

void cache_scan_release(struct cache_scan *s)
{
	for (size_t i = 0; i < s->nr_temps; i++)
		free(s->temps[i].path);
	for (size_t i = 0; i < s->nr_memos; i++)
		free(s->memos[i].path);
	free(s->units);
	free(s->temps);
	free(s->memos);
	cache_scan_init(s);
}

static void add_unit(struct cache_scan *s, const char *key, const struct stat *st)
{
	struct cache_unit_entry *u;

	ALLOC_GROW(s->units, s->nr_units + 1, s->alloc_units);
	u = &s->units[s->nr_units++];
	*u = (struct cache_unit_entry){ .bytes = (uint64_t)st->st_size, .last_use = last_use(st) };
	memcpy(u->key, key, DIGEST_HEX_SIZE);
}

/* Called for each file of a folder scan_dir reads (st NULL when the file
 * cannot be looked at); 0, or -1 after reporting. */
typedef int (*scan_file_fn)(struct cache_scan *s, const char *path, const char *name,
			    const struct stat *st);

/* Call fn for each file of dir. 0, or -1 after reporting (the scan goes on);
 * a missing dir (and with quiet_notdir a file in its place) is empty. */
static int scan_dir(struct cache_scan *s, const char *dir, scan_file_fn fn, int quiet_notdir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return errno == ENOENT || (quiet_notdir && errno == ENOTDIR) ? 0 :
		       error_errno("cannot read '%s'", dir);
	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		path = path_join(dir, de->d_name);
		if (fn(s, path, de->d_name, lstat(path, &st) ? NULL : &st))
			ret = -1;
		free(path);
	}
	closedir(d);
	return ret;
}

static int scan_unit_file(struct cache_scan *s, const char *path, const char *name,
			  const struct stat *st)
{
	char key[DIGEST_HEX_SIZE];
	long pid = cache_temp_name_pid(name);

	/* Other files are none of kwarm's: left alone. */
	if (st && pid >= 0)
		add_temp(s, path, pid, st);
	else if (st && S_ISREG(st->st_mode) && cache_entry_name_key(name, key))
		add_unit(s, key, st);
	return 0;
}

/* A sub-folder of units/ (units/<k0>). */
static int scan_unit_folder(struct cache_scan *s, const char *path, const char *name,
			    const struct stat *st)
{
	(void)st;
	return name[0] == '.' ? 0 : scan_dir(s, path, scan_unit_file, 1);
}

static int scan_probe_file(struct cache_scan *s, const char *path, const char *name,
			   const struct stat *st)
{
	long pid = cache_probe_name_pid(name);

	if (pid >= 0 && st)
		add_temp(s, path, pid, st);
	return 0;
}

/* A file of tools/: a memo ("<64 hex>" or "search-<64 hex>"), a memo's temp,
 * or another file (the learning runs' empty sources: left alone). */
static int scan_tools_file(struct cache_scan *s, const char *path, const char *name,
			   const struct stat *st)
{
	long pid = cache_temp_name_pid(name);
	const char *hex = starts_with(name, "search-") ? name + 7 : name;

	if (st && pid >= 0) {
		add_temp(s, path, pid, st);
	} else if (st && S_ISREG(st->st_mode) && strlen(hex) == 64 &&
		   strspn(hex, "0123456789abcdef") == 64) {
		ALLOC_GROW(s->memos, s->nr_memos + 1, s->alloc_memos);
		s->memos[s->nr_memos++] = (struct cache_memo){ .path = xstrdup(path),
			.bytes = (uint64_t)st->st_size, .last_use = last_use(st) };
	}
	return 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct cache_unit_entry *)a)->key,
		      ((const struct cache_unit_entry *)b)->key);
}

int cache_scan_run(struct cache_scan *s, const struct cache *c)
{
	char *units = path_join(c->dir, CACHE_UNITS_DIR), *tmp = path_join(c->dir, CACHE_PROBES_DIR);
	char *tools = path_join(c->dir, CACHE_TOOLS_DIR);
	int ret = 0;

	cache_scan_release(s);
	if (scan_dir(s, units, scan_unit_folder, 0) || scan_dir(s, tmp, scan_probe_file, 0) ||
	    scan_dir(s, tools, scan_tools_file, 0))
		ret = -1;
	if (s->nr_units)
		qsort(s->units, s->nr_units, sizeof(*s->units), by_key);
	free(units);
	free(tmp);
	free(tools);
	return ret;
}

static int remove_temp(const struct cache_temp *t)
{
	if (unlink(t->path) && errno != ENOENT)
		return error_errno("cannot remove '%s'", t->path);
	return 0;
}

/* Check one unit entry with its lock held, keeping its use time; 1 good,
 * 0 gone, -1 bad (reported). */
static int check_unit(const struct cache *c, const struct cache_unit_entry *u)
{
	char *mpath = cache_unit_path(c, u->key, CACHE_ENTRY_SUFFIX);
	struct stat st;
	int ret, have_st = !stat(mpath, &st);

	ret = cache_unit_check(c, u->key, 1);
	if (have_st) {
		struct timespec ts[2] = { st.st_atim, { 0, UTIME_OMIT } };

		(void)utimensat(AT_FDCWD, mpath, ts, 0);
	}
	free(mpath);
	return ret;
}

int cache_verify(const struct cache *c, int repair, struct cache_verify_result *r)
{
	struct cache_scan s;
	double now = now_wall();
	int ret;

	memset(r, 0, sizeof(*r));
	cache_scan_init(&s);
	ret = cache_scan_run(&s, c);
	for (size_t i = 0; i < s.nr_units; i++) {
		const struct cache_unit_entry *u = &s.units[i];
		int fd = cache_lock_unit(c, u->key, 0, NULL);

		if (fd == -1) {
			r->busy++;
			continue;
		}
		/* Without a lock (a read-only cache) the check still tells. */
		r->checked++;
		if (check_unit(c, u) < 0) {
			r->bad++;
			if (repair && !cache_unit_remove(c, u->key)) {
				r->removed++;
				cachelog_event(c->dir, "corrupt", u->key, 0, 0);
			}
		}
		cache_unlock(fd);
	}
	for (size_t i = 0; i < s.nr_temps; i++) {
		const struct cache_temp *t = &s.temps[i];

		if (!cache_temp_orphaned(t->pid, t->mtime, now))
			continue;
		r->bad++;
		error("orphaned temp '%s' (its process %ld is gone or it is over a day old)",
		      t->path, t->pid);
		if (repair && !remove_temp(t))
			r->removed++;
	}
	cache_scan_release(&s);
	return ret;
}

/* Removed entries last, the others least recently used first. */
static int by_last_use(const void *a, const void *b)
{
	const struct cache_unit_entry *x = a, *y = b;

	if (x->removed != y->removed)
		return x->removed - y->removed;
	if (x->last_use != y->last_use)
		return x->last_use < y->last_use ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* The entry's last use now (a pack may have used it since the scan). */
static double current_last_use(const struct cache *c, const struct cache_unit_entry *u)
{
	char *mpath = cache_unit_path(c, u->key, CACHE_ENTRY_SUFFIX);
	struct stat st;
	double t = u->last_use;

	if (!stat(mpath, &st))
		t = last_use(&st);
	free(mpath);
	return t;
}

/* Remove unit u when nobody holds its lock and it is still unused since
 * before limit: 1 removed, 0 kept (busy or used), -1 error (reported). */
static int prune_unit(const struct cache *c, struct cache_unit_entry *u, double limit,
		      struct cache_prune_result *r)
{
	int fd = cache_lock_unit(c, u->key, 0, NULL), ret;

	if (fd == -1) {
		/* Once per entry, though both passes may find it held. */
		r->busy += !u->busy;
		u->busy = 1;
		return 0;
	}
	if (fd < 0)
		return -1;
	ret = current_last_use(c, u) < limit;
	if (ret && cache_unit_remove(c, u->key))
		ret = -1;
	cache_unlock(fd);
	if (ret > 0) {
		r->units++;
		r->bytes += u->bytes;
	}
	return ret;
}

int cache_prune(const struct cache *c, const struct cache_prune_options *o,
		struct cache_prune_result *r)
{
	struct cache_scan s;
	double grace_limit = o->now - CACHE_PRUNE_GRACE, age_limit = grace_limit;
	uint64_t total = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	if (o->max_age >= 0 && o->now - o->max_age < age_limit)
		age_limit = o->now - o->max_age;
	cache_scan_init(&s);
	ret = cache_scan_run(&s, c);

	/* By age. */
	for (size_t i = 0; i < s.nr_units; i++) {
		struct cache_unit_entry *u = &s.units[i];

		int done;

		if (o->max_age < 0 || u->last_use >= age_limit)
			continue;
		done = prune_unit(c, u, age_limit, r);
		if (done < 0)
			ret = -1;
		u->removed = done > 0;
	}

	/* By size, least recently used first. */
	for (size_t i = 0; i < s.nr_units; i++)
		total += s.units[i].removed ? 0 : s.units[i].bytes;
	if (o->max_size && total > o->max_size) {
		qsort(s.units, s.nr_units, sizeof(*s.units), by_last_use);
		for (size_t i = 0; i < s.nr_units && total > o->max_size; i++) {
			uint64_t bytes = s.units[i].bytes;
			int done;

			if (s.units[i].removed || s.units[i].last_use >= grace_limit)
				break;	/* sorted: the rest are recent too, or gone */
			done = prune_unit(c, &s.units[i], grace_limit, r);
			if (done < 0)
				ret = -1;
			else if (done)
				total -= bytes;
		}
	}
	r->total_after = total;

	/* Orphaned temps. */
	for (size_t i = 0; i < s.nr_temps; i++) {
		if (!cache_temp_orphaned(s.temps[i].pid, s.temps[i].mtime, o->now))
			continue;
		if (remove_temp(&s.temps[i]))
			ret = -1;
		else
			r->temps++;
	}

	/* Memos by age: one in use that goes is made again by the next step
	 * that needs it (a memo is read whole or not at all). */
	for (size_t i = 0; o->max_age >= 0 && i < s.nr_memos; i++) {
		if (s.memos[i].last_use >= age_limit)
			continue;
		if (unlink(s.memos[i].path) && errno != ENOENT)
			ret = error_errno("cannot remove '%s'", s.memos[i].path);
		else
			r->memos++;
	}
	cache_scan_release(&s);
	return ret;
}

int cache_parse_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	uint64_t v = 0, mul = 1;
	const char *p = s, *u;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p && (u = strchr(units, *p >= 'a' ? *p - 32 : *p))) {
		for (const char *q = units; q <= u; q++)
			mul *= 1024;
		p++;
		if (*p == 'i')
			p++;
	}
	if (*p == 'B')
		p++;
	if (*p || (mul > 1 && v > UINT64_MAX / mul))
		return -1;
	*bytes = v * mul;
	return 0;
}
