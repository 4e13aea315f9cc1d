#include "makefile.h"
#include "inputs.h"
#include "cache/cache.h"
#include "report/runstate.h"
#include "plan/schedule.h"

#include <stdlib.h>
#include "util.h"
#include "version.h"

#include <string.h>

/* Control characters (a newline above all) would end a line of the Makefile
 * or of its watch list: a path that holds one is refused. The watch list is
 * read by kwarm stale, not make, so what make cannot quote in a prerequisite
 * list (';' '=' '(' ')' '\', a blank at the end) is no bar. A byte at a time
 * with no table: gen checks a few dozen words a unit. */
static int unsafe_for_make(const char *path)
{
	return control_byte(path);
}

/* A path as a make target (as_target) or prerequisite: make reads '%' as a
 * pattern only in targets, and keeps a backslash before it elsewhere. Runs
 * of plain characters go in whole (gen writes a few paths a unit). */
static void add_path(struct buf *b, const char *path, int as_target)
{
	const char *special = as_target ? " \t#:*?[]|$%" : " \t#:*?[]|$";

	for (const char *p = path; *p; p++) {
		size_t n = strcspn(p, special);

		buf_add(b, p, n);
		p += n;
		if (!*p)
			break;
		buf_adds(b, *p == '$' ? "$" : "\\");
		buf_addch(b, *p);
	}
}

void makefile_add_target(struct buf *b, const char *path)
{
	add_path(b, path, 1);
}

void makefile_add_prereq(struct buf *b, const char *path)
{
	add_path(b, path, 0);
}

void makefile_add_comment_text(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	for (; *p; p++)
		if (*p < 0x20 || *p == '\\') {
			buf_add(b, run, (size_t)(p - run));
			buf_addch(b, '?');
			run = p + 1;
		}
	buf_add(b, run, (size_t)(p - run));
}

static int check_unit_paths(const struct plan_unit *u)
{
	const struct strvec *lists[] = { &u->launcher, &u->cmd.argv, &u->cmd.link };

	/* The command's words were looked at where the key was computed, while
	 * in the cache (plan_unit.control_words): 100k units' words are 70 ms
	 * of gen to look at again here. */
	for (size_t l = 0; l < (u->control_words ? ARRAY_SIZE(lists) : 1); l++)
		for (size_t i = 0; i < lists[l]->nr; i++) {
			int c = unsafe_for_make(lists[l]->v[i]);

			if (c)
				return error("%s of class %s: '%s' has a character that cannot "
					     "pass through make safely (byte 0x%02x)",
					     u->label, u->owners.v[0], lists[l]->v[i], c);
		}
	return 0;
}

/* A unit's entry, the make target, spelled out: make reads a name in a
 * prerequisite list at a cost that grows with its length, and a $(KW_CACHE)
 * to expand or a $(call) adds to it (100k units are 200k names). */
static void add_unit_target(struct buf *b, const struct plan *plan, const struct plan_unit *u)
{
	cache_add_unit_path(b, plan->cache_dir, u->key, CACHE_ENTRY_SUFFIX);
}

/* A path under the out folder as $(KW_OUT)/..., else as it is (a target when
 * as_target). */
static void add_out_path(struct buf *b, const struct plan *plan, const char *path, int as_target)
{
	size_t n = strlen(plan->out_dir);

	if (!strncmp(path, plan->out_dir, n) && path[n] == '/') {
		buf_adds(b, "$(KW_OUT)");
		path += n;
	}
	add_path(b, path, as_target);
}

/* A recipe's word in a variable's value: shell-quoted, and a '#' escaped,
 * which make reads as a comment there (not in a recipe): n backslashes
 * before it become 2n + 1. */
static void add_value_word(const char *word, void *b)
{
	struct buf w = BUF_INIT;

	buf_addch(b, ' ');
	if (!strchr(word, '#')) {
		add_shell_word(b, word, 1);
		return;
	}
	add_shell_word(&w, word, 1);
	for (const char *p = w.s; *p; p++) {
		size_t n = strspn(p, "\\");

		buf_add(b, p, n);
		if (p[n] == '#') {
			buf_add(b, p, n);
			buf_addch(b, '\\');
		}
		p += n;
		if (!*p)
			break;
		buf_addch(b, *p);
	}
	buf_release(&w);
}

