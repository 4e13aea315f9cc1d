#include "report/summary.h"
#include "buf.h"
#include "report/events.h"
#include "hashmap.h"
#include "json.h"
#include "path.h"
#include "publish.h"
#include "plan/planfile.h"
#include "util.h"

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
	struct unitlist *lists;		/* the run's, then those of overlapping runs
					 * of other Makefiles */
	size_t nr_lists;
	struct strvec runs;		/* the tags of the runs tallied, sorted */
	double started;			/* the earliest start of those */
	int built, cached, failed;
	double compile_seconds;
	unsigned long long remote[EVENT_NR_REMOTE];
	struct hashmap by_name;		/* class name -> index + 1 in classes */
	/* Across overlapping runs, each unit counts once, with its best outcome
	 * (built over cached over failed): two runs that share a unit compile it
	 * once and wait for it once. */
	int once, collect;		/* count_unit */
	struct hashmap seen;		/* unit key -> index + 1 in units_seen */
	struct seen_unit {
		int best;		/* ST_BUILT, ST_CACHED or ST_FAILED */
		int counted;
	} *units_seen;
	size_t alloc_seen;
};

/* The class of a name, or NULL: a hash lookup, as each event names its
 * classes and a suite has hundreds. */
static struct class_tally *find_class(struct tally *t, const char *name)
{
	uintptr_t at = (uintptr_t)hashmap_get(&t->by_name, name);

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
		struct class_tally *c = find_class(t, ev->owners->v[i]);

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

/* Whether to count unit event key/status: always for one run alone (not
 * t->once); else, while collecting, note its best outcome and count nothing;
 * then count only the first event of each unit with its best outcome. */
static int count_unit(struct tally *t, const char *key, int st)
{
	struct seen_unit *u;
	size_t i;

	if (!t->once)
		return 1;
	i = (uintptr_t)hashmap_get(&t->seen, key);
	if (t->collect && !i) {
		hashmap_put(&t->seen, key, (void *)(uintptr_t)(t->seen.nr + 1));
		ALLOC_GROW(t->units_seen, t->seen.nr, t->alloc_seen);
		t->units_seen[t->seen.nr - 1] = (struct seen_unit){ .best = st };
		return 0;
	}
	u = i ? &t->units_seen[i - 1] : NULL;
	if (t->collect && st < u->best)
		u->best = st;
	if (t->collect || !u || u->counted || u->best != st)
		return 0;
	u->counted = 1;
	return 1;
}

static void tally_event(const struct event *ev, void *data)
{
	struct tally *t = data;
	struct class_tally *c;

	if (ev->kind == EVENT_UNIT) {
		if (count_unit(t, ev->key, unit_status(ev->status)))
			tally_unit(t, ev);
	} else if (t->collect) {
		return;
	} else if (ev->kind == EVENT_REMOTE) {
		for (int i = 0; i < EVENT_NR_REMOTE; i++)
			t->remote[i] += ev->remote[i];
	} else if (ev->owners->nr == 1 && (c = find_class(t, ev->owners->v[0]))) {
		*(strcmp(ev->status, "packed") ? &c->pack_failed : &c->packed) += 1;
		c->pack_seconds += ev->seconds;
	}
}

/* Tally the events of t->runs (with t->once, in two passes: count_unit). */
static void tally_runs(struct tally *t, const struct runstate *rs)
{
	for (t->collect = t->once; t->collect >= 0; t->collect--)
		for (size_t i = 0; i < t->runs.nr; i++) {
			char *dir = xstrfmt("%s/run/%s", rs->kw_dir, t->runs.v[i]);

			events_each(dir, tally_event, t);
			free(dir);
		}
}

/* Add the classes of list to t, but those it has already. */
static void add_classes(struct tally *t, const struct unitlist *list)
{
	t->classes = xrealloc(t->classes, (t->nr + list->classes.nr + 1) * sizeof(*t->classes));
	for (size_t i = 0; i < list->classes.nr; i++) {
		const char *name = list->classes.v[i];
		struct class_tally *c;

		if (find_class(t, name))
			continue;
		c = &t->classes[t->nr++];
		memset(c, 0, sizeof(*c));
		c->name = name;
		c->list = list;
		c->status = ST_CACHED;	/* until one of its callables is not packed */
		strvec_init(&c->failed_units);
		hashmap_put(&t->by_name, name, (void *)(uintptr_t)t->nr);
	}
	/* Each unit counts for each of its classes of this list: one pass. */
	for (size_t j = 0; j < list->nr_units; j++)
		for (size_t k = 0; k < list->units[j].owners.nr; k++) {
			struct class_tally *c = find_class(t, list->units[j].owners.v[k]);

			if (c && c->list == list)
				c->units++;
		}
}

/* The other runs whose folders are there: those that overlapped rs's, such
 * as a warm-up of other goals into the same OUT. Their tags go to t->runs
 * (sorted, with rs's), their earliest start to t->started, and the unit lists
 * of those of other Makefiles (each run's "units" file names its list) to
 * t->lists after the run's own. */
static void add_other_runs(struct tally *t, const struct runstate *rs)
{
	struct strvec others, paths;

	strvec_init(&others);
	strvec_init(&paths);
	strvec_push(&paths, rs->units);
	runstate_other_runs(rs, &others);
	for (size_t i = 0; i < others.nr; i++) {
		char *units;
		double s;

		runstate_other_run(rs, others.v[i], &units, &s);
		if (units && units[0] && strvec_find(&paths, units) < 0)
			strvec_push(&paths, units);
		free(units);
		if (!strchr(others.v[i], '@'))
			continue;
		strvec_push(&t->runs, others.v[i]);
		if (s > 0 && s < t->started)
			t->started = s;
	}
	qsort(t->runs.v, t->runs.nr, sizeof(*t->runs.v), strvec_cmp);
	/* Sorted: the same order whichever run writes. */
	qsort(paths.v + 1, paths.nr - 1, sizeof(*paths.v), strvec_cmp);
	t->lists = xrealloc(t->lists, paths.nr * sizeof(*t->lists));
	for (size_t i = 1; i < paths.nr; i++)
		if (!unitlist_load_gently(&t->lists[t->nr_lists], paths.v[i]))
			t->nr_lists++;
	strvec_release(&paths);
	strvec_release(&others);
}

/* Tally the run (with overlapping, also the runs that overlapped it and the
 * classes of their Makefiles: add_other_runs); -1 when there is no unit
 * list. */
static int tally_load(struct tally *t, const struct runstate *rs, int overlapping)
{
	memset(t, 0, sizeof(*t));
	t->lists = xcalloc(1, sizeof(*t->lists));
	if (unitlist_load_gently(&t->lists[0], rs->units)) {
		free(t->lists);
		return -1;
	}
	t->nr_lists = 1;
	t->once = overlapping;
	hashmap_init(&t->by_name);
	hashmap_init(&t->seen);
	strvec_init(&t->runs);
	strvec_push(&t->runs, rs->tag);
	t->started = rs->start;
	if (overlapping)
		add_other_runs(t, rs);
	/* After every list is loaded: the classes point into t->lists. */
	for (size_t i = 0; i < t->nr_lists; i++)
		add_classes(t, &t->lists[i]);
	tally_runs(t, rs);
	/* A class is cached when every callable of its list is packed: one pass
	 * over each list's callables (status holds "one is not" meanwhile). */
	for (size_t i = 0; i < t->nr_lists; i++) {
		const struct unitlist *l = &t->lists[i];

		for (size_t j = 0; j < l->nr_callables; j++) {
			struct class_tally *c = find_class(t, l->callables[j].cls);

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
	hashmap_release(&t->seen);
	free(t->units_seen);
	for (size_t i = 0; i < t->nr; i++)
		strvec_release(&t->classes[i].failed_units);
	free(t->classes);
	for (size_t i = 0; i < t->nr_lists; i++)
		unitlist_release(&t->lists[i]);
	free(t->lists);
	strvec_release(&t->runs);
}

/* ", "-separated JSON strings. */
static void add_strings(struct buf *b, const struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++) {
		buf_adds(b, i ? ", " : "");
		json_add_string(b, sv->v[i]);
	}
}

int summary_write(const struct runstate *rs, int counts[4])
{
	struct tally t;
	struct buf b = BUF_INIT, unsaid = BUF_INIT;
	char *path, *note;
	double now = now_wall();
	int ret;

	if (counts)
		memset(counts, 0, 4 * sizeof(*counts));
	if (tally_load(&t, rs, 1))
		return -1;
	buf_adds(&b, "{\"version\": 1, \"run\": ");
	json_add_string(&b, rs->tag);
	buf_adds(&b, ", \"runs\": [");
	add_strings(&b, &t.runs);
	buf_addf(&b, "], \"started\": %.3f, \"updated\": %.3f, \"wall_seconds\": %.3f,\n"
		 " \"units\": {\"built\": %d, \"cached\": %d, \"failed\": %d, \"compile_seconds\": %.3f},\n",
		 t.started, now, now - t.started,
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
		add_strings(&b, &c->failed_units);
		buf_adds(&b, "]}");
		if (counts)
			counts[c->status]++;
	}
	buf_adds(&b, "\n ]}\n");
	path = path_join(rs->kw_dir, SUMMARY_FILE);
	/* An empty folder in its place (a hand left it) would refuse every write. */
	(void)rmdir(path);
	/* Not reported: the caller says it in its own words. Not fsynced: a
	 * report, written last in the run (on its critical path), which
	 * 'kwarm summary' writes again. */
	ret = publish_unsynced_gently(path, b.s, b.len, &unsaid);
	buf_release(&unsaid);
	free(path);
	free(note);
	buf_release(&b);
	tally_release(&t);
	return ret;
}

int summary_failures(const struct runstate *rs, struct buf *out)
{
	struct tally t;
	int counts[4] = { 0, 0, 0, 0 };

	if (tally_load(&t, rs, 0))
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
	return counts[ST_FAILED];
}
