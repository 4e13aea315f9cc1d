/* What remakes the Makefile gen writes: the rule after its units (with the
 * environment it was made in), and MAKEFILE.inputs, the watch list kwarm stale
 * reads and make never does (its format below). */
#include "inputs.h"
#include "hashmap.h"
#include "util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* MAKEFILE.inputs, the watch list (make would read each name at about the
 * cost of a rule, twice):
 *
 *	WATCH_HEAD	a comment line that names the format
 *	i PATH		an input: changed when missing or not older than the Makefile
 *	a PATH		an entry never built: changed when it exists, not older
 *
 * (a unit never built: once its entry exists, the Makefile learns what the
 * compile read, and then watches those files). The paths hold no
 * control character (gen refuses one). */
#define WATCH_HEAD "# kwarm watch list 1: what remakes the Makefile beside it (kwarm stale)\n"

static void write_watch_list(struct sink *out, const struct plan *plan)
{
	struct buf *b = &out->b;

	buf_adds(b, WATCH_HEAD);
	for (size_t i = 0; i < plan->inputs.nr; i++) {
		buf_adds(b, "i ");
		buf_adds(b, plan->inputs.v[i]);
		buf_addch(b, '\n');
		sink_flush(out);
	}
	for (size_t i = 0; i < plan->appear.nr; i++) {
		buf_adds(b, "a ");
		buf_adds(b, plan->appear.v[i]);
		buf_addch(b, '\n');
	}
}

int inputs_check_ahead(const struct plan *plan)
{
	return plan->inputs.nr + plan->appear.nr >= WATCH_AHEAD_MIN;
}

static int not_older(const struct timespec *t, const struct timespec *mk)
{
	return t->tv_sec > mk->tv_sec || (t->tv_sec == mk->tv_sec && t->tv_nsec >= mk->tv_nsec);
}

/* Whether the file at path changed since the Makefile's time mk: the time gen
 * started (output.h), so one as new may have changed after gen read it. The
 * change time too: an edit whose time was set back (touch -d, tar, cp -p, a
 * clock gone backwards) cannot set it back. */
static int newer(const char *path, const struct timespec *mk, int *missing)
{
	struct stat st;

	if (stat(path, &st)) {
		*missing = 1;
		return 0;
	}
	*missing = 0;
	return not_older(&st.st_mtim, mk) || not_older(&st.st_ctim, mk);
}

/* Whether the watched path changed since mk. An entry appears by a rename
 * into its folder, which stamps the folder: one folder older than mk (or
 * missing) tells that none of its names appeared, with one stat for all
 * (folders: folder -> 1 checked old, 2 checked new). */
static int watch_changed(char kind, const char *path, const struct timespec *mk,
			 struct hashmap *folders)
{
	const char *slash = strrchr(path, '/');
	int missing, changed;

	if (kind == 'a' && slash) {
		char *folder = xstrndup(path, slash - path);
		uintptr_t state = (uintptr_t)hashmap_get(folders, folder);

		if (!state) {
			state = newer(folder, mk, &missing) ? 2 : 1;
			hashmap_put(folders, folder, (void *)state);
		}
		free(folder);
		if (state == 1)
			return 0;
	}
	changed = newer(path, mk, &missing);
	return kind == 'i' ? changed || missing : changed;
}

/* A share of the watch list's lines ("K PATH" each), checked by one thread:
 * first is the index of its first changed line, or to when none changed. */
struct watch_share {
	char **lines;
	size_t from, to, first;
	const struct timespec *mk;
};

static void *check_share(void *arg)
{
	struct watch_share *share = arg;
	struct hashmap folders;

	hashmap_init(&folders);
	for (share->first = share->from; share->first < share->to; share->first++) {
		const char *line = share->lines[share->first];

		if (watch_changed(line[0], line + 2, share->mk, &folders))
			break;
	}
	hashmap_release(&folders);
	return NULL;
}

/* A list this long is checked in two halves at once: its stats are most of
 * what make waits for when it reads the Makefile (100k units: 110k stats),
 * and a second core takes half of them. */
#define WATCH_SPLIT_MIN 4096