/* KW_CMD_<key>: the words of a unit's recipe that only it has (the rest is
 * KW_COMPILE, which takes the key from the target's name), as the plan's side
 * file has them: its launcher, link and extract steps, dependency family and
 * variables, then "--" and the compile command. A variable, not a rule of its
 * own: make reads it for about half what a rule naming the entry costs. */
static void add_unit_words(struct buf *b, const struct plan_unit *u)
{
	buf_adds(b, "KW_CMD_");
	buf_adds(b, u->key);
	buf_adds(b, " =");
	plan_unit_walk_words(u, add_value_word, b);
}

static void write_unit(struct buf *b, const struct plan_unit *u)
{
	buf_adds(b, "# ");
	makefile_add_comment_text(b, u->label);
	buf_adds(b, " of ");
	for (size_t i = 0; i < u->owners.nr; i++) {
		buf_adds(b, i ? ", " : "");
		makefile_add_comment_text(b, u->owners.v[i]);
	}
	buf_addch(b, '\n');
	add_unit_words(b, u);
	buf_adds(b, "\n\n");
}

/* The one rule of every unit: its entry, from its own words. */
static void write_unit_rule(struct buf *b, const struct plan *plan)
{
	buf_adds(b, "# ---- compile units (one per distinct command and inputs): each unit's\n"
		 "# target is its entry, made by this rule from the unit's own words\n");
	buf_adds(b, plan->cache_dir);
	buf_adds(b, "/" CACHE_UNITS_DIR "/%" CACHE_ENTRY_SUFFIX ":\n"
		 "\t$(KW_Q)$(KW_COMPILE) $(KW_CMD_$(notdir $*))\n");
	/* An entry is whole under its name (one rename publishes it): make must
	 * not delete one whose step it interrupts (Ctrl-C after the publish,
	 * while the step reports or packs) or that a failing step left. */
	buf_adds(b, ".PRECIOUS: ");
	buf_adds(b, plan->cache_dir);
	buf_adds(b, "/" CACHE_UNITS_DIR "/%" CACHE_ENTRY_SUFFIX "\n\n");
}

/* n as printf's "%4d" would write it, by hand: a line per incore. */
static void add_int4(struct buf *b, int n)
{
	char digits[16];
	size_t at = sizeof(digits);
	unsigned int v = n < 0 ? 0U - (unsigned int)n : (unsigned int)n;

	do
		digits[--at] = (char)('0' + v % 10);
	while (v /= 10);
	if (n < 0)
		digits[--at] = '-';
	for (size_t width = sizeof(digits) - at; width < 4; width++)
		buf_addch(b, ' ');
	buf_add(b, digits + at, sizeof(digits) - at);
}

static void write_class_comment(struct buf *b, const struct plan_callable *pc)
{
	const struct spec_callable *sc = pc->spec;

	buf_adds(b, "#   orchestration  ");
	makefile_add_comment_text(b, sc->source);
	buf_adds(b, "  (");
	buf_adds(b, sc->function_name);
	buf_adds(b, ")\n");
	for (size_t i = 0; i < sc->nr_incores; i++) {
		const struct spec_incore *in = &sc->incores[i];

		buf_adds(b, "#   incore ");
		add_int4(b, (int)in->func_id);
		buf_adds(b, "  ");
		makefile_add_comment_text(b, in->name);
		buf_adds(b, "  ");
		buf_adds(b, in->core_type);
		buf_adds(b, "  ");
		makefile_add_comment_text(b, in->source);
		buf_addch(b, '\n');
	}
}

static int by_rank(const void *a, const void *b)
{
	const struct plan_unit *ua = *(struct plan_unit *const *)a, *ub = *(struct plan_unit *const *)b;

	return ua->rank < ub->rank ? -1 : ua->rank > ub->rank;
}

/* The name of the variable that lists a callable's units: KW_UNITS_CLASS, or
 * KW_UNITS_CLASS.CALLABLE in a level-3 class (names are [A-Za-z0-9_.-]). */
