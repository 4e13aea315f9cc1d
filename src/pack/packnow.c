#include "pack/packnow.h"
#include "cache/store.h"
#include "jobserver.h"
#include "pack/pack.h"
#include "plan/packdesc.h"
#include "plan/planfile.h"
#include "report/made.h"
#include "report/progress.h"
#include "report/settle.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The classes the goals pack: 1 for every class, else 0 with those pushed
 * onto picked. Unlike runstate_goals_pick_all, a goal that is neither warmup
 * nor warmup-CLASS (a unit's entry, say) asks for no pack: make packs
 * nothing for it. */
static int goals_pack_all(const char *goals, struct strvec *picked)
{
	struct strvec words;
	int all = 0;

	strvec_init(&words);
	strvec_split(&words, goals ? goals : "", 0);
	for (size_t i = 0; i < words.nr; i++) {
		if (!strcmp(words.v[i], "warmup"))
			all = 1;
		else if (starts_with(words.v[i], "warmup-") && words.v[i][7])
			strvec_push(picked, words.v[i] + 7);
	}
	all |= !words.nr;
	strvec_release(&words);
	return all;
}

/* An entry made during the run passes only when this run's compile step
 * made it (made.h): another process's is the pack recipe's to check. */
struct made_check {
	struct pack_recompile rc;
	struct made_table *made;
};

static int made_here(struct pack_recompile *rc, const char *key, const char *sha)
{
	struct made_check *m = (struct made_check *)rc;

	return made_has(m->made, key, sha) ? 0 : -1;
}

/* Pack callable c (its description d, output out) under its packing lock,
 * already held; its report as the pack step's. */
static void pack_locked(struct runstate *rs, const struct packnow *pn, struct made_table *made,
			const struct unitlist_callable *c, const char *out)
{
	struct planfile_ref desc = { .file = pn->plan, .offset = c->at, .len = c->len,
				     .cmds_len = c->cmds };
	struct made_check m = { .rc.check = made_here, .made = made };
	struct cache cache = { NULL };
	const char *priv = pn->private_dir;
	char *label = xstrfmt("pack %s", c->cls);
	struct strvec owners;
	double t0 = now_wall();
	int ret = -1;

	strvec_init(&owners);
	strvec_push(&owners, c->cls);
	/* As the pack step opens it: a cache that cannot be set up is the
	 * private store. */
	switch (store_open(&cache, pn->cache_dir, priv, 0, NULL, NULL)) {
	case 1:
		priv = NULL;
		/* fall through */
	case 0:
		ret = pack_run_gently(&cache, priv, c->ckey, &desc, out, c->stamp, &m.rc);
	}
	if (!ret) {
		struct progress_step step = {
			.label = label, .key = c->ckey, .owners = &owners, .t0 = t0,
			.status = "packed", .t1 = now_wall(), .github = pn->github,
			.goals = pn->goals, .cache_dir = pn->cache_dir, .by = "compile",
		};

		progress_pack_done(rs, &step);
	}
	runstate_pack_end(rs);
	cache_release(&cache);
	strvec_release(&owners);
	free(label);
}

/* What a first look reads of a description: its last units' lines. */
#define TAIL 4096

/* Whether a unit named in the last TAIL bytes of c's description, the last
 * first, is missing: in a warm-up most often one is, and the step stops
 * there, having read neither the whole description (a large callable's is
 * tens of KB, and every step of its units would read it) nor the rest of
 * its units' entries. */
static int tail_missing(const struct packnow *pn, struct made_table *made,
			const struct unitlist_callable *c, struct buf *dropped)
{
	uint64_t n = c->len < TAIL ? c->len : TAIL;
	char *text = NULL, key[DIGEST_HEX_SIZE];
	int missing = 0;

	if (planfile_read(pn->plan, c->at + c->len - n, n, "callable descriptions", &text,
			  dropped))
		return 1;	/* not for now: the pack rule reports */
	/* Line by line from the end; a cut first line is not one. */
	for (size_t end = n; end && !missing;) {
		size_t stop = end - 1;	/* the line's newline */
		char *nl = stop ? memrchr(text, '\n', stop) : NULL;
		size_t start = nl ? (size_t)(nl - text) + 1 : 0;
		const char *k;

		if (!start && n < c->len)
			break;
		text[stop] = '\0';
		k = packdesc_line_key(text + start);
		if (k && strncmp(k, pn->key, 64)) {
			memcpy(key, k, 64);
			key[64] = '\0';
			missing = !pack_unit_there(pn->cache_dir, pn->private_dir, made, key);
		}
		end = start;
	}
	free(text);
	return missing;
}

/* Pack callable c when each of its units is there and no other step packs
 * it or has packed it. */
static void pack_when_whole(struct runstate *rs, const struct packnow *pn,
			    struct made_table *made, const struct unitlist_callable *c)
{
	struct buf dropped = BUF_INIT;
	struct packdesc d;
	char *text = NULL, *out = planfile_stamp_output(c->stamp);

	memset(&d, 0, sizeof(d));
	if (!out || tail_missing(pn, made, c, &dropped) ||
	    planfile_read(pn->plan, c->at, c->len, "callable descriptions", &text, &dropped) ||
	    packdesc_parse(text, &d) ||
	    !pack_units_there(pn->cache_dir, pn->private_dir, made, &d, pn->key))
		goto out;
	runstate_pack_begin(rs, c->ckey);
	if (rs->pack_fd < 0)
		goto out;	/* another step of the run packs it */
	/* Another step whose unit it also waited for was first. */
	if (pack_current(pn->cache_dir, pn->private_dir, &d, out, c->stamp))
		runstate_pack_end(rs);
	else
		pack_locked(rs, pn, made, c, out);
out:
	packdesc_release(&d);
	free(text);
	free(out);
	buf_release(&dropped);
}

void packnow(struct runstate *rs, const struct packnow *pn)
{
	struct unitlist_callable *cs;
	struct made_table made;
	struct strvec picked;
	int all;

	if (!pn->nr_packs || !pn->plan)
		return;
	/* A failure without -k: make starts nothing more, packs included. */
	if (!jobserver_keep_going(getenv("MAKEFLAGS")) && runstate_marked(rs, SETTLE_FAILED_FILE))
		return;
	strvec_init(&picked);
	all = goals_pack_all(pn->goals, &picked);
	cs = xcalloc(pn->nr_packs, sizeof(*cs));
	if ((all || picked.nr) && !planfile_read_callables(pn->plan, pn->packs, pn->nr_packs, cs)) {
		made_init(&made, rs);
		for (size_t i = 0; i < pn->nr_packs; i++) {
			if (all || strvec_find(&picked, cs[i].cls) >= 0)
				pack_when_whole(rs, pn, &made, &cs[i]);
			unitlist_callable_release(&cs[i]);
		}
		made_close(&made);
	}
	free(cs);
	strvec_release(&picked);
}
