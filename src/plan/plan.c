#include "plan/plan.h"
#include "batchread.h"
#include "key/deps.h"
#include "report/durations.h"
#include "hashmap.h"
#include "pack/layout.h"
#include "plan/packdesc.h"
#include "plan/planfile.h"
#include "plan/schedule.h"
#include "path.h"
#include "cache/store.h"
#include "inorder.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>

/* The spec's limits and signature directions are the callable layout's: a
 * spec that loads always packs, and a direction is passed on as it is. */
_Static_assert(SPEC_NAME_MAX == LAYOUT_NAME_SIZE - 1, "name limit differs from the layout's");
_Static_assert(SPEC_CHIP_SIG_MAX == LAYOUT_CHIP_SIG_MAX, "orchestration signature limit differs");
_Static_assert(SPEC_CORE_SIG_MAX == LAYOUT_CORE_SIG_MAX, "incore signature limit differs");
_Static_assert(SPEC_CHILDREN_MAX == LAYOUT_CHILDREN_MAX, "incore count limit differs");
_Static_assert((int)SIG_SCALAR == (int)LAYOUT_SCALAR && (int)SIG_IN == (int)LAYOUT_IN &&
	       (int)SIG_OUT == (int)LAYOUT_OUT && (int)SIG_INOUT == (int)LAYOUT_INOUT,
	       "signature directions differ");
#include <string.h>

/* The keys are computed on two threads (inorder.h), each with memos of its
 * own: a 100k-unit spec is mostly reading and hashing its sources. */
#define PLAN_THREADS 2
/* Units keyed ahead of the one being added: enough that neither thread
 * waits for the other, few enough that their closures take little room. */
#define PLAN_WINDOW 512
/* Units a thread claims in a row: their sources are read in one batch
 * (closure_prefetch). */
#define PLAN_BATCH BATCHREAD_FILES

/* What one thread that computes keys keeps. */
struct keyer {
	struct closure_cache cc;
	struct hashmap families;	/* compiler word -> enum deps_family + 1 */
	struct buf quiet;		/* its errors: reported again where the unit is added */
};

/* Where a unit is in the spec: its callable's index, and its place there
 * (-1: the orchestration, else the incore's). */
struct unit_place {
	size_t callable;
	long incore;
};

/* A unit with its key, computed ahead of its turn. */
struct keyed_unit {
	struct unit_command uc;
	char key[DIGEST_HEX_SIZE];
	int failed;
	int control_words;		/* plan_unit.control_words */
	struct closure closure;
	struct strvec tools;		/* unitkey_out.inputs */
	struct strvec appear;		/* unitkey_out.appear */
};

/* What plan_build needs while it runs. */
struct planner {
	struct plan *plan;
	struct keyer *keyers;		/* PLAN_THREADS of them, the plan's memo */
	struct unit_place *places;	/* each unit's, in spec order */
	char *id_prefix;		/* the current callable's ids' start */
	struct hashmap by_key;		/* key -> struct plan_unit */
	struct hashmap inputs;		/* absolute path -> (void *)1 */
	struct durations durations;	/* the record of earlier compiles */
};

/* Longest recorded work first (unknown counts as average), so that make starts
 * the critical path early; stable, so equal inputs give equal Makefiles. */
static void order_units(struct plan *plan)
{
	double *secs = xcalloc(plan->nr_units, sizeof(*secs));

	for (size_t i = 0; i < plan->nr_units; i++)
		secs[i] = plan->units[i]->seconds;
	plan->lpt = xcalloc(plan->nr_units, sizeof(*plan->lpt));
	durations_order(secs, plan->nr_units, plan->lpt);
	for (size_t i = 0; i < plan->nr_units; i++)
		plan->units[plan->lpt[i]]->rank = i;
	free(secs);
}

/* Put, not get then put: a path seen before keeps its place in the order. */
static void add_input(struct planner *p, const char *abs)
{
	if (!hashmap_put(&p->inputs, abs, (void *)1) && control_byte(abs))
		p->plan->control_inputs++;
}

