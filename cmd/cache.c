/* kwarm cache: figures about the cache (stats), an integrity check of every
 * entry (verify) and removal of old entries and leftovers (prune). */
#include "commands.h"
#include "buf.h"
#include "cache/cache.h"
#include "cache/cachedir.h"
#include "cache/cachelog.h"
#include "cache/cachemaint.h"
#include "json.h"
#include "parseopt.h"
#include "spec/spec.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char usage_cache[] =
	"usage: kwarm cache [--cache DIR] [--spec SPEC] stats [--json]\n"
	"       kwarm cache [--cache DIR] [--spec SPEC] verify [--repair]\n"
	"       kwarm cache [--cache DIR] [--spec SPEC] prune [--max-age DAYS] [--max-size SIZE]\n"
	"\n"
	"Look after a warm-up cache. The cache is DIR, else $KWARM_CACHE, else (with\n"
	"--spec) the spec's 'cache', or when it names none $XDG_CACHE_HOME/kwarm\n"
	"or ~/.cache/kwarm.\n"
	"  --cache DIR        the cache folder\n"
	"  --spec SPEC        use the cache SPEC names\n"
	"\n"
	"  stats              unit entries and their bytes, and the hits, waits,\n"
	"                     misses and compile time of the last make run and of all\n"
	"                     recorded runs (CACHE/events.log); a unit counts once per\n"
	"                     run: miss over wait-hit over hit; with a remote cache,\n"
	"                     its hits, misses, errors, uploads and bytes\n"
	"    --json           the same as one JSON object\n"
	"  verify             check every entry (manifest, size, SHA-256) and leftover\n"
	"                     temp; name each bad one; entries being compiled are skipped\n"
	"    --repair         remove the bad ones (make then rebuilds them)\n"
	"  prune              remove entries unused for DAYS, then least recently used\n"
	"                     ones while the cache is above SIZE; also temps whose\n"
	"                     process is gone, and compilers' memos unused for DAYS\n"
	"    --max-age DAYS   default 14 (a fraction works: 0.5); a pack's use refreshes\n"
	"    --max-size SIZE  bytes, or with K, M, G, T (powers of 1024): 500M, 2G\n"
	"                     Entries used within the last hour and entries whose lock a\n"
	"                     compile holds are never pruned.\n"
	"Exit status: 0 success (verify: every entry good, or repaired), 1 failure or\n"
	"bad entries, 2 bad usage.\n";

/* The cache folder (cachedir.h), the spec read only when it decides; NULL
 * when none is named. Caller frees. */
static char *choose_cache(const char *opt, const char *spec_path, int *status)
{
	char *dir = cache_choose_dir(opt, NULL, 0);
	struct spec spec;

	*status = 0;
	if (dir || !spec_path)
		return dir;
	if (spec_load(&spec, spec_path)) {
		*status = 2;
		return NULL;
	}
	dir = cache_choose_dir(NULL, spec.cache, 1);
	spec_release(&spec);
	return dir;
}

static double hit_rate(const struct cachelog_tally *t)
{
	size_t all = t->hits + t->wait_hits + t->misses;

	return all ? 100.0 * (double)(t->hits + t->wait_hits) / (double)all : 0;
}

static void add_tally_text(struct buf *b, const char *name, const struct cachelog_tally *t)
{
	buf_addf(b, "%-16s hits %zu, wait-hits %zu, misses %zu, corrupt %zu, "
		 "compiling %.1f s, hit rate %.1f%%\n", name, t->hits, t->wait_hits, t->misses,
		 t->corrupt, t->compile_seconds, hit_rate(t));
	if (t->remote_hits || t->remote_misses || t->remote_errors || t->uploads)
		buf_addf(b, "%-16s remote hits %zu, remote misses %zu, remote errors %zu, "
			 "uploads %zu, bytes in %" PRIu64 ", bytes out %" PRIu64 "\n", "",
			 t->remote_hits, t->remote_misses, t->remote_errors, t->uploads,
			 t->remote_bytes_in, t->remote_bytes_out);
}

