#include "plan/plan.h"
#include "key/deps.h"
#include "report/durations.h"
#include "hashmap.h"
#include "pack/layout.h"
#include "plan/packdesc.h"
#include "plan/planfile.h"
#include "plan/schedule.h"
#include "path.h"
#include "cache/store.h"
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

/* What plan_build needs while it runs. */
struct planner {
	struct plan *plan;
	struct closure_cache cc;
	struct hashmap by_key;		/* key -> struct plan_unit */
	struct hashmap inputs;		/* absolute path -> (void *)1 */
	struct durations durations;	/* the record of earlier compiles */
	struct hashmap families;	/* compiler word -> enum deps_family + 1 */
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
	hashmap_put(&p->inputs, abs, (void *)1);
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

/* The dependency family of a compiler word, found once per run (deps.h). */
static enum deps_family family_of(struct planner *p, const char *program)
{
	uintptr_t known = (uintptr_t)hashmap_get(&p->families, program);
	char *path;

	if (known)
		return (enum deps_family)(known - 1);
	path = path_which(program);
	known = (uintptr_t)deps_family_detect(path ? path : program) + 1;
	free(path);
	hashmap_put(&p->families, program, (void *)known);
	return (enum deps_family)(known - 1);
}

/* Will the unit's compile list what it read (deps.h)? By name: gen runs no compiler. */
static int unit_lists_reads(struct planner *p, const struct unit_command *uc)
{
	struct strvec extra, env;
	enum deps_family f = uc->deps >= 0 ? (enum deps_family)uc->deps
					   : family_of(p, uc->argv.v[0]);
	int yes;

	strvec_init(&extra);
	strvec_init(&env);
	yes = !deps_request(f, unit_command_nr_sources(uc), "-", &extra, &env);
	strvec_release(&extra);
	strvec_release(&env);
	return yes;
}

/* The unit for this command: an existing one with the same key, or a new one. */
static struct plan_unit *add_unit(struct planner *p, struct unit_command *uc,
				  const struct strvec *launcher, char *label,
				  const char *owner, const char *what, const char *id_prefix)
{
	struct plan *plan = p->plan;
	struct plan_unit *u;
	char key[DIGEST_HEX_SIZE];
	struct closure closure;
	struct strvec tools;
	struct unitkey_out out = { .closure = &closure, .inputs = &tools,
				   .appear = &plan->appear };

	strvec_init(&tools);
	uc->cache_dir = plan->cache_dir;
	/* A compiler that lists nothing it read needs no watch for its entry. */
	out.appear = unit_lists_reads(p, uc) ? &plan->appear : NULL;
	for (size_t i = 0; i < uc->env.nr; i++)
		if (strvec_find(&plan->env, uc->env.v[i]) < 0)
			strvec_push(&plan->env, uc->env.v[i]);
	if (unitkey_compute(&p->cc, uc, key, &out)) {
		error("in %s, %s", what, label);
		strvec_release(&tools);
		unit_command_release(uc);
		free(label);
		return NULL;
	}
	record_inputs(p, &closure, &tools);
	closure_release(&closure);
	strvec_release(&tools);

	u = hashmap_get(&p->by_key, key);
	if (u) {
		unit_command_release(uc);
		free(label);
	} else {
		u = xcalloc(1, sizeof(*u));
		memcpy(u->key, key, sizeof(key));
		u->label = label;
		u->id = xstrfmt("%s/%s", id_prefix, label);
		u->seconds = durations_get(&p->durations, u->id);
		u->index = plan->nr_units;
		u->cmd = *uc;
		strvec_copy(&u->launcher, plan->launcher ? plan->launcher : launcher);
		strvec_init(&u->owners);
		hashmap_put(&p->by_key, key, u);
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

static int plan_callable(struct planner *p, const struct spec_class *cls,
			 const struct spec_callable *sc, struct plan_callable *pc)
{
	const struct spec *spec = p->plan->spec;
	struct unit_command uc;
	char *label, *id_prefix;

	pc->cls = cls;
	pc->spec = sc;
	pc->what = sc->name ? xstrfmt("class %s, callable %s", cls->name, sc->name)
			    : xstrfmt("class %s", cls->name);
	id_prefix = sc->name ? xstrfmt("%s/%s", cls->name, sc->name) : xstrdup(cls->name);
	build_command(spec, sc->toolchain, NULL, sc->source, &uc);
	label = xstrfmt("orchestration '%s'", sc->source);
	pc->orchestration = add_unit(p, &uc, &sc->toolchain->launcher, label, cls->name, pc->what,
				     id_prefix);
	if (!pc->orchestration) {
		free(id_prefix);
		return -1;
	}
	pc->children = xcalloc(sc->nr_incores, sizeof(*pc->children));
	for (size_t i = 0; i < sc->nr_incores; i++) {
		const struct spec_incore *in = &sc->incores[i];

		build_command(spec, in->toolchain, &in->extra_include_dirs, in->source, &uc);
		label = xstrfmt("incore '%s' (%s)", in->name, in->core_type);
		pc->children[i] = add_unit(p, &uc, &in->toolchain->launcher, label, cls->name,
					   pc->what, id_prefix);
		if (!pc->children[i]) {
			free(id_prefix);
			return -1;
		}
	}
	free(id_prefix);
	describe(pc);
	if (sc->name)
		pc->out_path = xstrfmt("%s/%s/%s.callable", p->plan->out_dir, cls->name, sc->name);
	else
		pc->out_path = xstrfmt("%s/%s.callable", p->plan->out_dir, cls->name);
	pc->stamp_path = planfile_stamp_path(p->plan->out_dir, pc->out_path, pc->ckey);
	return 0;
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
	closure_cache_init(&p.cc);
	p.cc.snapshot = 1;
	/* The compilers' identities go where the steps look for them: the run's
	 * first steps (make starts -jN at once) need not each hash a compiler
	 * before starting it, and the next gen need not either. */
	tools = path_join(plan->cache_dir, "tools");
	p.cc.tool_memo_dir = tools;
	hashmap_init(&p.by_key);
	hashmap_init(&p.inputs);
	hashmap_init(&p.families);
	/* Sized for distinct units, each with its own source: nothing moves
	 * while a large spec fills them. */
	ALLOC_GROW(plan->units, units, plan->alloc_units);
	hashmap_reserve(&p.by_key, units);
	hashmap_reserve(&p.inputs, units);
	hashmap_reserve(&p.cc.scans, units);
	durations_init(&p.durations);
	durations_load(&p.durations, plan->cache_dir);
	{
		char *spec_abs = path_absolute(spec->file);

		add_input(&p, spec_abs);
		free(spec_abs);
	}
	for (size_t i = 0; i < spec->nr_classes && !ret; i++) {
		const struct spec_class *cls = &spec->classes[i];

		for (size_t j = 0; j < cls->nr_callables && !ret; j++)
			ret = plan_callable(&p, cls, &cls->callables[j],
					    &plan->callables[plan->nr_callables++]);
	}
	for (size_t i = 0; i < p.inputs.nr; i++)
		strvec_push(&plan->inputs, p.inputs.entries[i].key);
	order_units(plan);
	if (!ret)
		schedule_choose(plan);
	durations_release(&p.durations);
	hashmap_release(&p.inputs);
	hashmap_release(&p.families);
	hashmap_release(&p.by_key);
	closure_cache_release(&p.cc);
	free(tools);
	return ret;
}

void plan_release(struct plan *plan)
{
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