static void add_units_var(struct buf *b, const struct plan_callable *pc)
{
	buf_addf(b, "KW_UNITS_%s", pc->cls->name);
	if (pc->spec->name)
		buf_addf(b, ".%s", pc->spec->name);
}

/* The units of pc's pack rule, in its order: each distinct unit once,
 * longest recorded first. units has room for all (1 + its incores); their
 * number. */
static size_t callable_units(const struct plan_callable *pc, struct plan_unit **units)
{
	size_t n = 0;

	units[n++] = pc->orchestration;
	for (size_t i = 0; i < pc->spec->nr_incores; i++) {
		size_t j;

		for (j = 0; j < n && units[j] != pc->children[i]; j++)
			;
		if (j == n)
			units[n++] = pc->children[i];
	}
	qsort(units, n, sizeof(*units), by_rank);
	return n;
}

static void write_callable(struct buf *b, const struct plan *plan, const struct plan_callable *pc,
			   const struct planfile_ref *ref)
{
	struct plan_unit **units = xcalloc(pc->spec->nr_incores + 1, sizeof(*units));
	size_t n = callable_units(pc, units);

	/* The callable's units, for its pack rule and for help. */
	add_units_var(b, pc);
	buf_adds(b, " :=");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, " \\\n    ");
		add_unit_target(b, plan, units[i]);
	}
	buf_addch(b, '\n');
	add_out_path(b, plan, pc->stamp_path, 1);
	buf_adds(b, ": $(");
	add_units_var(b, pc);
	/* A missing output, or a folder in its place, forces a repack even when
	 * the stamp says it is current (in the rule's own line: make reads one
	 * line less a class). */
	buf_adds(b, ") $(if $(wildcard ");
	add_out_path(b, plan, pc->out_path, 0);
	buf_adds(b, "/.),kw-force,$(if $(wildcard ");
	add_out_path(b, plan, pc->out_path, 0);
	/* Order-only: the side file is rewritten by every generation, and the
	 * stamp's name already carries the description's digest. */
	buf_addf(b, "),,kw-force)) | $(KW_PLANFILE)\n\t$(if $(KW_PACKED_HERE),,$(KW_Q)$(KW_PACK) "
		 "--class %s --at %llu --len %llu --cmds %llu --out ", pc->cls->name,
		 (unsigned long long)ref->offset, (unsigned long long)ref->len,
		 (unsigned long long)ref->cmds_len);
	if (!strncmp(pc->out_path, plan->out_dir, strlen(plan->out_dir)))
		buf_addf(b, "$(KW_OUT)%s", pc->out_path + strlen(plan->out_dir));
	else
		add_shell_word(b, pc->out_path, 1);
	buf_addf(b, " %s)\n\n", pc->ckey);
	free(units);
}

/* Folders written unquoted into targets: only plain characters. */
static int check_folder(const char *what, const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x80 && !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789_+,@./-", *p))
			return error("the %s '%s' has a character kwarm cannot pass through make "
				     "safely ('%c'); choose another folder", what, path, *p);
	return 0;
}

/* help: each class with its callables and how many of its units the cache
 * holds now (make counts the entries when help runs). */
static void write_help(struct sink *out, const struct plan *plan)
{
	const struct spec *spec = plan->spec;
	struct buf *b = &out->b;
	size_t ci = 0;

	buf_adds(b, "help:\n\t@echo 'targets of this warm-up (units in the cache / units):'\n"
		 "\t@echo '  warmup             every class'\n");
	for (size_t i = 0; i < spec->nr_classes; i++) {
		const struct spec_class *cls = &spec->classes[i];
		struct buf units = BUF_INIT;

		buf_adds(&units, "$(sort");
		for (size_t j = 0; j < cls->nr_callables; j++) {
			buf_adds(&units, " $(");
			add_units_var(&units, &plan->callables[ci + j]);
			buf_addch(&units, ')');
		}
		buf_addch(&units, ')');
		buf_addf(b, "\t@echo '  warmup-%s  %zu callable%s, units $(words $(wildcard %s)) / "
			 "$(words %s)'\n", cls->name, cls->nr_callables,
			 cls->nr_callables == 1 ? "" : "s", units.s, units.s);
		for (size_t j = 0; cls->level == 3 && j < cls->nr_callables; j++) {
			buf_adds(b, "\t@echo '      callable ");
			buf_adds(b, plan->callables[ci + j].spec->name);
			buf_adds(b, ": units $(words $(wildcard $(");
			add_units_var(b, &plan->callables[ci + j]);
			buf_adds(b, "))) / $(words $(");
			add_units_var(b, &plan->callables[ci + j]);
			buf_adds(b, "))'\n");
		}
		buf_release(&units);
		ci += cls->nr_callables;
		sink_flush(out);
	}
}