/* The compiler-visible form of a path written in the spec (relative to root). */
static char *visible_path(const struct spec *spec, const char *written)
{
	char *abs, *vis;

	/* Most are: root/written is then normal, and its visible form is written. */
	if (written[0] != '/' && written[0] != '-' && path_is_normal(written))
		return xstrdup(written);
	abs = path_join_normal(spec->root, written);
	vis = path_visible(spec->root, abs);
	free(abs);
	/* A leading '-' would read as an option. */
	if (vis[0] == '-') {
		char *dotted = xstrfmt("./%s", vis);

		free(vis);
		return dotted;
	}
	return vis;
}

static void push_include(struct unit_command *uc, const struct spec *spec, const char *dir)
{
	char *vis = visible_path(spec, dir);

	strvec_push_nodup(&uc->argv, xstrfmt("-I%s", vis));
	free(vis);
}

static void build_command(const struct spec *spec, const struct spec_toolchain *tc,
			  const struct strvec *extra_dirs, const char *source,
			  struct unit_command *uc)
{
	unit_command_init(uc);
	uc->platform = spec->platform;
	uc->root = spec->root;
	strvec_push(&uc->argv, tc->compiler);
	strvec_pushv(&uc->argv, &tc->flags);
	for (size_t i = 0; i < tc->include_dirs.nr; i++)
		push_include(uc, spec, tc->include_dirs.v[i]);
	for (size_t i = 0; extra_dirs && i < extra_dirs->nr; i++)
		push_include(uc, spec, extra_dirs->v[i]);
	strvec_push(&uc->argv, "-o");
	strvec_push(&uc->argv, UNITKEY_OUT);
	strvec_push_nodup(&uc->argv, visible_path(spec, source));
	for (size_t i = 0; i < tc->sources.nr; i++)
		strvec_push_nodup(&uc->argv, visible_path(spec, tc->sources.v[i]));
	strvec_pushv(&uc->link, &tc->link);
	strvec_pushv(&uc->env, &tc->env);
	uc->extract_text = tc->extract_text;
	uc->deps = tc->deps;
}

/* Record the files and folders a unit read, so the Makefile remakes itself
 * when any of them changes. */
static void record_inputs(struct planner *p, const struct closure *closure,
			  const struct strvec *tools)
{
	const char *root = p->plan->spec->root;
	const struct strvec *dirs = closure_searched_dirs(closure);

	for (size_t i = 0; i < closure->nr; i++) {
		char *abs = path_join(root, closure->files[i].path);

		add_input(p, abs);
		free(abs);
	}
	for (size_t i = 0; i < dirs->nr; i++) {
		char *abs = path_join_normal(root, dirs->v[i]);

		add_input(p, abs);
		free(abs);
	}
	for (size_t i = 0; i < tools->nr; i++)
		add_input(p, tools->v[i]);
}

/* The dependency family of a compiler word, found once per thread (deps.h). */
static enum deps_family family_of(struct keyer *k, const char *program)
{
	uintptr_t known = (uintptr_t)hashmap_get(&k->families, program);
	char *path;

	if (known)
		return (enum deps_family)(known - 1);
	path = path_which(program);
	known = (uintptr_t)deps_family_detect(path ? path : program) + 1;
	free(path);
	hashmap_put(&k->families, program, (void *)known);
	return (enum deps_family)(known - 1);
}

/* Will the unit's compile list what it read (deps.h)? By name: gen runs no compiler. */
static int unit_lists_reads(struct keyer *k, const struct unit_command *uc)
{
	struct strvec extra, env;
	enum deps_family f = uc->deps >= 0 ? (enum deps_family)uc->deps
					   : family_of(k, uc->argv.v[0]);
	int yes;

	strvec_init(&extra);
	strvec_init(&env);
	yes = !deps_request(f, unit_command_nr_sources(uc), "-", &extra, &env);
	strvec_release(&extra);
	strvec_release(&env);
	return yes;
}