/* The first changed line of lines[0, n), or NULL. */
static const char *first_changed(char **lines, size_t n, const struct timespec *mk)
{
	struct watch_share head = { .lines = lines, .from = 0, .to = n, .mk = mk };
	struct watch_share tail = { .lines = lines, .from = n, .to = n, .first = n, .mk = mk };
	pthread_t thread;
	int threaded = 0;

	if (n >= WATCH_SPLIT_MIN) {
		head.to = tail.from = n / 2;
		threaded = !pthread_create(&thread, NULL, check_share, &tail);
	}
	check_share(&head);
	if (threaded)
		pthread_join(thread, NULL);
	else if (head.first == head.to)
		check_share(&tail);
	if (head.first < head.to)
		return lines[head.first] + 2;
	return tail.first < tail.to ? lines[tail.first] + 2 : NULL;
}

int inputs_changed(const char *makefile, struct buf *changed)
{
	char *path = xstrfmt("%s" MAKEFILE_INPUTS_SUFFIX, makefile), *text = NULL, *p, *end;
	char **lines = NULL;
	size_t len, nr = 0, alloc = 0;
	struct stat st;
	const char *first;
	int bad = 0, ret = 0;

	if (stat(makefile, &st) || read_file_all(path, &text, &len) ||
	    !starts_with(text, WATCH_HEAD)) {
		buf_adds(changed, makefile);
		goto out;
	}
	/* The lines up to the first bad one, each cut at its newline. */
	for (p = text + strlen(WATCH_HEAD); *p; p = end + 1) {
		end = p + strcspn(p, "\n");
		if (end - p < 3 || (p[0] != 'i' && p[0] != 'a') || p[1] != ' ' || !*end) {
			bad = 1;
			break;
		}
		*end = '\0';
		ALLOC_GROW(lines, nr + 1, alloc);
		lines[nr++] = p;
	}
	first = first_changed(lines, nr, &st.st_mtim);
	if (first) {
		buf_adds(changed, first);
	} else if (bad) {
		/* Remade, not trusted: gen writes the list anew. */
		ret = error("'%s': a bad line in its watch list", path);
		buf_adds(changed, path);
	}
out:
	free(lines);
	free(text);
	free(path);
	return ret;
}

/* An environment variable's value as the right side of ":=", which make
 * reads back byte for byte: a newline or a backslash at the end would end or
 * join the line (and let the value write make text of its own), a '#' starts
 * a comment, a CR before the newline and blanks at the start are dropped.
 * Those go in as variables, defined once (":=" strips leading blanks, a CR
 * among them, so KW_CR's starts after an empty expansion). */
#define ENV_VALUE_HELPERS \
	"KW_EMPTY :=\n" \
	"define KW_NL\n\n\nendef\n" \
	"KW_CR := $(KW_EMPTY)\r$(KW_EMPTY)\n" \
	"KW_HASH := \\#\n" \
	"KW_BS := \\$(KW_EMPTY)\n"

static void add_env_value(struct buf *b, const char *value)
{
	if (strchr(" \t\f\v", *value) && *value)
		buf_adds(b, "$(KW_EMPTY)");
	for (const char *p = value; *p; p++) {
		size_t n = strcspn(p, "$#\\\n\r");

		buf_add(b, p, n);
		p += n;
		if (!*p)
			break;
		buf_adds(b, *p == '$' ? "$$" : *p == '#' ? "$(KW_HASH)" :
			    *p == '\\' ? "$(KW_BS)" : *p == '\n' ? "$(KW_NL)" : "$(KW_CR)");
	}
}

