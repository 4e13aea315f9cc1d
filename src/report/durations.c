/* durations: the per-unit compile duration record of the cache folder.
 *
 * CACHE/durations.log, plain text, one record per line:
 *
 *     SECONDS TAB ID LF          e.g. "8.412\tTestQwen3Decode/incore 'x' (aiv)\n"
 *
 * SECONDS is a non-negative decimal; ID is any bytes but TAB, LF and NUL.
 * Appended and compacted through logappend.h (lock file CACHE/durations.lock):
 * a line without its LF is not a record. Readers keep the last line of each id.
 */
#include "report/durations.h"
#include "buf.h"
#include "logappend.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Compaction: considered each time the log crosses a power of two in size (at
 * least this many bytes), so a record costs O(1) amortized; done when the log
 * holds more than COMPACT_MIN_LINES lines and more than COMPACT_RATIO per id. */
#define CHECK_MIN_BYTES 16384
#define COMPACT_MIN_LINES 1000
#define COMPACT_RATIO 4

static int valid_id(const char *id)
{
	return *id && !strpbrk(id, "\t\n");
}

/* Store seconds under id (the last call for an id wins). */
static void put(struct durations *d, const char *id, double seconds)
{
	double *v = hashmap_get(&d->map, id);

	if (!v) {
		v = xmalloc(sizeof(*v));
		hashmap_put(&d->map, id, v);
	}
	*v = seconds;
}

/* Parse the log text into d; returns the number of well-formed lines. */
static size_t parse(struct durations *d, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t lines = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *tab;
		char *num_end, *id;
		double v;

		if (!nl)
			break;	/* torn last line */
		tab = memchr(p, '\t', (size_t)(nl - p));
		if (tab && tab > p && tab + 1 < nl && !memchr(tab + 1, '\t', (size_t)(nl - tab - 1)) &&
		    !memchr(tab + 1, '\0', (size_t)(nl - tab - 1)) && (*p >= '0' && *p <= '9')) {
			errno = 0;
			v = strtod(p, &num_end);
			if (num_end == tab && !errno && isfinite(v) && v >= 0) {
				id = xstrndup(tab + 1, (size_t)(nl - tab - 1));
				put(d, id, v);
				free(id);
				lines++;
			}
		}
		p = nl + 1;
	}
	return lines;
}

void durations_init(struct durations *d)
{
	hashmap_init(&d->map);
}

void durations_release(struct durations *d)
{
	size_t i;

	for (i = 0; i < d->map.nr; i++)
		free(d->map.entries[i].value);
	hashmap_release(&d->map);
	durations_init(d);
}

/* parse as a logappend_parse_fn. */
static void load_text(const char *text, size_t len, void *d)
{
	(void)parse(d, text, len);
}

int durations_load(struct durations *d, const char *cache_dir)
{
	return logappend_load(cache_dir, DURATIONS_LOG, load_text, d);
}

double durations_get(const struct durations *d, const char *id)
{
	double *v = hashmap_get(&d->map, id);

	return v ? *v : -1;
}

/* The compaction (logappend_rewrite_fn): one line per id, when it is still
 * worth it (another process may have compacted the log meanwhile). */
static int compact(const char *text, size_t len, struct buf *out, void *data)
{
	struct durations d;
	size_t lines;
	int ret = 0;

	(void)data;
	durations_init(&d);
	lines = parse(&d, text, len);
	if (lines > COMPACT_MIN_LINES && lines > COMPACT_RATIO * d.map.nr) {
		for (size_t i = 0; i < d.map.nr; i++)
			buf_addf(out, "%.3f\t%s\n", *(double *)d.map.entries[i].value,
				 d.map.entries[i].key);
		ret = 1;
	}
	durations_release(&d);
	return ret;
}

/* Whether a power of two of at least CHECK_MIN_BYTES lies in (start, end]:
 * exactly one writer sees each such crossing. */
static int crossed_check_point(off_t start, off_t end)
{
	off_t b;

	for (b = CHECK_MIN_BYTES; b > 0 && b <= end; b *= 2)
		if (b > start)
			return 1;
	return 0;
}

int durations_record(const char *cache_dir, const char *id, double seconds, struct buf *why)
{
	char *log, *lockpath, *line;
	off_t end = -1;
	int ret;

	if (!valid_id(id) || !isfinite(seconds) || seconds < 0)
		return -1;
	log = path_join(cache_dir, DURATIONS_LOG);
	lockpath = path_join(cache_dir, DURATIONS_LOCK);
	line = xstrfmt("%.3f\t%s\n", seconds, id);
	ret = logappend_line(lockpath, log, line, &end);
	if (!ret && end > 0 && crossed_check_point(end - (off_t)strlen(line), end))
		ret = logappend_compact(lockpath, log, 1, compact, NULL, why);
	free(line);
	free(lockpath);
	free(log);
	return ret;
}

struct order_item {
	double secs;
	size_t index;
};

static int longest_first(const void *a, const void *b)
{
	const struct order_item *x = a, *y = b;

	if (x->secs != y->secs)
		return x->secs > y->secs ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int by_index(const void *a, const void *b)
{
	const struct order_item *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* The items of secs, longest first (an unknown one counts as the average of
 * the known ones, 1.0 when none is); caller frees. */
static struct order_item *sorted_items(const double *secs, size_t n)
{
	struct order_item *items;
	double sum = 0, unknown = 1.0;
	size_t i, known = 0;

	for (i = 0; i < n; i++)
		if (secs[i] >= 0) {
			sum += secs[i];
			known++;
		}
	if (known)
		unknown = sum / (double)known;
	items = xmalloc((n ? n : 1) * sizeof(*items));
	for (i = 0; i < n; i++) {
		items[i].secs = secs[i] >= 0 ? secs[i] : unknown;
		items[i].index = i;
	}
	/* The index breaks ties, so qsort's instability cannot show. */
	qsort(items, n, sizeof(*items), longest_first);
	return items;
}

/* The end of the run of items alike to items[i] (within DURATIONS_SIMILAR
 * of it, the run's longest). */
static size_t alike_end(const struct order_item *items, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && items[j].secs >= items[i].secs * DURATIONS_SIMILAR)
		j++;
	return j;
}

void durations_order(const double *secs, size_t n, size_t *order)
{
	struct order_item *items = sorted_items(secs, n);
	size_t i;

	/* Units within DURATIONS_SIMILAR of each other are alike for the
	 * schedule: among them keep the spec's order, so that a class's units
	 * stay together and its pack can start early (a recorded run's noise
	 * would scatter them otherwise). */
	for (i = 0; i < n;) {
		size_t j = alike_end(items, n, i);

		qsort(items + i, j - i, sizeof(*items), by_index);
		i = j;
	}
	for (i = 0; i < n; i++)
		order[i] = items[i].index;
	free(items);
}

void durations_alike(const double *secs, size_t n, double *out)
{
	struct order_item *items = sorted_items(secs, n);

	for (size_t i = 0, j; i < n; i = j) {
		double sum = 0;

		j = alike_end(items, n, i);
		for (size_t k = i; k < j; k++)
			sum += items[k].secs;
		for (size_t k = i; k < j; k++)
			out[items[k].index] = sum / (double)(j - i);
	}
	free(items);
}