static void add_tally_json(struct buf *b, const char *name, const struct cachelog_tally *t)
{
	buf_addf(b, "\"%s\":{\"runs\":%zu,\"hits\":%zu,\"wait_hits\":%zu,\"misses\":%zu,"
		 "\"corrupt\":%zu,\"compile_seconds\":%.3f,\"hit_rate\":%.1f,"
		 "\"remote_hits\":%zu,\"remote_misses\":%zu,\"remote_errors\":%zu,"
		 "\"uploads\":%zu,\"remote_bytes_in\":%" PRIu64 ",\"remote_bytes_out\":%" PRIu64 "}",
		 name, t->runs, t->hits, t->wait_hits, t->misses, t->corrupt, t->compile_seconds,
		 hit_rate(t), t->remote_hits, t->remote_misses, t->remote_errors, t->uploads,
		 t->remote_bytes_in, t->remote_bytes_out);
}

/* Does entry key's manifest list what its compiler read (reads.h)? */
static void count_reads(const struct cache *c, const char *key, size_t *listed,
			size_t *scanner_only)
{
	struct buf text = BUF_INIT;
	struct strvec reads;
	char deps[16];

	strvec_init(&reads);
	if (cache_unit_manifest(c->dir, key, &text) == 1) {
		cache_manifest_reads(text.s, &reads, deps);
		if (deps[0] && strcmp(deps, "none"))
			(*listed)++;
		else
			(*scanner_only)++;
	}
	strvec_release(&reads);
	buf_release(&text);
}

static int cache_stats(const struct cache *c, int json)
{
	struct cache_scan s;
	struct cachelog log;
	struct cachelog_tally last, all;
	struct buf b = BUF_INIT;
	uint64_t unit_bytes = 0, memo_bytes = 0;
	size_t orphans = 0, listed = 0, scanner_only = 0;
	double now = (double)time(NULL);
	char name[64];
	int ret = 0;

	/* Figures are the point: a compaction that cannot happen is no failure. */
	(void)cachelog_compact(c->dir, CACHELOG_COMPACT_BYTES, CACHELOG_KEEP_RUNS);
	cache_scan_init(&s);
	cachelog_init(&log);
	if (cache_scan_run(&s, c) || cachelog_load(&log, c->dir))
		ret = 1;
	for (size_t i = 0; i < s.nr_units; i++) {
		unit_bytes += s.units[i].bytes;
		count_reads(c, s.units[i].key, &listed, &scanner_only);
	}
	for (size_t i = 0; i < s.nr_temps; i++)
		orphans += cache_temp_orphaned(s.temps[i].pid, s.temps[i].mtime, now);
	for (size_t i = 0; i < s.nr_memos; i++)
		memo_bytes += s.memos[i].bytes;
	/* The last run is the one that wrote the last event (none: all zero). */
	cachelog_tally(&log, log.nr ? log.v[log.nr - 1].run_index : 0, &last);
	cachelog_tally(&log, CACHELOG_ALL_RUNS, &all);
	if (json) {
		buf_adds(&b, "{\"cache\":");
		json_add_string(&b, c->dir);
		buf_addf(&b, ",\"units\":%zu,\"unit_bytes\":%" PRIu64 ",\"orphaned_temps\":%zu,"
			 "\"units_with_reads\":%zu,\"units_scanner_only\":%zu,"
			 "\"memos\":%zu,\"memo_bytes\":%" PRIu64 ",",
			 s.nr_units, unit_bytes, orphans, listed, scanner_only, s.nr_memos, memo_bytes);
		add_tally_json(&b, "last_run", &last);
		buf_addch(&b, ',');
		add_tally_json(&b, "all_runs", &all);
		buf_adds(&b, "}\n");
	} else {
		buf_addf(&b, "cache            %s\n", c->dir);
		buf_addf(&b, "units            %zu (%" PRIu64 " bytes, artifacts and manifests)\n",
			 s.nr_units, unit_bytes);
		buf_addf(&b, "keys             %zu over what the compiler read, %zu over the scanner's "
			 "closure only (no dependency output)\n", listed, scanner_only);
		buf_addf(&b, "memos            %zu (%" PRIu64 " bytes, compilers' identities and "
			 "search lists)\n", s.nr_memos, memo_bytes);
		if (orphans)
			buf_addf(&b, "orphaned temps   %zu (kwarm cache prune removes them)\n", orphans);
		buf_addf(&b, "total bytes      %" PRIu64 "\n", unit_bytes);
		if (log.nr) {
			char when[64];
			time_t t = (time_t)log.v[log.nr - 1].when;
			struct tm tm;

			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
			buf_addf(&b, "last event       %s\n", when);
		}
		add_tally_text(&b, "last run", &last);
		snprintf(name, sizeof(name), "all runs (%zu)", all.runs);
		add_tally_text(&b, name, &all);
	}
	fputs(b.s, stdout);
	buf_release(&b);
	cachelog_release(&log);
	cache_scan_release(&s);
	return ret;
}

