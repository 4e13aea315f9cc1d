#include "report/runstate.h"
#include "buf.h"
#include "cache/cache.h"
#include "path.h"
#include "report/runid.h"
#include "report/trace.h"
#include "plan/planfile.h"
#include "publish.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int runstate_lock(const struct runstate *rs)
{
	char *path = path_join(rs->kw_dir, "state.lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

	free(path);
	if (fd < 0)
		return -1;
	if (flock_retry(fd, LOCK_EX)) {
		close(fd);
		return -1;
	}
	return fd;
}

void runstate_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

/* Remove a run folder (its files are one level deep). */
static void remove_run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	rmdir(dir);
}

void runstate_other_runs(const struct runstate *rs, struct strvec *tags)
{
	char *runs = path_join(rs->kw_dir, "run");
	DIR *d = opendir(runs);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, rs->tag))
			strvec_push(tags, de->d_name);
	if (d)
		closedir(d);
	free(runs);
}

/* Remove the folders of runs whose make has ended. */
static void remove_ended_runs(const struct runstate *rs)
{
	struct strvec tags;

	strvec_init(&tags);
	runstate_other_runs(rs, &tags);
	for (size_t i = 0; i < tags.nr; i++)
		if (!runid_alive(tags.v[i])) {
			char *p = xstrfmt("%s/run/%s", rs->kw_dir, tags.v[i]);

			remove_run_dir(p);
			free(p);
		}
	strvec_release(&tags);
}

/* Remove the temps that packs, summaries and new traces killed before their
 * rename left: once a run, as OUT holds a callable per callable (one folder
 * down when a class has several, plan.c). A temp of a pack killed in this
 * run stays until the next. */
static void remove_orphaned_temps(const struct runstate *rs)
{
	char *out = path_dirname(rs->kw_dir);

	publish_remove_orphans(out, ".callable", 1);
	publish_remove_orphans(rs->kw_dir, ".json", 0);	/* summary, trace */
	free(out);
}

/* One read of a small file written whole in one go, newline last (a read
 * without the newline came too early): NUL-terminated in text; 0, or -1. */
static int read_line(const char *path, char *text, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, text, size - 1);
	close(fd);
	if (n <= 0 || text[n - 1] != '\n')
		return -1;
	text[n] = '\0';
	return 0;
}

/* Read a run's start file "START ZERO" (ZERO, the trace's zero, may be
 * missing: then START); 0, or -1. */
static int read_start(const char *path, double *start, double *zero)
{
	char text[128], *end;

	if (read_line(path, text, sizeof(text)))
		return -1;
	*start = strtod(text, &end);
	*zero = strtod(end, &end);
	if (*zero <= 0)
		*zero = *start;
	return *start > 0 ? 0 : -1;
}

/* The trace's zero of another run that is still going (one kept by
 * remove_ended_runs); 0 when there is none. */
static double live_run_zero(const struct runstate *rs)
{
	struct strvec tags;
	double zero = 0, start;

	strvec_init(&tags);
	runstate_other_runs(rs, &tags);
	for (size_t i = 0; i < tags.nr && !zero; i++) {
		char *p = xstrfmt("%s/run/%s/start", rs->kw_dir, tags.v[i]);

		if (read_start(p, &start, &zero))
			zero = 0;
		free(p);
	}
	strvec_release(&tags);
	return zero;
}

void runstate_other_run(const struct runstate *rs, const char *tag, char **units,
			double *start)
{
	char *p = xstrfmt("%s/run/%s/units", rs->kw_dir, tag), *text;
	size_t len;
	double zero;

	*units = NULL;
	if (!read_file_all(p, &text, &len)) {
		if (len && text[len - 1] == '\n')
			text[len - 1] = '\0';
		*units = text;
	}
	free(p);
	p = xstrfmt("%s/run/%s/start", rs->kw_dir, tag);
	if (read_start(p, start, &zero))
		*start = 0;
	free(p);
}

/* Empty, or naming kw_dir and units when they are given. */
static void init(struct runstate *rs, const char *kw_dir, const char *units)
{
	memset(rs, 0, sizeof(*rs));
	rs->slot = rs->slot_fd = rs->pack_fd = -1;
	rs->kw_dir = kw_dir ? xstrdup(kw_dir) : NULL;
	rs->units = units ? xstrdup(units) : NULL;
}

