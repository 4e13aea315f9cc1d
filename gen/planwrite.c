#include "planwrite.h"
#include "util.h"

#include <stdlib.h>

static void push_word(const char *word, void *data)
{
	struct plan_words *words = data;

	ALLOC_GROW(words->v, words->nr + 1, words->alloc);
	words->v[words->nr++] = word;
}

/* A unit's compile record: the words of its recipe only it has. */
static void add_record(struct planfile_writer *w, const struct plan_unit *u,
		       struct plan_words *words)
{
	words->nr = 0;
	plan_unit_walk_words(u, push_word, words);
	planfile_add_record(w, u->key, words->v, words->nr);
}

/* A callable's section: its description, then the records of its distinct
 * units (the orchestration's, then each new child's). */
static void add_pack(struct planfile_writer *w, const struct plan_callable *pc,
		     struct planfile_ref *ref, struct plan_words *words)
{
	planfile_begin_pack(w, pc->desc, ref);
	add_record(w, pc->orchestration, words);
	for (size_t i = 0; i < pc->spec->nr_incores; i++) {
		size_t j = 0;

		if (pc->children[i] == pc->orchestration)
			continue;
		while (j < i && pc->children[j] != pc->children[i])
			j++;
		if (j == i)
			add_record(w, pc->children[i], words);
	}
	planfile_end_pack(w, ref);
}

/* The callables each unit is in, by the unit's place in plan->units. */
struct unit_packs {
	size_t *v;
	size_t nr, alloc;
};

static void add_unit_pack(struct unit_packs *packs, const struct plan_unit *u, size_t callable)
{
	struct unit_packs *p = &packs[u->index];

	/* A unit twice in one callable is listed once: callables go in order. */
	if (p->nr && p->v[p->nr - 1] == callable)
		return;
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr++] = callable;
}

static struct unit_packs *unit_packs(const struct plan *plan)
{
	struct unit_packs *packs = xcalloc(plan->nr_units + 1, sizeof(*packs));

	for (size_t c = 0; c < plan->nr_callables; c++) {
		const struct plan_callable *pc = &plan->callables[c];

		add_unit_pack(packs, pc->orchestration, c);
		for (size_t i = 0; i < pc->spec->nr_incores; i++)
			add_unit_pack(packs, pc->children[i], c);
	}
	return packs;
}

void planwrite(const struct plan *plan, struct sink *out, struct planfile_ref *refs)
{
	const struct spec *spec = plan->spec;
	struct planfile_writer w;
	struct plan_words words = PLAN_WORDS_INIT;
	struct unit_packs *packs = unit_packs(plan);

	planfile_writer_init(&w, out);
	for (size_t i = 0; i < plan->nr_callables; i++)
		add_pack(&w, &plan->callables[i], &refs[i], &words);
	plan_common_words(plan, &words);
	planfile_add_common(&w, words.v, words.nr);
	plan_words_release(&words);
	for (size_t i = 0; i < spec->nr_classes; i++)
		planfile_add_class(&w, spec->classes[i].name);
	for (size_t i = 0; i < plan->nr_callables; i++)
		planfile_add_callable(&w, plan->callables[i].ckey, plan->callables[i].cls->name,
				      plan->callables[i].stamp_path, &refs[i]);
	for (size_t i = 0; i < plan->nr_units; i++) {
		const struct plan_unit *u = plan->units[i];

		planfile_add_unit(&w, u->key, &u->owners, u->id, u->label, packs[i].v, packs[i].nr);
		free(packs[i].v);
	}
	free(packs);
	planfile_finish(&w);
	planfile_writer_release(&w);
}