static int cache_verify_cmd(const struct cache *c, int repair)
{
	struct cache_verify_result r;
	int failed = cache_verify(c, repair, &r) != 0;

	printf("%zu entries checked, %zu bad", r.checked, r.bad);
	if (repair)
		printf(" (%zu removed)", r.removed);
	if (r.busy)
		printf(", %zu being compiled (skipped)", r.busy);
	putchar('\n');
	fflush(stdout);
	/* Repaired, a bad entry fails only when it could not be removed. */
	return failed || r.bad > (repair ? r.removed : 0);
}

static int cache_prune_cmd(const struct cache *c, double days, uint64_t max_size)
{
	struct cache_prune_options o = { .max_age = days * 86400, .max_size = max_size,
					 .now = now_wall() };
	struct cache_prune_result r;
	int ret;

	(void)cachelog_compact(c->dir, CACHELOG_COMPACT_BYTES, CACHELOG_KEEP_RUNS);
	ret = cache_prune(c, &o, &r);
	printf("removed %zu entries (%" PRIu64 " bytes), %zu orphaned temps; %" PRIu64
	       " bytes left", r.units, r.bytes, r.temps, r.total_after);
	if (r.busy)
		printf("; %zu being compiled (kept)", r.busy);
	if (r.memos)
		printf("; %zu unused memos", r.memos);
	putchar('\n');
	fflush(stdout);
	return ret ? 1 : 0;
}

static int days_option(const struct option *opt, const char *arg, char **bad)
{
	char *end;
	double days;

	errno = 0;
	days = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(days) || days < 0) {
		*bad = xstrfmt("bad number of days '%s'", arg);
		return -1;
	}
	*(double *)opt->value = days;
	return 0;
}

static int size_option(const struct option *opt, const char *arg, char **bad)
{
	if (cache_parse_size(arg, opt->value) || !*(uint64_t *)opt->value) {
		*bad = xstrfmt("bad size '%s'", arg);
		return -1;
	}
	return 0;
}

int cmd_cache(int argc, char **argv)
{
	const char *cache_opt = NULL, *spec_path = NULL, *sub;
	double days = -1;	/* not given: 14 */
	uint64_t max_size = 0;
	int json = 0, repair = 0, ret = 1, status;
	struct cache c = { NULL };
	struct stat st;
	struct option opts[] = {
		OPT_STRING("--cache", &cache_opt),
		OPT_STRING("--spec", &spec_path),
		OPT_FLAG("--json", &json),
		OPT_FLAG("--repair", &repair),
		OPT_CALLBACK("--max-age", &days, days_option),
		OPT_CALLBACK("--max-size", &max_size, size_option),
		OPT_END(),
	};

	argc = parse_command(argc, argv, opts, 0, usage_cache, &status);
	if (argc < 0)
		return status;
	if (argc > 1)
		return usage_error(usage_cache, "more than one subcommand given");
	sub = argv[0];
	if (!sub)
		return usage_error(usage_cache, "no subcommand given");
	if (strcmp(sub, "stats") && strcmp(sub, "verify") && strcmp(sub, "prune"))
		return usage_error(usage_cache, "unknown subcommand '%s'", sub);
	if (json && strcmp(sub, "stats"))
		return usage_error(usage_cache, "--json goes with stats");
	if (repair && strcmp(sub, "verify"))
		return usage_error(usage_cache, "--repair goes with verify");
	if ((days >= 0 || max_size) && strcmp(sub, "prune"))
		return usage_error(usage_cache, "--max-age and --max-size go with prune");
	if (days < 0)
		days = 14;
	c.dir = choose_cache(cache_opt, spec_path, &status);
	if (status)
		return status;
	if (!c.dir)
		return usage_error(usage_cache, "which cache? give --cache DIR, KWARM_CACHE "
				   "or --spec SPEC");
	if (stat(c.dir, &st) || !S_ISDIR(st.st_mode)) {
		error("no cache folder at '%s'", c.dir);
		goto out;
	}
	if (!strcmp(sub, "stats"))
		ret = cache_stats(&c, json);
	else if (!strcmp(sub, "verify"))
		ret = cache_verify_cmd(&c, repair);
	else
		ret = cache_prune_cmd(&c, days, max_size);
out:
	cache_release(&c);
	return ret;
}
