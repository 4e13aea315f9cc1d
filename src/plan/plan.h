/* plan: the spec turned into work. Distinct compile units (deduplicated by key
 * across classes and callables), callables with their pack descriptions, and
 * every input file the generated Makefile must depend on. */
#ifndef KWARM_PLAN_H
#define KWARM_PLAN_H

#include "buf.h"
#include "key/closure.h"
#include "spec/spec.h"
#include "key/unitkey.h"

#include <stdint.h>

struct plan_unit {
	char key[DIGEST_HEX_SIZE];
	char *label;			/* "incore 'copy_hidden' (aiv)" of its first owner */
	char *id;			/* stable identity for the durations record:
					 * "Class[/callable]/label" of its first owner */
	struct unit_command cmd;
	struct strvec launcher;		/* prefixes the compile only; not in the key */
	struct strvec owners;		/* class names, first-seen order, unique */
	double seconds;			/* recorded compile time, for ordering; -1 unknown */
	size_t rank;			/* position in the plan's longest-first order */
	size_t index;			/* position in plan->units */
	int control_words;		/* a word of cmd has a control byte (util.h) */
};

struct plan_callable {
	const struct spec_class *cls;
	const struct spec_callable *spec;
	char *what;			/* "class TestX" or "class TestX, callable y" */
	struct plan_unit *orchestration;
	struct plan_unit **children;	/* spec order */
	char ckey[DIGEST_HEX_SIZE];	/* SHA-256 of desc */
	char *desc;			/* the pack description (packdesc.h) */
	char *out_path;			/* OUT/<class>.callable or OUT/<class>/<name>.callable */
	/* OUT/.kwarm/stamps/<out_path below OUT>/<ckey>: "OUT holds ckey"; the
	 * folder holds this output's stamps only, so a pack lists just them. */
	char *stamp_path;
};

struct plan {
	const struct spec *spec;
	char *cache_dir, *out_dir;	/* absolute */
	char *private_dir;		/* out_dir's private store (store.h) */
	struct plan_unit **units;	/* first-seen order */
	size_t *lpt;			/* indexes into units, longest recorded first */
	size_t nr_units, alloc_units;
	uint64_t spec_jobs;		/* bit N: make -jN goes no slower in spec
					 * order than in lpt's (schedule.h) */
	struct plan_callable *callables;	/* spec order */
	size_t nr_callables;
	struct strvec inputs;		/* absolute files and folders the plan read, first-seen order */
	size_t control_inputs;		/* how many of them have a control byte (util.h) */
	struct strvec appear;		/* absolute paths whose appearance changes a key */
	struct strvec env;		/* variables the keys cover */
	const struct strvec *launcher;	/* the --launcher override, or NULL */
	void *memo;			/* what keying read, for plan_release (plan.c) */
};

/* Build the plan; 0, or -1 after reporting an error naming the class and unit.
 * launcher, when not NULL, prefixes every role's compiles instead of the spec's. */
int plan_build(struct plan *plan, const struct spec *spec, const char *cache_dir,
	       const char *out_dir, const struct strvec *launcher);
void plan_release(struct plan *plan);
/* Recipe words, borrowed: they point into the plan and live while it does. */
struct plan_words {
	const char **v;
	size_t nr, alloc;
};

#define PLAN_WORDS_INIT { NULL, 0, 0 }
void plan_words_release(struct plan_words *w);
/* The options every unit's `kwarm compile` recipe has alike (--cache, --root,
 * --platform, --private; words emptied first): the plan's side file holds
 * them once. A unit's recipe is these, its own --key, --unit, --id and
 * --owners, then plan_unit_walk_words. */
void plan_common_words(const struct plan *plan, struct plan_words *words);
/* fn(word, data) for each word of a recipe that only unit u has, in
 * order (the Makefile writes them too): launcher, link, extract, deps, env,
 * "--", the command. */
void plan_unit_walk_words(const struct plan_unit *u, void (*fn)(const char *word, void *data),
			  void *data);

#endif
