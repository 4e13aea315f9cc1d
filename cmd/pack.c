/* kwarm pack: one callable's Makefile recipe. */
#include "commands.h"
#include "cache/cache.h"
#include "pack/pack.h"
#include "plan/planfile.h"
#include "report/annotate.h"
#include "report/made.h"
#include "parseopt.h"
#include "plan/packdesc.h"
#include "report/progress.h"
#include "publish.h"
#include "cache/store.h"
#include "key/reads.h"
#include "unitcompile.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char usage_pack[] =
	"usage: kwarm pack --cache DIR [--private DIR] --plan FILE --at OFFSET --len N\n"
	"                  [--cmds M] --out FILE --stamp FILE [--state DIR] [--class NAME]\n"
	"                  [--goals GOALS] [--format FMT] CKEY\n"
	"\n"
	"Pack callable CKEY (its description is the N bytes at OFFSET of the --plan\n"
	"file 'kwarm gen' wrote, MAKEFILE.plan; its units are in the cache) into FILE,\n"
	"children in spec order, and publish it by rename (the generated Makefile's\n"
	"recipe). STAMP records which callable FILE holds. Units missing from the\n"
	"cache are looked for in the --private store (compiled without the cache).\n"
	"A unit whose entry is corrupt or missing is compiled again, now, from the\n"
	"M bytes of compile records that follow the description (--cmds). A callable\n"
	"packed and current already (by the compile step of its last unit: STAMP and\n"
	"FILE there, no unit's entry newer than STAMP) is left as it is, quietly.\n"
	"  --state DIR     OUT/.kwarm: record the pack in the run's trace and summary\n"
	"  --class NAME    the callable's class, for those records\n"
	"  --goals GOALS   the make run's goals, to know when the run is over\n"
	"  --format FMT    text, or github: a failed class is also a GitHub annotation\n";

/* Compiles for pack_run: a unit's record, from the bytes after the
 * description, run as its recipe would, reported as a unit of the run. */
struct recompiler {
	struct pack_recompile rc;
	const struct planfile_ref *desc;
	struct runstate *rs;		/* or NULL */
	const char *goals;
	int github;
	struct closure_cache cc;	/* the files' digests, for check */
	struct made_table made;		/* what this run's compiles published */
};

/* The compile job of unit key, from its record, whose words (job points into
 * them) go to words; 0, or -1 after reporting. job and words are initialised
 * either way (the caller releases them). */
static int load_job(const struct planfile_ref *d, const char *key, struct compile_job *job,
		    struct strvec *words)
{
	char *text = NULL, *bad = NULL;
	int ret = 0;

	strvec_init(words);
	compile_job_init(job);
	if (planfile_read(d->file, d->offset + d->len, d->cmds_len, "the compile records", &text,
			  NULL))
		ret = -1;
	else if (planfile_compile_words(d->file, text, key, words) ||
		 compile_job_parse(job, (int)words->nr, words->v, &bad) || strcmp(job->key, key))
		ret = error("'%s' has no good compile record of unit %.12s%s%s; run make again",
			    d->file, key, bad ? ": " : "", bad ? bad : "");
	free(bad);
	free(text);
	return ret;
}

/* An entry made during the run: this run's compile step built it from this
 * root's files, with these bytes; or else its reads as this run sees them (its
 * base key is this run's: the key names it). */
static int check(struct pack_recompile *rc, const char *key, const char *sha)
{
	struct recompiler *r = (struct recompiler *)rc;
	struct compile_job job;
	struct strvec words;
	int ret;

	if (made_has(&r->made, key, sha))
		return 0;
	ret = load_job(r->desc, key, &job, &words);

	if (!ret && !reads_entry_matches(&r->cc, job.cache, job.uc.root, key))
		ret = error("%s: another process compiled it from other inputs than this run "
			    "sees; run make again", job.label);
	compile_job_release(&job);
	strvec_release(&words);
	return ret;
}

static int recompile(struct pack_recompile *rc, const char *key)
{
	struct recompiler *r = (struct recompiler *)rc;
	struct compile_job job;
	struct strvec words;
	int ret = -1, cached = 0;

	if (load_job(r->desc, key, &job, &words))
		goto out;
	job.github = r->github;
	job.rs = r->rs;
	job.state = r->rs ? r->rs->kw_dir : NULL;	/* its progress line says it was built */
	job.goals = r->goals;
	ret = compile_job_run_shown(&job, &cached, 0);
out:
	compile_job_release(&job);
	strvec_release(&words);
	return ret;
}