void runstate_open(struct runstate *rs, const char *kw_dir, const char *units)
{
	struct stat st;
	char *at, *start;
	int lock;

	init(rs, kw_dir, units);
	runid_tag(rs->tag, sizeof(rs->tag));
	rs->pid = atoi(rs->tag);
	rs->dir = xstrfmt("%s/run/%s", kw_dir, rs->tag);
	start = path_join(rs->dir, "start");
	/* A later step of the run needs no lock: the first wrote start before
	 * it let go of the lock. */
	if (!read_start(start, &rs->start, &rs->zero)) {
		free(start);
		return;
	}
	if (mkdir_p(kw_dir))
		goto out;
	lock = runstate_lock(rs);
	if (stat(rs->dir, &st) && errno == ENOENT && !mkdir_p(rs->dir)) {
		/* One zero for every step's trace times: the first step's reading
		 * of the make's start (each process's own would differ a little). */
		char *line;
		double zero;

		rs->start = runid_start();
		remove_ended_runs(rs);
		/* Join the trace of a run that is still going on this folder (its
		 * zero), else start a new one. */
		zero = live_run_zero(rs);
		rs->zero = zero > 0 ? zero : rs->start;
		trace_begin(rs->kw_dir, rs->pid, zero > 0);
		line = xstrfmt("%.6f %.6f\n", rs->start, rs->zero);
		(void)write_file(start, line, strlen(line));
		free(line);
		/* For the summary of an overlapping run of another Makefile. */
		line = path_join(rs->dir, "units");
		(void)write_file(line, units, strlen(units));
		free(line);
		rs->first = 1;
	}
	runstate_unlock(lock);
out:
	if (read_start(start, &rs->start, &rs->zero)) {
		at = strchr(rs->tag, '@');
		rs->start = at ? strtod(at + 1, NULL) : 0;
		if (rs->start <= 0)
			rs->start = now_wall();
		rs->zero = rs->start;
	}
	free(start);
}

void runstate_open_last(struct runstate *rs, const char *kw_dir, const char *units)
{
	struct strvec tags;
	char *start;
	double best = -1;

	init(rs, kw_dir, units);
	strvec_init(&tags);
	runstate_other_runs(rs, &tags);	/* no tag yet: every run */
	for (size_t i = 0; i < tags.nr; i++) {
		char *p = xstrfmt("%s/run/%s", kw_dir, tags.v[i]);
		struct stat st;

		if (strlen(tags.v[i]) < sizeof(rs->tag) && !stat(p, &st) && S_ISDIR(st.st_mode) &&
		    st.st_mtime + st.st_mtim.tv_nsec / 1e9 > best) {
			best = st.st_mtime + st.st_mtim.tv_nsec / 1e9;
			memcpy(rs->tag, tags.v[i], strlen(tags.v[i]) + 1);
		}
		free(p);
	}
	strvec_release(&tags);
	if (!rs->tag[0])
		snprintf(rs->tag, sizeof(rs->tag), "none");
	rs->pid = atoi(rs->tag);
	rs->dir = xstrfmt("%s/run/%s", kw_dir, rs->tag);
	start = path_join(rs->dir, "start");
	if (read_start(start, &rs->start, &rs->zero))
		rs->start = rs->zero = now_wall();
	free(start);
}

void runstate_release(struct runstate *rs)
{
	if (rs->slot_fd >= 0)
		close(rs->slot_fd);
	runstate_pack_end(rs);
	free(rs->kw_dir);
	free(rs->dir);
	free(rs->units);
	init(rs, NULL, NULL);
}

void runstate_take_slot(struct runstate *rs)
{
	for (int i = 0; i < RUNSTATE_MAX_SLOTS && rs->slot < 0; i++) {
		char *path = xstrfmt("%s/slot.%d", rs->dir, i);
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

		free(path);
		if (fd < 0)
			return;
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			rs->slot = i;
			rs->slot_fd = fd;
		} else {
			close(fd);
		}
	}
}

static char *packing_path(const struct runstate *rs, const char *ckey)
{
	return xstrfmt("%s/packing.%s", rs->dir, ckey);
}

void runstate_pack_begin(struct runstate *rs, const char *ckey)
{
	char *path = packing_path(rs, ckey);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

	free(path);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		fd = -1;
	}
	rs->pack_fd = fd;
}

void runstate_pack_end(struct runstate *rs)
{
	if (rs->pack_fd >= 0)
		close(rs->pack_fd);	/* drops the flock */
	rs->pack_fd = -1;
}

int runstate_pack_running(const struct runstate *rs, const char *ckey)
{
	char *path = packing_path(rs, ckey);
	int fd = open(path, O_RDONLY | O_CLOEXEC), running;

	free(path);
	if (fd < 0)
		return 0;
	/* A flock goes with its holder: a killed pack holds none. */
	running = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return running;
}