/* Every path the Makefile names must pass through make and the shell. */
static int check_paths(const struct plan *plan, const struct makefile_options *opts)
{
	if (check_folder("Makefile path", opts->plan_file) ||
	    check_folder("cache folder", plan->cache_dir) ||
	    check_folder("output folder", plan->out_dir) ||
	    check_folder("kwarm program path", opts->kwarm))
		return -1;

	for (size_t i = 0; i < plan->nr_units; i++)
		if (check_unit_paths(plan->units[i]))
			return -1;
	for (size_t i = 0; plan->control_inputs && i < plan->inputs.nr; i++) {
		int c = unsafe_for_make(plan->inputs.v[i]);

		if (c)
			return error("input '%s' has a character that cannot pass through make "
				     "safely (byte 0x%02x)", plan->inputs.v[i], c);
	}
	return 0;
}

/* The header's lines that makefile_read_header reads back (kwarm explain). */
#define HEAD_SPEC " from "
#define HEAD_SPEC_END "; do not edit"
#define HEAD_CACHE "# cache "
#define HEAD_OUT "# out   "

/* The comment at the top: what the file is and how to use it. */
static void write_header(struct buf *b, const struct plan *plan, const struct makefile_options *opts)
{
	const struct spec *spec = plan->spec;

	buf_adds(b, "# Generated by kwarm " KWARM_VERSION HEAD_SPEC);
	makefile_add_comment_text(b, opts->spec_abs);
	buf_adds(b, HEAD_SPEC_END ".\n"
		 "# The warm-up's plan: each distinct compile unit, its compiler command\n"
		 "# in full, then every class with its callables and units (at the end).\n"
		 "#\n"
		 "#   make -f THIS -jN warmup        compile and pack every class\n"
		 "#   make -f THIS warmup-CLASS      one class\n"
		 "#   make -f THIS help              the classes, their callables, units cached\n"
		 "#   V=1                            show full command lines\n"
		 "#   KWARM_STOP=1                   stop at the first failed unit\n"
		 "#\n"
		 "# A failed unit does not stop the others: every class that does not need\n"
		 "# it is still compiled and packed, then make exits non-zero and the last\n"
		 "# lines name every failed class (this file sets -k, which make -S cannot\n"
		 "# undo: KWARM_STOP=1 is the way to stop at the first error).\n"
		 "#\n"
		 "# Inside another make, nest it on a '+' line and without -j, so that the\n"
		 "# parent's -jN stays the one bound:  +$(MAKE) -f THIS warmup\n"
		 "#\n"
		 "# Beside it: THIS.inputs (the inputs that remake this file: see its end)\n"
		 "# and THIS.plan (each unit's label and classes by key, the callables'\n"
		 "# descriptions, the unit list: what the steps report and pack).\n#\n");
	buf_addf(b, "# platform %s: %zu classes, %zu callables, %zu distinct units\n" HEAD_CACHE,
		 spec->platform, spec->nr_classes, plan->nr_callables, plan->nr_units);
	makefile_add_comment_text(b, plan->cache_dir);
	buf_adds(b, "\n" HEAD_OUT);
	makefile_add_comment_text(b, plan->out_dir);
}

/* The text of the header line (a comment line of the leading ones) that has
 * prefix, after it and up to end (NULL: the end of the line); caller frees;
 * NULL when absent. */
