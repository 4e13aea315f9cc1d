#include "report/summary.h"
#include "buf.h"
#include "report/events.h"
#include "hashmap.h"
#include "json.h"
#include "path.h"
#include "cache/publish.h"
#include "plan/planfile.h"
#include "util.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ST_BUILT, ST_CACHED, ST_FAILED, ST_PENDING };
static const char *const status_names[] = { "built", "cached", "failed", "pending" };

struct class_tally {
	const char *name;
	const struct unitlist *list;	/* the list it comes from */
	int units, built, cached, failed, packed, pack_failed;
	double compile_seconds, pack_seconds;
	struct strvec failed_units;
	int status;
};

struct tally {
	struct class_tally *classes;
	size_t nr;
	struct unitlist *others;	/* the lists of overlapping runs of other Makefiles */
	size_t nr_others;
	int built, cached, failed;
	double compile_seconds;
	unsigned long long remote[EVENT_NR_REMOTE];
	struct hashmap by_name;		/* class name -> index + 1 in classes */
};

/* The class of a name (name[0..len)), or NULL: a hash lookup, as each event
 * names its classes and a suite has hundreds. */
static struct class_tally *find_class(struct tally *t, const char *name, size_t len)
{
	char small[128], *key = len < sizeof(small) ? small : xstrndup(name, len);
	uintptr_t at;

	if (key == small) {
		memcpy(small, name, len);
		small[len] = '\0';
	}
	at = t->by_name.slots ? (uintptr_t)hashmap_get(&t->by_name, key) : 0;
	if (key != small)
		free(key);
	return at ? &t->classes[at - 1] : NULL;
}

static int unit_status(const char *word)
{
	return !strcmp(word, "built") ? ST_BUILT : !strcmp(word, "cached") ? ST_CACHED : ST_FAILED;
}

static void tally_unit(struct tally *t, const struct event *ev)
{
	int st = unit_status(ev->status);

	if (st == ST_BUILT) {
		t->built++;
		t->compile_seconds += ev->seconds;
	} else {
		*(st == ST_CACHED ? &t->cached : &t->failed) += 1;
	}
	for (size_t i = 0; i < ev->owners->nr; i++) {
		const char *o = ev->owners->v[i];
		struct class_tally *c = find_class(t, o, strlen(o));

		if (c && st == ST_BUILT) {
			c->built++;
			c->compile_seconds += ev->seconds;
		} else if (c && st == ST_CACHED) {
			c->cached++;
		} else if (c) {
			c->failed++;
			/* One label once, however often the unit failed. */
			if (strvec_find(&c->failed_units, ev->label) < 0)
				strvec_push(&c->failed_units, ev->label);
		}
	}
}

/* Across overlapping runs, each unit counts once, with its best outcome
 * (built over cached over failed): two runs that share a unit compile it once
 * and wait for it once. */
struct seen_units {
	struct strvec keys;
	struct hashmap at;	/* key -> index + 1 in keys */
	int *best;		/* ST_BUILT, ST_CACHED or ST_FAILED, by index in keys */
	int *counted;
	size_t alloc_best, alloc_counted;
};

/* Whether to count unit event key/status: always for one run alone (seen
 * NULL); with seen, while collecting, note its best outcome and count nothing;
 * then count only the first event of each unit with its best outcome. */
static int count_unit(struct seen_units *seen, int collect, const char *key, int st)
{
	int i;

	if (!seen)
		return 1;
	i = (int)(uintptr_t)hashmap_get(&seen->at, key) - 1;
	if (collect) {
		if (i < 0) {
			strvec_push(&seen->keys, key);
			i = (int)seen->keys.nr - 1;
			hashmap_put(&seen->at, key, (void *)(uintptr_t)seen->keys.nr);
			ALLOC_GROW(seen->best, seen->keys.nr, seen->alloc_best);
			ALLOC_GROW(seen->counted, seen->keys.nr, seen->alloc_counted);
			seen->best[i] = st;
			seen->counted[i] = 0;
		} else if (st < seen->best[i]) {
			seen->best[i] = st;
		}
		return 0;
	}
	if (i < 0 || seen->counted[i] || seen->best[i] != st)
		return 0;
	seen->counted[i] = 1;
	return 1;
}