static int has_control_word(const struct strvec *words)
{
	for (size_t i = 0; i < words->nr; i++)
		if (control_byte(words->v[i]))
			return 1;
	return 0;
}

/* The key of the unit at place (thread: the keyer's), its command built
 * here; errors go to the keyer's quiet buffer (take_unit reports them, in
 * spec order). */
static void key_unit(void *data, int thread, size_t i, void *result)
{
	struct planner *p = data;
	struct keyer *k = &p->keyers[thread];
	struct keyed_unit *r = result;
	const struct plan_callable *pc = &p->plan->callables[p->places[i].callable];
	const struct spec_callable *sc = pc->spec;
	long incore = p->places[i].incore;
	struct unitkey_out out = { .closure = &r->closure, .inputs = &r->tools };

	if (incore < 0)
		build_command(p->plan->spec, sc->toolchain, NULL, sc->source, &r->uc);
	else
		build_command(p->plan->spec, sc->incores[incore].toolchain,
			      &sc->incores[incore].extra_include_dirs, sc->incores[incore].source,
			      &r->uc);
	r->uc.cache_dir = p->plan->cache_dir;
	/* Looked at here, on the keying threads, while the words are fresh. */
	r->control_words = has_control_word(&r->uc.argv) || has_control_word(&r->uc.link);
	strvec_init(&r->tools);
	strvec_init(&r->appear);
	/* A compiler that lists nothing it read needs no watch for its entry. */
	out.appear = unit_lists_reads(k, &r->uc) ? &r->appear : NULL;
	buf_reset(&k->quiet);
	k->cc.why = &k->quiet;
	r->failed = unitkey_compute(&k->cc, &r->uc, r->key, &out) != 0;
	k->cc.why = NULL;
}

/* Read the sources of the units first..first+count-1 at once, on the
 * thread (its keyer's memo) that keys them next. */
static void prefetch_units(void *data, int thread, size_t first, size_t count)
{
	struct planner *p = data;
	const struct spec *spec = p->plan->spec;
	struct strvec paths = STRVEC_INIT;

	for (size_t i = first; i < first + count; i++) {
		const struct spec_callable *sc = p->plan->callables[p->places[i].callable].spec;
		long incore = p->places[i].incore;

		strvec_push_nodup(&paths, visible_path(spec, incore < 0 ? sc->source
						       : sc->incores[incore].source));
	}
	closure_prefetch(&p->keyers[thread].cc, spec->root, &paths);
	strvec_release(&paths);
}

static void release_keyed(void *data, void *result)
{
	struct keyed_unit *r = result;

	(void)data;
	unit_command_release(&r->uc);
	if (!r->failed)
		closure_release(&r->closure);
	strvec_release(&r->tools);
	strvec_release(&r->appear);
}

/* The unit of a keyed command: an existing one with the same key, or a new
 * one (r's command is taken, or released). */