static char *header_field(const char *text, const char *prefix, const char *end)
{
	for (const char *p = text; p && *p == '#'; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *start = strstr(p, prefix), *nl = strchr(p, '\n'), *stop;

		if (!start || (nl && start > nl))
			continue;
		start += strlen(prefix);
		stop = end ? strstr(start, end) : NULL;
		if (!stop || (nl && stop > nl))
			stop = nl ? nl : start + strlen(start);
		return xstrndup(start, (size_t)(stop - start));
	}
	return NULL;
}

int makefile_read_header(const char *text, char **spec, char **cache, char **out)
{
	*spec = header_field(text, HEAD_SPEC, HEAD_SPEC_END);
	*cache = header_field(text, HEAD_CACHE, NULL);
	*out = header_field(text, HEAD_OUT, NULL);
	if (*spec && *cache && *out)
		return 0;
	free(*spec);
	free(*cache);
	free(*out);
	*spec = *cache = *out = NULL;
	return -1;
}

/* Make's settings and the variables the rules use. */
static void write_variables(struct buf *b, const struct plan *plan,
			    const struct makefile_options *opts)
{
	/* -k reaches this make and its recipes (which read it in MAKEFLAGS), not a
	 * parent make: a parent's MAKEFLAGS is its own. */
	buf_adds(b, "\n\nMAKEFLAGS += -r\n"
		 "# Keep going past a failed unit, unless asked to stop, or only asked\n"
		 "# whether all is up to date (make -q: the first answer is the answer).\n"
		 "ifneq ($(KWARM_STOP),1)\nifeq ($(findstring q,$(filter-out -%,$(firstword $(MAKEFLAGS)))),)\n"
		 "MAKEFLAGS += -k\nendif\nendif\n.SUFFIXES:\n.DELETE_ON_ERROR:\n.DEFAULT_GOAL := warmup\n\n"
		 "KW_SELF := $(lastword $(MAKEFILE_LIST))\nKW_MAKEFILE := ");
	add_shell_word(b, opts->self, 1);
	buf_adds(b, "\nKW_KWARM := ");
	add_shell_word(b, opts->kwarm, 1);
	/* A long remake check (its answer after the units, inputs.c) runs while
	 * make reads them; $$PPID is the make's pid (sh's parent). */
	if (inputs_check_ahead(plan))
		buf_adds(b, "\nKW_STALE := $(shell $(KW_KWARM) stale --ahead $$PPID $(KW_MAKEFILE))");
	buf_adds(b, "\nKW_ROOT := ");
	add_shell_word(b, plan->spec->root, 1);
	buf_addf(b, "\nKW_CACHE := %s\nKW_OUT := %s\nKW_PLANFILE := $(KW_MAKEFILE).plan\n",
		 plan->cache_dir, plan->out_dir);
	buf_adds(b, "KW_Q := $(if $(filter 1,$(V)),,@)\n");
	/* Progress, trace and summary of each run go to OUT/.kwarm (runstate.h). */
	buf_adds(b, "KW_GOALS := $(subst ',,$(MAKECMDGOALS))\n"
		 "KW_REPORT := --state $(KW_OUT)/" RUNSTATE_DIR " --plan $(KW_PLANFILE) --goals '$(KW_GOALS)'");
	if (opts->format) {
		buf_adds(b, " --format ");
		add_shell_word(b, opts->format, 1);
	}
	/* Expanded in each recipe: a unit's key is its target's name. */
	buf_adds(b, "\nKW_COMPILE = $(KW_KWARM) compile $(KW_REPORT) --cache $(KW_CACHE) --root $(KW_ROOT) "
		 "--platform ");
	add_shell_word(b, plan->spec->platform, 1);
	buf_adds(b, " \\\n    --private $(KW_OUT)/" RUNSTATE_PRIVATE_DIR
		 " --key $(basename $(notdir $@))");
	/* The remote's URL only: credentials are read at run time (remote.h). */
	if (opts->remote) {
		buf_adds(b, " \\\n    --remote ");
		add_shell_word(b, opts->remote, 1);
	}
	buf_adds(b, "\n"
		 "KW_PACK = $(KW_KWARM) pack $(KW_REPORT) --cache $(KW_CACHE) \\\n"
		 "    --private $(KW_OUT)/" RUNSTATE_PRIVATE_DIR " --stamp $@\n");
	/* Expanded as make starts a pack recipe: nonempty when this make run
	 * packed the callable already (the compile step of its last unit did,
	 * packnow.h), its tag (KW_RUN, inputs.c) in the stamp. The recipe then
	 * is empty and make starts no process for it. The stamp is read only
	 * when it is there and no folder: make's $(file) stops make on a file
	 * it cannot read (a folder, or a file in a folder's place on the way). */
	buf_adds(b, "KW_PACKED_HERE = $(and $(KW_RUN),$(wildcard $@),$(if $(wildcard $@/.),,"
		 "$(filter $(KW_RUN),$(file <$@))))\n");
}