struct tally_pass {
	struct tally *t;
	struct seen_units *seen;
	int collect;
};

static void tally_event(const struct event *ev, void *data)
{
	struct tally_pass *p = data;
	struct tally *t = p->t;
	struct class_tally *c;

	if (ev->kind == EVENT_UNIT) {
		if (count_unit(p->seen, p->collect, ev->key, unit_status(ev->status)))
			tally_unit(t, ev);
	} else if (p->collect) {
		return;
	} else if (ev->kind == EVENT_REMOTE) {
		for (int i = 0; i < EVENT_NR_REMOTE; i++)
			t->remote[i] += ev->remote[i];
	} else if (ev->owners->nr == 1 &&
		   (c = find_class(t, ev->owners->v[0], strlen(ev->owners->v[0])))) {
		*(strcmp(ev->status, "packed") ? &c->pack_failed : &c->packed) += 1;
		c->pack_seconds += ev->seconds;
	}
}

static void tally_events(struct tally *t, const char *run_dir, struct seen_units *seen,
			 int collect)
{
	struct tally_pass p = { t, seen, collect };

	events_each(run_dir, tally_event, &p);
}

/* Tally the events of rs's run and of every other run whose folder is there:
 * those that overlapped it (a run's first step removes the folders of runs
 * that had ended), such as a warm-up of other goals into the same OUT. Their
 * tags go to runs (when not NULL), sorted, and the earliest start to *started. */
static void tally_overlapping(struct tally *t, const struct runstate *rs, struct strvec *runs,
			      double *started)
{
	char *dir = path_join(rs->kw_dir, "run");
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strvec tags;
	struct seen_units seen;

	strvec_init(&tags);
	strvec_push(&tags, rs->tag);
	*started = rs->start;
	while (d && (de = readdir(d))) {
		char *p, *text;
		size_t len;
		double s;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, rs->tag) || !strchr(de->d_name, '@'))
			continue;
		strvec_push(&tags, de->d_name);
		p = xstrfmt("%s/%s/start", dir, de->d_name);
		if (!read_file_all(p, &text, &len)) {
			s = strtod(text, NULL);
			if (s > 0 && s < *started)
				*started = s;
			free(text);
		}
		free(p);
	}
	if (d)
		closedir(d);
	qsort(tags.v, tags.nr, sizeof(*tags.v), strvec_cmp);
	memset(&seen, 0, sizeof(seen));
	strvec_init(&seen.keys);
	hashmap_init(&seen.at);
	for (int collect = 1; collect >= 0; collect--)
		for (size_t i = 0; i < tags.nr; i++) {
			char *p = path_join(dir, tags.v[i]);

			tally_events(t, p, &seen, collect);
			free(p);
			if (runs && !collect)
				strvec_push(runs, tags.v[i]);
		}
	strvec_release(&seen.keys);
	hashmap_release(&seen.at);
	free(seen.best);
	free(seen.counted);
	strvec_release(&tags);
	free(dir);
}

/* Tally the run (with overlapping, also the runs that overlapped it, see
 * tally_overlapping); -1 when there is no unit list. */
/* Add the classes of list to t, but those it has already. */
static void add_classes(struct tally *t, const struct unitlist *list)
{
	t->classes = xrealloc(t->classes, (t->nr + list->classes.nr + 1) * sizeof(*t->classes));
	for (size_t i = 0; i < list->classes.nr; i++) {
		const char *name = list->classes.v[i];
		struct class_tally *c;

		if (find_class(t, name, strlen(name)))
			continue;
		c = &t->classes[t->nr++];
		memset(c, 0, sizeof(*c));
		c->name = name;
		c->list = list;
		strvec_init(&c->failed_units);
		hashmap_put(&t->by_name, name, (void *)(uintptr_t)t->nr);
	}
	/* Each unit counts for each of its classes of this list: one pass. */
	for (size_t j = 0; j < list->nr_units; j++)
		for (size_t k = 0; k < list->units[j].owners.nr; k++) {
			const char *o = list->units[j].owners.v[k];
			struct class_tally *c = find_class(t, o, strlen(o));

			if (c && c->list == list)
				c->units++;
		}
}