void inputs_write(struct buf *b, struct sink *list, const struct plan *plan,
		  const struct makefile_options *opts)
{
	const struct spec *spec = plan->spec;

	buf_adds(b, "# This file remakes itself when an input changes; a deleted input\n"
		 "# counts as changed, never as an error. When gen fails, its recipe\n"
		 "# appends lines that stop this run (make -k would go on with this\n"
		 "# stale plan) and make the next run try gen again. kwarm stale\n"
		 "# compares the inputs (THIS.inputs) with this file and names the\n"
		 "# first that changed.\n"
		 ".PRECIOUS: $(KW_SELF)\n");
	/* Started at the top as KW_STALE where the list is long (makefile.c).
	 * Its first word is this make run's tag, which a pack step writes into
	 * the stamp (KW_PACKED_HERE, makefile.c); a second says "changed". */
	if (inputs_check_ahead(plan))
		buf_adds(b, "KW_STALE_SAYS := $(shell $(KW_KWARM) stale --tag --answer '$(KW_STALE)' "
			 "$(KW_MAKEFILE))\n");
	else
		buf_adds(b, "KW_STALE_SAYS := $(shell $(KW_KWARM) stale --tag $(KW_MAKEFILE))\n");
	buf_adds(b, "KW_RUN := $(firstword $(KW_STALE_SAYS))\n"
		 "ifneq ($(word 2,$(KW_STALE_SAYS)),)\n"
		 "$(KW_SELF): kw-force\nendif\n"
		 "$(KW_SELF): ");
	makefile_add_prereq(b, opts->kwarm);
	buf_adds(b, " $(KW_PLANFILE)");
	buf_adds(b, "\n\t$(KW_Q)$(KW_KWARM) gen ");
	add_shell_word(b, opts->spec_abs, 1);
	buf_adds(b, " -o ");
	add_shell_word(b, opts->self, 1);
	buf_adds(b, " --cache ");
	add_shell_word(b, plan->cache_dir, 1);
	buf_adds(b, " --out ");
	add_shell_word(b, plan->out_dir, 1);
	if (plan->launcher) {
		struct buf words = BUF_INIT;

		for (size_t i = 0; i < plan->launcher->nr; i++)
			buf_addf(&words, "%s%s", i ? " " : "", plan->launcher->v[i]);
		buf_adds(b, " --launcher ");
		add_shell_word(b, buf_str(&words), 1);
		buf_release(&words);
	}
	if (opts->format) {
		buf_adds(b, " --format ");
		add_shell_word(b, opts->format, 1);
	}
	if (opts->remote_arg) {
		buf_adds(b, " --remote ");
		add_shell_word(b, opts->remote_arg, 1);
	}
	/* Make re-reads a makefile whose time changed even when its recipe
	 * failed (MAKE_RESTARTS is then set, and never exported). */
	buf_adds(b, " || { printf '\\n$$(KW_SELF): kw-force\\nifneq ($$(MAKE_RESTARTS),)\\n"
		 "$$(error kwarm gen failed (see above); fix that, then run make again)\\n"
		 "endif\\n' >> \"$@\"; exit 1; }\n");
	buf_adds(b, ENV_VALUE_HELPERS);
	for (size_t i = 0; i < spec->env_used.nr; i++) {
		const char *kv = spec->env_used.v[i], *eq = strchr(kv, '=');

		buf_addf(b, "KW_ENV_%zu := ", i);
		add_env_value(b, eq + 1);
		buf_addf(b, "\nifneq ($(value %.*s),$(KW_ENV_%zu))\n$(KW_SELF): kw-force\nendif\n",
			 (int)(eq - kv), kv, i);
	}
	/* The variables that steer the compilers are in the keys: setting,
	 * changing or unsetting one remakes the Makefile. */
	buf_adds(b, "KW_ENV_VARS :=");
	for (size_t i = 0; i < plan->env.nr; i++)
		buf_addf(b, " %s", plan->env.v[i]);
	buf_adds(b, "\nKW_ENV_GEN :=");
	for (size_t i = 0; i < plan->env.nr; i++) {
		const char *value = getenv(plan->env.v[i]);

		buf_addf(b, " %s%s", plan->env.v[i], value ? "=" : "-");
		if (value)
			add_env_value(b, value);
	}
	buf_adds(b, "\nifneq ($(foreach v,$(KW_ENV_VARS),$v$(if $(filter undefined,$(origin $v)),-,"
		 "=$(value $v))),$(KW_ENV_GEN))\n$(KW_SELF): kw-force\nendif\n");
	buf_adds(b, "\n");
	/* "name :" with a blank: a name ending in '&' before ':' would read as
	 * a grouped target. */
	makefile_add_target(b, opts->kwarm);
	buf_adds(b, " :\n$(KW_PLANFILE):\n");
	write_watch_list(list, plan);
}