/*
 * Whether the packs of a warm-up list (schedule.h) say it all: before each
 * pack come exactly those of its units (its rule's prerequisites, in their
 * order) that no earlier pack has. make, given only the packs, then goes
 * down the same list, starting each pack's units as it reaches the pack.
 * Spec order is such a list (no durations record): at 100k units it is then
 * 110k words shorter, and make reads the Makefile 0.4 s sooner.
 */
static int packs_say_all(const struct plan *plan, const struct schedule_step *steps)
{
	size_t nr = plan->nr_units + plan->nr_callables, at = 0, most = 1;
	unsigned char *listed = xcalloc(plan->nr_units + 1, 1);
	struct plan_unit **units;
	int ok = 1;

	for (size_t c = 0; c < plan->nr_callables; c++)
		if (plan->callables[c].spec->nr_incores + 1 > most)
			most = plan->callables[c].spec->nr_incores + 1;
	units = xcalloc(most, sizeof(*units));
	for (size_t i = 0; i < nr && ok; i++) {
		size_t n;

		if (!steps[i].pack)
			continue;
		n = callable_units(&plan->callables[steps[i].index], units);
		for (size_t k = 0; k < n && ok; k++) {
			if (listed[units[k]->index])
				continue;
			listed[units[k]->index] = 1;
			ok = at < i && !steps[at].pack && steps[at].index == units[k]->index;
			at++;
		}
		ok = ok && at++ == i;
	}
	free(units);
	free(listed);
	return ok && at == nr;
}

/* The steps of a warm-up list (schedule.h), one a line after " \\"; with
 * packs_only (packs_say_all), the packs. */
static void write_steps(struct sink *out, const struct plan *plan,
			const struct schedule_step *steps, int packs_only)
{
	struct buf *b = &out->b;

	for (size_t i = 0; i < plan->nr_units + plan->nr_callables; i++) {
		if (packs_only && !steps[i].pack)
			continue;
		buf_adds(b, " \\\n    ");
		if (steps[i].pack)
			add_out_path(b, plan, plan->callables[steps[i].index].stamp_path, 0);
		else
			add_unit_target(b, plan, plan->units[steps[i].index]);
		sink_flush(out);
	}
}

/* The words -jN of make's MAKEFLAGS for each N of plan->spec_jobs. */
static void add_spec_jobs(struct buf *b, const struct plan *plan)
{
	const char *sep = "";

	for (unsigned n = 0; n < 64; n++)
		if (plan->spec_jobs & ((uint64_t)1 << n)) {
			buf_addf(b, "%s-j%u", sep, n);
			sep = " ";
		}
}

/* warmup: every unit, and each callable's pack among them: longest recorded
 * first, so that make -jN starts the critical path early whatever class it
 * belongs to (schedule.h), or in spec order at the -j where the record says
 * longest-first is no faster; only the packs where they say it all. */