/* The unit lists of the overlapping runs of other Makefiles (each run's
 * "units" file names its list): loaded into t->others. */
static void load_other_lists(struct tally *t, const struct runstate *rs)
{
	char *dir = path_join(rs->kw_dir, "run");
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strvec paths;

	strvec_init(&paths);
	strvec_push(&paths, rs->units);
	while (d && (de = readdir(d))) {
		char *p, *text;
		size_t len;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, rs->tag))
			continue;
		p = xstrfmt("%s/%s/units", dir, de->d_name);
		if (!read_file_all(p, &text, &len)) {
			if (len && text[len - 1] == '\n')
				text[len - 1] = '\0';
			if (text[0] && strvec_find(&paths, text) < 0)
				strvec_push(&paths, text);
			free(text);
		}
		free(p);
	}
	if (d)
		closedir(d);
	/* Sorted: the same order whichever run writes. */
	qsort(paths.v + 1, paths.nr - 1, sizeof(*paths.v), strvec_cmp);
	t->others = xcalloc(paths.nr, sizeof(*t->others));
	for (size_t i = 1; i < paths.nr; i++)
		if (!unitlist_load_gently(&t->others[t->nr_others], paths.v[i]))
			t->nr_others++;
	strvec_release(&paths);
	free(dir);
}

/* Tally the run (with overlapping, also the runs that overlapped it, see
 * tally_overlapping, and the classes of their Makefiles); -1 when there is no
 * unit list. */
static int tally_load(struct tally *t, struct unitlist *ul, const struct runstate *rs,
		      int overlapping, struct strvec *runs, double *started)
{
	int ret = unitlist_load_gently(ul, rs->units);

	memset(t, 0, sizeof(*t));
	hashmap_init(&t->by_name);
	if (!ret) {
		add_classes(t, ul);
		if (overlapping) {
			load_other_lists(t, rs);
			for (size_t i = 0; i < t->nr_others; i++)
				add_classes(t, &t->others[i]);
		}
	}
	if (ret)
		return -1;
	if (overlapping)
		tally_overlapping(t, rs, runs, started);
	else
		tally_events(t, rs->dir, NULL, 0);
	/* A class is cached when every callable of its list is packed: one pass
	 * over each list's callables (status holds "one is not" meanwhile). */
	for (size_t i = 0; i < t->nr; i++)
		t->classes[i].status = ST_CACHED;
	for (size_t i = 0; i < t->nr; i++) {
		const struct unitlist *l = t->classes[i].list;

		if (i && t->classes[i - 1].list == l)
			continue;	/* this list's callables were seen */
		for (size_t j = 0; j < l->nr_callables; j++) {
			struct class_tally *c = find_class(t, l->callables[j].cls, strlen(l->callables[j].cls));

			if (c && c->list == l && c->status == ST_CACHED && access(l->callables[j].stamp, F_OK))
				c->status = ST_PENDING;
		}
	}
	for (size_t i = 0; i < t->nr; i++) {
		struct class_tally *c = &t->classes[i];

		c->status = c->failed || c->pack_failed ? ST_FAILED : c->packed ? ST_BUILT : c->status;
	}
	return 0;
}

static void tally_release(struct tally *t)
{
	hashmap_release(&t->by_name);
	for (size_t i = 0; i < t->nr; i++)
		strvec_release(&t->classes[i].failed_units);
	free(t->classes);
	for (size_t i = 0; i < t->nr_others; i++)
		unitlist_release(&t->others[i]);
	free(t->others);
}