static struct plan_unit *add_unit(struct planner *p, struct keyed_unit *r,
				  const struct strvec *launcher, char *label,
				  const char *owner, const char *what)
{
	struct plan *plan = p->plan;
	struct unit_command *uc = &r->uc;
	struct plan_unit *u;

	for (size_t i = 0; i < uc->env.nr; i++)
		if (strvec_find(&plan->env, uc->env.v[i]) < 0)
			strvec_push(&plan->env, uc->env.v[i]);
	if (r->failed) {
		/* Computed again here, where its errors are said in spec order. */
		struct unitkey_out out = { .closure = &r->closure, .inputs = &r->tools };

		strvec_clear(&r->tools);
		strvec_clear(&r->appear);
		out.appear = unit_lists_reads(&p->keyers[0], uc) ? &r->appear : NULL;
		r->failed = unitkey_compute(&p->keyers[0].cc, uc, r->key, &out) != 0;
	}
	if (r->failed) {
		error("in %s, %s", what, label);
		free(label);
		return NULL;
	}
	record_inputs(p, &r->closure, &r->tools);
	/* The strings move to the plan's list. */
	for (size_t i = 0; i < r->appear.nr; i++)
		strvec_push_nodup(&plan->appear, r->appear.v[i]);
	r->appear.nr = 0;

	u = hashmap_get(&p->by_key, r->key);
	if (u) {
		free(label);
	} else {
		u = xcalloc(1, sizeof(*u));
		memcpy(u->key, r->key, sizeof(r->key));
		u->label = label;
		u->id = xstrfmt("%s/%s", p->id_prefix, label);
		u->seconds = durations_get(&p->durations, u->id);
		u->index = plan->nr_units;
		u->cmd = *uc;
		u->control_words = r->control_words;
		unit_command_init(uc);	/* the unit's now */
		strvec_copy(&u->launcher, plan->launcher ? plan->launcher : launcher);
		strvec_init(&u->owners);
		hashmap_put(&p->by_key, r->key, u);
		ALLOC_GROW(plan->units, plan->nr_units + 1, plan->alloc_units);
		plan->units[plan->nr_units++] = u;
	}
	if (strvec_find(&u->owners, owner) < 0)
		strvec_push(&u->owners, owner);
	return u;
}

/* The callable's pack description (packdesc.h) and its key, the description's digest. */
static void describe(struct plan_callable *pc)
{
	const struct spec_callable *sc = pc->spec;
	struct buf b = BUF_INIT;

	packdesc_add_head(&b, pc->what, pc->cls->runtime, sc->function_name, sc->config_name,
			  sc->sig, sc->sig_count);
	packdesc_add_orch(&b, pc->orchestration->key, sc->source);
	for (size_t i = 0; i < sc->nr_incores; i++) {
		const struct spec_incore *in = &sc->incores[i];

		packdesc_add_child(&b, (int)in->func_id, pc->children[i]->key, in->sig,
				   in->sig_count, in->name);
	}
	digest_bytes_hex(b.s, b.len, pc->ckey);
	pc->desc = buf_detach(&b);
}

/* The callable's names, paths and description, once its units are added. */
static void finish_callable(struct planner *p, struct plan_callable *pc)
{
	const struct spec_callable *sc = pc->spec;
	const struct spec_class *cls = pc->cls;

	describe(pc);
	if (sc->name)
		pc->out_path = xstrfmt("%s/%s/%s.callable", p->plan->out_dir, cls->name, sc->name);
	else
		pc->out_path = xstrfmt("%s/%s.callable", p->plan->out_dir, cls->name);
	pc->stamp_path = planfile_stamp_path(p->plan->out_dir, pc->out_path, pc->ckey);
}

/* Add the i-th unit of the spec, keyed (inorder.h's take): its callable is
 * started at its orchestration and finished at its last incore. */
static int take_unit(void *data, size_t i, void *result)
{
	struct planner *p = data;
	struct plan *plan = p->plan;
	struct keyed_unit *r = result;
	struct plan_callable *pc = &plan->callables[p->places[i].callable];
	const struct spec_callable *sc = pc->spec;
	const struct spec_class *cls = pc->cls;
	long incore = p->places[i].incore;
	int ret = 0;

	if (incore < 0) {
		plan->nr_callables = p->places[i].callable + 1;
		pc->what = sc->name ? xstrfmt("class %s, callable %s", cls->name, sc->name)
				    : xstrfmt("class %s", cls->name);
		free(p->id_prefix);
		p->id_prefix = sc->name ? xstrfmt("%s/%s", cls->name, sc->name)
					: xstrdup(cls->name);
		pc->orchestration = add_unit(p, r, &sc->toolchain->launcher,
					     xstrfmt("orchestration '%s'", sc->source),
					     cls->name, pc->what);
		if (pc->orchestration)
			pc->children = xcalloc(sc->nr_incores, sizeof(*pc->children));
		else
			ret = -1;
	} else {
		const struct spec_incore *in = &sc->incores[incore];

		pc->children[incore] = add_unit(p, r, &in->toolchain->launcher,
						xstrfmt("incore '%s' (%s)", in->name, in->core_type),
						cls->name, pc->what);
		ret = pc->children[incore] ? 0 : -1;
	}
	if (!ret && (size_t)(incore + 1) == sc->nr_incores)
		finish_callable(p, pc);
	release_keyed(p, r);
	return ret;
}

