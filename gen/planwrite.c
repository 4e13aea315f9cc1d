#include "planwrite.h"

/* A unit's compile record: the words of its recipe. */
static void add_record(struct planfile_writer *w, const struct plan *plan,
		       const struct plan_unit *u, struct plan_words *words)
{
	plan_unit_words(plan, u, words);
	planfile_add_record(w, u->key, words->v, words->nr);
}

/* A callable's section: its description, then the records of its distinct
 * units (the orchestration's, then each new child's). */
static void add_pack(struct planfile_writer *w, const struct plan *plan,
		     const struct plan_callable *pc, struct planfile_ref *ref,
		     struct plan_words *words)
{
	planfile_begin_pack(w, pc->desc, ref);
	add_record(w, plan, pc->orchestration, words);
	for (size_t i = 0; i < pc->spec->nr_incores; i++) {
		size_t j = 0;

		if (pc->children[i] == pc->orchestration)
			continue;
		while (j < i && pc->children[j] != pc->children[i])
			j++;
		if (j == i)
			add_record(w, plan, pc->children[i], words);
	}
	planfile_end_pack(w, ref);
}

void planwrite(const struct plan *plan, struct sink *out, struct planfile_ref *refs)
{
	const struct spec *spec = plan->spec;
	struct planfile_writer w;
	struct plan_words words = PLAN_WORDS_INIT;

	planfile_writer_init(&w, out);
	for (size_t i = 0; i < plan->nr_callables; i++)
		add_pack(&w, plan, &plan->callables[i], &refs[i], &words);
	plan_words_release(&words);
	for (size_t i = 0; i < spec->nr_classes; i++)
		planfile_add_class(&w, spec->classes[i].name);
	for (size_t i = 0; i < plan->nr_callables; i++)
		planfile_add_callable(&w, plan->callables[i].ckey, plan->callables[i].cls->name,
				      plan->callables[i].stamp_path);
	for (size_t i = 0; i < plan->nr_units; i++) {
		const struct plan_unit *u = plan->units[i];

		planfile_add_unit(&w, u->key, &u->owners, u->id, u->label);
	}
	planfile_finish(&w);
	planfile_writer_release(&w);
}