int summary_write(const struct runstate *rs)
{
	struct unitlist ul;
	struct tally t;
	struct buf b = BUF_INIT, unsaid = BUF_INIT;
	struct strvec runs;
	char *path, *note;
	double now = now_wall(), started;
	int ret;

	strvec_init(&runs);
	if (tally_load(&t, &ul, rs, 1, &runs, &started)) {
		strvec_release(&runs);
		return -1;
	}
	buf_adds(&b, "{\"version\": 1, \"run\": ");
	json_add_string(&b, rs->tag);
	buf_adds(&b, ", \"runs\": [");
	for (size_t i = 0; i < runs.nr; i++) {
		buf_adds(&b, i ? ", " : "");
		json_add_string(&b, runs.v[i]);
	}
	buf_addf(&b, "], \"started\": %.3f, \"updated\": %.3f, \"wall_seconds\": %.3f,\n"
		 " \"units\": {\"built\": %d, \"cached\": %d, \"failed\": %d, \"compile_seconds\": %.3f},\n",
		 started, now, now - started,
		 t.built, t.cached, t.failed, t.compile_seconds);
	note = runstate_read_note(rs, RUNSTATE_CACHE_UNUSABLE);
	buf_adds(&b, " \"cache_unusable\": ");
	if (note)
		json_add_string(&b, note);
	else
		buf_adds(&b, "null");
	buf_addf(&b, ",\n \"remote\": {\"hits\": %llu, \"misses\": %llu, \"errors\": %llu, "
		 "\"uploads\": %llu, \"bytes_fetched\": %llu, \"bytes_uploaded\": %llu}",
		 t.remote[0], t.remote[1], t.remote[2], t.remote[3], t.remote[4], t.remote[5]);
	buf_adds(&b, ",\n \"classes\": [");
	for (size_t i = 0; i < t.nr; i++) {
		const struct class_tally *c = &t.classes[i];

		buf_adds(&b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		json_add_string(&b, c->name);
		buf_addf(&b, ", \"status\": \"%s\", \"units\": %d, \"units_built\": %d, "
			 "\"units_cached\": %d, \"units_failed\": %d, \"compile_seconds\": %.3f, "
			 "\"pack_seconds\": %.3f, \"failed_units\": [", status_names[c->status],
			 c->units, c->built, c->cached, c->failed, c->compile_seconds, c->pack_seconds);
		for (size_t j = 0; j < c->failed_units.nr; j++) {
			buf_adds(&b, j ? ", " : "");
			json_add_string(&b, c->failed_units.v[j]);
		}
		buf_adds(&b, "]}");
	}
	buf_adds(&b, "\n ]}\n");
	path = path_join(rs->kw_dir, SUMMARY_FILE);
	/* Not reported: the caller says it in its own words. */
	ret = publish_bytes_gently(path, b.s, b.len, &unsaid);
	buf_release(&unsaid);
	free(path);
	free(note);
	buf_release(&b);
	tally_release(&t);
	unitlist_release(&ul);
	strvec_release(&runs);
	return ret;
}

void summary_counts(const struct runstate *rs, int counts[4])
{
	struct unitlist ul;
	struct tally t;
	double started;

	memset(counts, 0, 4 * sizeof(*counts));
	if (tally_load(&t, &ul, rs, 1, NULL, &started))
		return;
	for (size_t i = 0; i < t.nr; i++)
		counts[t.classes[i].status]++;
	tally_release(&t);
	unitlist_release(&ul);
}

int summary_failures(const struct runstate *rs, struct buf *out)
{
	struct unitlist ul;
	struct tally t;
	int counts[4] = { 0, 0, 0, 0 };

	if (tally_load(&t, &ul, rs, 0, NULL, NULL))
		return 0;
	for (size_t i = 0; i < t.nr; i++)
		counts[t.classes[i].status]++;
	if (counts[ST_FAILED])
		buf_addf(out, "kwarm: warm-up failed: %d of %zu classes failed (%d built, %d cached, "
			 "%d pending); see '%s/" SUMMARY_FILE "'\n", counts[ST_FAILED], t.nr,
			 counts[ST_BUILT], counts[ST_CACHED], counts[ST_PENDING], rs->kw_dir);
	for (size_t i = 0; i < t.nr; i++) {
		const struct class_tally *c = &t.classes[i];

		if (c->status != ST_FAILED)
			continue;
		buf_addf(out, "kwarm: class %s failed:", c->name);
		for (size_t j = 0; j < c->failed_units.nr; j++)
			buf_addf(out, "%s %s", j ? "," : "", c->failed_units.v[j]);
		if (c->pack_failed)
			buf_addf(out, "%s its pack step", c->failed_units.nr ? "," : "");
		buf_addch(out, '\n');
	}
	tally_release(&t);
	unitlist_release(&ul);
	return counts[ST_FAILED];
}