static void write_warmup(struct sink *out, const struct plan *plan)
{
	const struct spec *spec = plan->spec;
	struct buf *b = &out->b;
	size_t nr = plan->nr_units + plan->nr_callables;
	struct schedule_step *steps = xcalloc(nr + 1, sizeof(*steps));

	buf_adds(b, "\n.PHONY: warmup help kw-force");
	for (size_t i = 0; i < spec->nr_classes; i++)
		buf_addf(b, " warmup-%s", spec->classes[i].name);
	schedule_list(plan, plan->lpt, steps);
	if (!plan->spec_jobs && packs_say_all(plan, steps)) {
		buf_adds(b, "\n\n# Every callable's pack: make starts the units of each (its rule's\n"
			 "# prerequisites) as it reaches it, the order of the whole list\nwarmup:");
		write_steps(out, plan, steps, 1);
	} else if (!plan->spec_jobs) {
		buf_adds(b, "\n\n# Every unit, longest first, each callable's pack among them\nwarmup:");
		write_steps(out, plan, steps, 0);
	} else {
		size_t *order = xcalloc(plan->nr_units + 1, sizeof(*order));

		buf_adds(b, "\n\n# Every unit, longest first, each callable's pack among them\nKW_LONGEST :=");
		write_steps(out, plan, steps, 0);
		for (size_t i = 0; i < plan->nr_units; i++)
			order[i] = i;
		schedule_list(plan, order, steps);
		free(order);
		buf_adds(b, "\n# The same in spec order, taken at ");
		add_spec_jobs(b, plan);
		buf_adds(b, " (longest first no faster by the durations record);\n"
			 "# make says -j in MAKEFLAGS only after parsing: a secondary expansion\n"
			 "KW_SPEC_ORDER :=");
		write_steps(out, plan, steps, 0);
		buf_adds(b, "\n.SECONDEXPANSION:\nwarmup: $$(if $$(filter ");
		add_spec_jobs(b, plan);
		buf_adds(b, ",$$(MAKEFLAGS)),$$(KW_SPEC_ORDER),$$(KW_LONGEST))");
	}
	free(steps);
	for (size_t i = 0; i < spec->nr_classes; i++)
		buf_addf(b, " \\\n    warmup-%s", spec->classes[i].name);
	buf_adds(b, "\n\n");
}

/* Class by class: its callables and units (comments), warmup-CLASS, the packs. */
static void write_classes(struct sink *out, const struct plan *plan,
			  const struct makefile_options *opts)
{
	const struct spec *spec = plan->spec;
	struct buf *b = &out->b;
	size_t ci = 0;

	for (size_t i = 0; i < spec->nr_classes; i++) {
		const struct spec_class *cls = &spec->classes[i];

		buf_addf(b, "# ---- class %s (level %d, runtime '", cls->name, cls->level);
		makefile_add_comment_text(b, cls->runtime);
		buf_adds(b, "')\n");
		for (size_t j = 0; j < cls->nr_callables; j++) {
			const struct plan_callable *pc = &plan->callables[ci + j];

			if (cls->level == 3)
				buf_addf(b, "# callable %s\n", pc->spec->name);
			write_class_comment(b, pc);
		}
		buf_addf(b, "warmup-%s:", cls->name);
		for (size_t j = 0; j < cls->nr_callables; j++) {
			buf_addch(b, ' ');
			add_out_path(b, plan, plan->callables[ci + j].stamp_path, 0);
		}
		buf_adds(b, "\n\n");
		for (size_t j = 0; j < cls->nr_callables; j++) {
			write_callable(b, plan, &plan->callables[ci + j], &opts->packs[ci + j]);
			sink_flush(out);
		}
		ci += cls->nr_callables;
	}
}

int makefile_check(const struct plan *plan, const struct makefile_options *opts)
{
	return check_paths(plan, opts);
}

void makefile_write(const struct plan *plan, const struct makefile_options *opts,
		    struct sink *out, struct sink *inputs)
{
	struct buf *b = &out->b;

	write_header(b, plan, opts);
	write_variables(b, plan, opts);
	write_warmup(out, plan);
	write_unit_rule(b, plan);
	for (size_t i = 0; i < plan->nr_units; i++) {
		write_unit(b, plan->units[i]);
		sink_flush(out);
	}
	write_help(out, plan);
	buf_adds(b, "\nkw-force:\n\n");
	inputs_write(b, inputs, plan, opts);
}

void makefile_write_classes(const struct plan *plan, const struct makefile_options *opts,
			    struct sink *out)
{
	buf_addch(&out->b, '\n');
	write_classes(out, plan, opts);
}