static void push_word(struct plan_words *w, const char *word)
{
	ALLOC_GROW(w->v, w->nr + 1, w->alloc);
	w->v[w->nr++] = word;
}

static void push_option(struct plan_words *w, const char *name, const char *value)
{
	push_word(w, name);
	push_word(w, value);
}

void plan_words_release(struct plan_words *w)
{
	free(w->v);
	w->v = NULL;
	w->nr = w->alloc = 0;
}

void plan_common_words(const struct plan *plan, struct plan_words *words)
{
	words->nr = 0;
	push_option(words, "--cache", plan->cache_dir);
	push_option(words, "--root", plan->spec->root);
	push_option(words, "--platform", plan->spec->platform);
	push_option(words, "--private", plan->private_dir);
}

void plan_unit_walk_words(const struct plan_unit *u, void (*fn)(const char *word, void *data),
			  void *data)
{
	for (size_t i = 0; i < u->launcher.nr; i++) {
		fn("--launcher", data);
		fn(u->launcher.v[i], data);
	}
	for (size_t i = 0; i < u->cmd.link.nr; i++) {
		fn("--link", data);
		fn(u->cmd.link.v[i], data);
	}
	if (u->cmd.extract_text) {
		fn("--extract", data);
		fn("text", data);
	}
	if (u->cmd.deps >= 0) {
		fn("--deps", data);
		fn(deps_family_name((enum deps_family)u->cmd.deps), data);
	}
	for (size_t i = 0; i < u->cmd.env.nr; i++) {
		fn("--env", data);
		fn(u->cmd.env.v[i], data);
	}
	fn("--", data);
	for (size_t i = 0; i < u->cmd.argv.nr; i++)
		fn(u->cmd.argv.v[i], data);
}

/* The keyers' memos of every file read and scanned: a plan keeps them, for
 * a gen that writes its plan exits without freeing them piece by piece
 * (~0.15 s at 100k units). */
static void release_memo(struct keyer *keyers)
{
	if (!keyers)
		return;
	free((char *)keyers[0].cc.tool_memo_dir);
	for (int t = 0; t < PLAN_THREADS; t++) {
		closure_cache_release(&keyers[t].cc);
		hashmap_release(&keyers[t].families);
		buf_release(&keyers[t].quiet);
	}
	free(keyers);
}