/* Whether the callable is packed and current already (pack_current), as the
 * compile step of its last unit leaves it (packnow.h). In the make run of
 * that step the recipe is empty (KW_PACKED_HERE); another run that found the
 * stamp missing or older when it began (two makes on one output folder, or
 * a tag that could not be told) still runs it. No unit is read; anything
 * amiss is the full pack's to find and report. */
static int packed_already(const char *cache_dir, const char *priv, const char *ckey,
			  const struct planfile_ref *desc, const char *out, const char *stamp)
{
	struct buf dropped = BUF_INIT;
	struct packdesc d;
	char hex[DIGEST_HEX_SIZE], *text = NULL;
	int ret = 0;

	memset(&d, 0, sizeof(d));
	if (!planfile_read(desc->file, desc->offset, desc->len, "callable descriptions", &text,
			   &dropped)) {
		digest_bytes_hex(text, desc->len, hex);
		ret = !strcmp(hex, ckey) && !packdesc_parse(text, &d) &&
		      pack_current(cache_dir, priv, &d, out, stamp);
	}
	packdesc_release(&d);
	free(text);
	buf_release(&dropped);
	return ret;
}

int cmd_pack(int argc, char **argv)
{
	const char *cache_dir = NULL, *out = NULL, *stamp = NULL, *ckey = NULL, *priv = NULL;
	const char *state = NULL, *format = NULL, *goals = NULL, *cls = "?";
	struct planfile_ref desc = { .offset = UINT64_MAX, .len = UINT64_MAX };	/* unset */
	struct recompiler r;
	struct runstate rs;
	char *label = NULL;
	struct strvec owners;
	struct cache cache = { NULL };
	int ret, github;
	double t0;
	struct option opts[] = {
		OPT_STRING("--cache", &cache_dir),
		OPT_STRING("--private", &priv),
		OPT_STRING("--plan", &desc.file),
		OPT_U64("--at", &desc.offset),
		OPT_U64("--len", &desc.len),
		OPT_U64("--cmds", &desc.cmds_len),
		OPT_STRING("--out", &out),
		OPT_STRING("--stamp", &stamp),
		OPT_STRING("--state", &state),
		OPT_STRING("--class", &cls),
		OPT_STRING("--goals", &goals),
		OPT_FORMAT(&format),
		OPT_END(),
	};

	argc = parse_command(argc, argv, opts, 0, usage_pack, &ret);
	if (argc < 0)
		return ret;
	if (argc > 1)
		return usage_error(usage_pack, "more than one callable key given");
	ckey = argv[0];
	if (!cache_dir || !out || !stamp || !ckey || strlen(ckey) != 64 || !desc.file ||
	    desc.offset == UINT64_MAX || desc.len == UINT64_MAX)
		return usage_error(usage_pack, "missing options or callable key");
	github = annotate_pick_format(format) == 1;
	if (packed_already(cache_dir, priv, ckey, &desc, out, stamp)) {
		/* Quiet: its pack was reported. The run may end here, though. */
		if (state) {
			runstate_open(&rs, state, desc.file);
			runstate_claim_entries(&rs, cache_dir, goals);
			progress_pack_found(&rs, goals, cache_dir);
			runstate_release(&rs);
		}
		return 0;
	}
	ret = 1;
	if (state) {
		label = xstrfmt("pack %s", cls);
		strvec_init(&owners);
		strvec_push(&owners, cls);
		runstate_open(&rs, state, desc.file);
		runstate_pack_begin(&rs, ckey);
		runstate_claim_entries(&rs, cache_dir, goals);
		runstate_take_slot(&rs);
	}
	t0 = now_wall();
	publish_install_signal_cleanup();
	switch (store_open(&cache, cache_dir, priv, 0, NULL, NULL)) {
	case -1:
		goto out;
	case 1:
		/* The units were compiled without the cache: the private store is it. */
		priv = NULL;
		break;
	}
	r = (struct recompiler){ .rc.compile = recompile, .rc.check = check, .desc = &desc,
				 .rs = state ? &rs : NULL, .goals = goals, .github = github };
	closure_cache_init(&r.cc);
	made_init(&r.made, r.rs);
	if (!pack_run(&cache, priv, ckey, &desc, out, stamp, desc.cmds_len ? &r.rc : NULL))
		ret = 0;
	closure_cache_release(&r.cc);
	made_close(&r.made);
out:
	if (state) {
		struct progress_step step = {
			.label = label, .key = ckey, .owners = &owners, .t0 = t0,
			.status = ret ? "failed" : "packed", .t1 = now_wall(),
			.github = github, .goals = goals, .cache_dir = cache_dir,
		};

		progress_pack_done(&rs, &step);
		strvec_release(&owners);
		runstate_release(&rs);
	}
	free(label);
	cache_release(&cache);
	return ret;
}