static int read_int(const char *path, int *v)
{
	char text[32];

	if (read_line(path, text, sizeof(text)))
		return -1;
	*v = atoi(text);
	return 0;
}

int runstate_goals_pick_all(const char *goals, struct strvec *picked)
{
	struct strvec words;
	int all = 0;

	strvec_init(&words);
	strvec_split(&words, goals ? goals : "", 0);
	for (size_t i = 0; i < words.nr; i++) {
		if (starts_with(words.v[i], "warmup-") && words.v[i][7])
			strvec_push(picked, words.v[i] + 7);
		else
			all = 1;
	}
	all |= !words.nr;
	strvec_release(&words);
	return all;
}

/* The units of goals in the unit list (a missing list: none, silently):
 * mark their entries used now (claim), else count those missing. */
static int goal_entries(const struct runstate *rs, const char *cache_dir, const char *goals,
			int claim)
{
	static const struct timespec now_atime[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
	struct buf m = BUF_INIT;
	struct unitlist ul;
	struct strvec picked;
	int all, missing = 0;

	strvec_init(&picked);
	all = runstate_goals_pick_all(goals, &picked);
	if (!unitlist_load_gently(&ul, rs->units)) {
		for (size_t i = 0; i < ul.nr_units; i++) {
			const struct unitlist_unit *u = &ul.units[i];
			int pick = all;

			for (size_t j = 0; j < picked.nr && !pick; j++)
				pick = unitlist_unit_owned_by(u, picked.v[j]);
			if (!pick)
				continue;
			buf_reset(&m);
			cache_add_unit_path(&m, cache_dir, u->key, CACHE_ENTRY_SUFFIX);
			if (claim)
				(void)utimensat(AT_FDCWD, m.s, now_atime, 0);
			else if (access(m.s, F_OK))
				missing++;
		}
		unitlist_release(&ul);
	}
	buf_release(&m);
	strvec_release(&picked);
	return missing;
}

int runstate_total(struct runstate *rs, const char *cache_dir, const char *goals)
{
	char *path, *text;

	if (runstate_total_fixed(rs))
		return rs->total;
	rs->total = goal_entries(rs, cache_dir, goals, 0);
	path = path_join(rs->dir, "total");
	text = xstrfmt("%d\n", rs->total);
	(void)write_file(path, text, strlen(text));
	free(text);
	free(path);
	rs->total_known = 1;
	return rs->total;
}

int runstate_total_fixed(struct runstate *rs)
{
	char *path;

	if (!rs->total_known) {
		path = path_join(rs->dir, "total");
		rs->total_known = !read_int(path, &rs->total);
		free(path);
	}
	return rs->total_known;
}

void runstate_claim_entries(const struct runstate *rs, const char *cache_dir, const char *goals)
{
	if (!rs->first)
		return;
	(void)goal_entries(rs, cache_dir, goals, 1);
	/* Outside the lock, which the steps started with this one wait on. */
	remove_orphaned_temps(rs);
}

int runstate_bump_done(const struct runstate *rs)
{
	char *path = path_join(rs->dir, "done"), text[32];
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666), done = 1;
	ssize_t n;

	/* Rewritten in place at a fixed width, never truncated: ext4 flushes a
	 * file truncated and written again when it is closed, once per unit. */
	if (fd >= 0) {
		n = pread(fd, text, sizeof(text) - 1, 0);
		text[n > 0 ? n : 0] = '\0';
		done = atoi(text) + 1;
		snprintf(text, sizeof(text), "%10d\n", done);
		(void)pwrite(fd, text, strlen(text), 0);
		close(fd);
	}
	free(path);
	return done;
}

int runstate_compiles_pending(struct runstate *rs)
{
	char *path;
	int done = 0;

	/* No total: this run compiled nothing. */
	if (!runstate_total_fixed(rs))
		return 0;
	path = path_join(rs->dir, "done");
	(void)read_int(path, &done);
	free(path);
	return done < rs->total;
}

int runstate_marked(const struct runstate *rs, const char *name)
{
	char *path = path_join(rs->dir, name);
	int ret = !access(path, F_OK);

	free(path);
	return ret;
}

int runstate_note(const struct runstate *rs, const char *name, const char *text)
{
	char *path = path_join(rs->dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

	free(path);
	if (fd < 0)
		return 0;
	(void)write_all(fd, text, strlen(text));
	close(fd);
	return 1;
}

char *runstate_read_note(const struct runstate *rs, const char *name)
{
	char *path = path_join(rs->dir, name), *text = NULL;
	size_t len;

	if (read_file_all(path, &text, &len))
		text = NULL;
	free(path);
	return text;
}