int plan_build(struct plan *plan, const struct spec *spec, const char *cache_dir,
	       const char *out_dir, const struct strvec *launcher)
{
	struct planner p;
	size_t total = 0, units = 0;
	char *tools;
	int ret = 0;

	memset(plan, 0, sizeof(*plan));
	plan->spec = spec;
	plan->launcher = launcher;
	plan->cache_dir = path_absolute(cache_dir);
	plan->out_dir = path_absolute(out_dir);
	plan->private_dir = store_private_dir(plan->out_dir);
	strvec_init(&plan->inputs);
	strvec_init(&plan->appear);
	strvec_init(&plan->env);
	for (size_t i = 0; unitkey_steering_env[i]; i++)
		strvec_push(&plan->env, unitkey_steering_env[i]);
	for (size_t i = 0; i < spec->nr_classes; i++) {
		total += spec->classes[i].nr_callables;
		for (size_t j = 0; j < spec->classes[i].nr_callables; j++)
			units += 1 + spec->classes[i].callables[j].nr_incores;
	}
	plan->callables = xcalloc(total, sizeof(*plan->callables));

	memset(&p, 0, sizeof(p));
	p.plan = plan;
	p.keyers = xcalloc(PLAN_THREADS, sizeof(*p.keyers));
	plan->memo = p.keyers;
	/* The compilers' identities go where the steps look for them: the run's
	 * first steps (make starts -jN at once) need not each hash a compiler
	 * before starting it, and the next gen need not either. */
	tools = path_join(plan->cache_dir, "tools");
	for (int t = 0; t < PLAN_THREADS; t++) {
		struct keyer *k = &p.keyers[t];

		closure_cache_init(&k->cc);
		k->cc.snapshot = 1;
		k->cc.tool_memo_dir = tools;
		hashmap_init(&k->families);
		buf_init(&k->quiet);
		/* Each thread takes about its share of the sources. */
		hashmap_reserve(&k->cc.scans, units / PLAN_THREADS + 1);
	}
	hashmap_init(&p.by_key);
	hashmap_init(&p.inputs);
	/* Sized for distinct units, each with its own source: nothing moves
	 * while a large spec fills them. */
	ALLOC_GROW(plan->units, units, plan->alloc_units);
	hashmap_reserve(&p.by_key, units);
	hashmap_reserve(&p.inputs, units);
	durations_init(&p.durations);
	durations_load(&p.durations, plan->cache_dir);
	{
		char *spec_abs = path_absolute(spec->file);

		add_input(&p, spec_abs);
		free(spec_abs);
	}
	p.places = xcalloc(units ? units : 1, sizeof(*p.places));
	units = 0;
	for (size_t i = 0, c = 0; i < spec->nr_classes; i++) {
		const struct spec_class *cls = &spec->classes[i];

		for (size_t j = 0; j < cls->nr_callables; j++, c++) {
			struct plan_callable *pc = &plan->callables[c];

			pc->cls = cls;
			pc->spec = &cls->callables[j];
			for (long k = -1; k < (long)pc->spec->nr_incores; k++)
				p.places[units++] = (struct unit_place){ c, k };
		}
	}
	{
		static const struct inorder_ops ops = { key_unit, take_unit, release_keyed,
							prefetch_units };

		ret = inorder_run(units, PLAN_WINDOW, PLAN_BATCH, sizeof(struct keyed_unit),
				  PLAN_THREADS, &ops, &p);
	}
	/* Every source is read: the readers' room goes before the plan's
	 * peak. */
	for (int t = 0; t < PLAN_THREADS; t++)
		closure_prefetch_end(&p.keyers[t].cc);
	free(p.places);
	free(p.id_prefix);
	/* The paths move to the plan's list. */
	for (size_t i = 0; i < p.inputs.nr; i++) {
		strvec_push_nodup(&plan->inputs, p.inputs.entries[i].key);
		p.inputs.entries[i].key = NULL;
	}
	order_units(plan);
	if (!ret)
		schedule_choose(plan);
	durations_release(&p.durations);
	hashmap_release(&p.inputs);
	hashmap_release(&p.by_key);
	if (ret) {
		release_memo(p.keyers);
		plan->memo = NULL;
	}
	return ret;
}

void plan_release(struct plan *plan)
{
	release_memo(plan->memo);
	for (size_t i = 0; i < plan->nr_units; i++) {
		struct plan_unit *u = plan->units[i];

		free(u->label);
		free(u->id);
		unit_command_release(&u->cmd);
		strvec_release(&u->launcher);
		strvec_release(&u->owners);
		free(u);
	}
	free(plan->units);
	free(plan->lpt);
	for (size_t i = 0; i < plan->nr_callables; i++) {
		struct plan_callable *pc = &plan->callables[i];

		free(pc->what);
		free(pc->children);
		free(pc->desc);
		free(pc->out_path);
		free(pc->stamp_path);
	}
	free(plan->callables);
	strvec_release(&plan->inputs);
	strvec_release(&plan->appear);
	strvec_release(&plan->env);
	free(plan->cache_dir);
	free(plan->out_dir);
	free(plan->private_dir);
	memset(plan, 0, sizeof(*plan));
}
