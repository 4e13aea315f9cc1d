#include "key/unitkey.h"
#include "key/incdirs.h"
#include "path.h"
#include "key/reads.h"
#include "key/toolid.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void unit_command_init(struct unit_command *uc)
{
	*uc = (struct unit_command){
		.argv = STRVEC_INIT, .link = STRVEC_INIT, .env = STRVEC_INIT, .deps = -1,
	};
}

void unit_command_release(struct unit_command *uc)
{
	strvec_release(&uc->argv);
	strvec_release(&uc->link);
	strvec_release(&uc->env);
}

static const char *const include_options[] = { "-I", "-iquote", "-isystem", "-idirafter" };

/* The sources follow the last "-o {out}" (the generator puts it there):
 * where that "-o" is, or argv.nr without one. */
static size_t out_index(const struct unit_command *uc)
{
	for (size_t i = uc->argv.nr; i-- > 2;)
		if (!strcmp(uc->argv.v[i], UNITKEY_OUT) && !strcmp(uc->argv.v[i - 1], "-o"))
			return i - 1;
	return uc->argv.nr;
}

size_t unit_command_nr_sources(const struct unit_command *uc)
{
	size_t out = out_index(uc);

	return out < uc->argv.nr ? uc->argv.nr - out - 2 : 0;
}

void unit_command_inputs(const struct unit_command *uc, struct strvec *sources,
			 struct strvec *include_dirs)
{
	/* The "-o" found first, so that a flag list ending in an option that
	 * takes an argument ("-iquote") cannot swallow it: that compile then
	 * fails with the compiler's own message instead. */
	size_t i, n = uc->argv.nr, out = out_index(uc);

	for (i = out + 2; i < n; i++)
		strvec_push(sources, uc->argv.v[i]);
	for (i = 1; i < out; i++) {
		const char *w = uc->argv.v[i];

		for (size_t k = 0; k < ARRAY_SIZE(include_options); k++) {
			size_t len = strlen(include_options[k]);

			if (strncmp(w, include_options[k], len))
				continue;
			if (w[len])
				strvec_push(include_dirs, w + len);
			else if (i + 1 < out)
				strvec_push(include_dirs, uc->argv.v[++i]);
			break;
		}
	}
}

/* The file a command word may name: the word itself, the value of
 * "--opt=FILE", the rest of a joined "-TFILE", or the response file of
 * "@FILE" (more words, read by the compiler). */
static void add_named_files(const char *root, const char *word, struct digest *d,
			    struct strvec *inputs, struct strvec *why)
{
	const char *cands[4] = { word, NULL, NULL, NULL };
	const char *eq = word[0] == '-' ? strchr(word, '=') : NULL;

	if (eq)
		cands[1] = eq + 1;
	if (word[0] == '-' && word[1] == 'T' && word[2])
		cands[2] = word + 2;
	if (word[0] == '@')
		cands[3] = word + 1;
	for (size_t i = 0; i < ARRAY_SIZE(cands); i++) {
		char hex[DIGEST_HEX_SIZE], *path;
		struct stat st;

		if (!cands[i] || !*cands[i] || cands[i][0] == '-')
			continue;
		path = path_join(root, cands[i]);
		if (!stat(path, &st) && S_ISREG(st.st_mode) && !digest_file_hex(path, hex, NULL)) {
			digest_add_str(d, "named-file", cands[i]);
			digest_add_str(d, "named-digest", hex);
			if (why)
				strvec_pushf(why, "named %s %s", hex, cands[i]);
			if (inputs)
				strvec_push(inputs, path);
		}
		free(path);
	}
}

/* Options whose value is a file the step writes (a link map, say): no input,
 * and the step rewrites it, so its digest would never match the key again. */
static const char *const output_options[] = {
	"-Map", "--Map", "--out-implib", "--dependency-file", "-MF", "-aux-info"
};

/* Is word an output option: 1 alone (its file is the next word), 2 with its
 * file joined by '=', else 0. */
static int output_option(const char *word)
{
	for (size_t k = 0; k < ARRAY_SIZE(output_options); k++) {
		size_t len = strlen(output_options[k]);

		if (!strncmp(word, output_options[k], len) && (!word[len] || word[len] == '='))
			return word[len] ? 2 : 1;
	}
	return 0;
}

/* add_named_files over one item of a command; *output_next says the item
 * is an output option's file, and is set for the item after this one. */
static void add_named_item(const char *root, const char *item, int *output_next,
			   struct digest *d, struct strvec *inputs, struct strvec *why)
{
	int out = output_option(item);

	if (!*output_next && !out)
		add_named_files(root, item, d, inputs, why);
	*output_next = out == 1;
}

/* add_named_files over words, but for the files that output options name;
 * a "-Wl,A,B" list counts as its items (-Xlinker words pass one on). */
static void add_named_words(const char *root, const struct strvec *words,
			    const struct strvec *sources, struct digest *d,
			    struct strvec *inputs, struct strvec *why)
{
	int output_next = 0;

	for (size_t i = 1; i < words->nr; i++) {
		const char *w = words->v[i];
		struct strvec items;

		if (!strcmp(w, "-Xlinker") || !strcmp(w, UNITKEY_OUT) ||
		    (sources && strvec_find(sources, w) >= 0))
			continue;
		/* Most words are one item: no copy of them. */
		if (!(w[0] == '-' && w[1] == 'W' && w[2] && w[3] == ',')) {
			add_named_item(root, w, &output_next, d, inputs, why);
			continue;
		}
		strvec_init(&items);
		strvec_split_at(&items, w + 4, ',');
		for (size_t k = 0; k < items.nr; k++)
			add_named_item(root, items.v[k], &output_next, d, inputs, why);
		strvec_release(&items);
	}
}

/* The folders the variables of the include path add after the command's
 * (an empty item is the folder the compile runs in): the scanner searches
 * them too, so a new header in an earlier one changes the key. Read once per
 * cache: the environment does not change while a process runs. */
static void env_include_dirs(struct closure_cache *cc, struct strvec *dirs)
{
	static const char *const names[] = {
		"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH"
	};

	if (!cc->env_dirs_read) {
		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			const char *value = getenv(names[i]);
			struct strvec items;

			if (!value || !*value)
				continue;
			strvec_init(&items);
			strvec_split_at(&items, value, ':');
			for (size_t k = 0; k < items.nr; k++)
				strvec_push(&cc->env_dirs, *items.v[k] ? items.v[k] : ".");
			strvec_release(&items);
		}
		cc->env_dirs_read = 1;
	}
	strvec_pushv(dirs, &cc->env_dirs);
}

/* Variables that change what a compiler reads or emits (clang's driver edits
 * its command by CCC_OVERRIDE_OPTIONS). */
const char *const unitkey_steering_env[] = {
	"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "GCC_EXEC_PREFIX",
	"COMPILER_PATH", "LIBRARY_PATH", "SOURCE_DATE_EPOCH", "GCC_COMPARE_DEBUG",
	"CCC_OVERRIDE_OPTIONS", NULL
};

/* Those after the first ones join the key only when set: the entries made
 * before they were listed keep their keys. */
#define STEERING_KEYED_UNSET 9

static void digest_env(struct digest *d, const char *name)
{
	const char *value = getenv(name);

	digest_add_str(d, "env", name);
	digest_add_str(d, value ? "set" : "unset", value ? value : "");
}

/* Is the i-th steering variable part of the key now? */
static int steering_keyed(size_t i)
{
	return i < STEERING_KEYED_UNSET || getenv(unitkey_steering_env[i]);
}

/* The description line of a variable (kwarm explain compares them). */
static void note_env(struct strvec *why, const char *name)
{
	const char *value = getenv(name);

	if (!why)
		return;
	if (value && !strchr(value, '\n'))
		strvec_pushf(why, "env %s=%s", name, value);
	else
		strvec_pushf(why, "env %s%s", name, value ? "=(several lines)" : " unset");
}

/* Is argv word i an -I option (its folder joined, or in the next word)? The
 * number of words it takes, or 0. */
static size_t include_option(const struct strvec *argv, size_t i)
{
	const char *w = argv->v[i];

	if (strncmp(w, "-I", 2) || !strcmp(w, "-I-"))
		return 0;
	return w[2] ? 1 : i + 1 < argv->nr ? 2 : 1;
}

/* Does word ask for debug information (which records the folder the compile
 * runs in, and its -I folders)? */
static int debug_info(const char *w)
{
	return starts_with(w, "-g") && strcmp(w, "-g0");
}

/* Does the command ask for debug information, before its "-o {out}"? */
static int records_folder(const struct unit_command *uc)
{
	for (size_t i = 1; i + 1 < uc->argv.nr; i++) {
		if (!strcmp(uc->argv.v[i], "-o") && !strcmp(uc->argv.v[i + 1], UNITKEY_OUT))
			break;
		if (debug_info(uc->argv.v[i]))
			return 1;
	}
	return 0;
}

/*
 * May the key cover what the -I list resolves to instead of its words? Not
 * when the output can record the command or its folders: debug information
 * (-g, and -grecord-gcc-switches with it), -frecord-gcc-switches; nor with the
 * old -I- split. The -I folders come back in dirs, in order.
 */
static int keys_by_resolution(const struct unit_command *uc, struct strvec *dirs)
{
	for (size_t i = 1; i < uc->argv.nr; i++) {
		const char *w = uc->argv.v[i];
		size_t n = include_option(&uc->argv, i);

		if (!strcmp(w, UNITKEY_OUT) && i > 0 && !strcmp(uc->argv.v[i - 1], "-o"))
			break;
		if (debug_info(w) || !strcmp(w, "-I-") ||
		    !strcmp(w, "-frecord-gcc-switches"))
			return 0;
		if (n)
			strvec_push(dirs, n == 1 ? w + 2 : uc->argv.v[i + 1]);
		if (n == 2)
			i++;
	}
	return 1;
}

const char *unitkey_forced_header(const struct unit_command *uc)
{
	for (size_t i = 1; i < uc->argv.nr; i++) {
		const char *w = uc->argv.v[i];

		/* Most words are no -i option: one look at their start. */
		if (w[0] == '-' && w[1] == 'i' &&
		    (starts_with(w, "-include") || starts_with(w, "-imacros")))
			return w;
	}
	return NULL;
}

/* Does a lookup depend on where the includer sits in the -I list? #include_next
 * goes on after the includer's folder; a macro-named include may reach a file
 * the scanner did not read, with an #include_next of its own. */
static int position_dependent(const struct closure *c)
{
	for (size_t i = 0; i < c->edges.nr; i++)
		if (strstr(c->edges.v[i], "\tquote-next\t") || strstr(c->edges.v[i], "\tangle-next\t") ||
		    strstr(c->edges.v[i], "\tmacro\t"))
			return 1;
	return 0;
}

/* The digest of the steering variables as digest_env feeds them, once per
 * process (the environment does not change while it runs). */
static const char *steering_env_hex(struct closure_cache *cc)
{
	if (!cc->env_hex[0]) {
		struct digest d;

		digest_init(&d);
		for (size_t i = 0; unitkey_steering_env[i]; i++)
			if (steering_keyed(i))
				digest_env(&d, unitkey_steering_env[i]);
		digest_final_hex(&d, cc->env_hex);
	}
	return cc->env_hex;
}

/* One line of the key's description, when one is wanted. */
static void note(struct strvec *why, const char *what, const char *text)
{
	if (why)
		strvec_pushf(why, "%s %s", what, text);
}

/* Feed text to the key as what, and note it. */
static void add(struct digest *d, struct strvec *why, const char *what, const char *text)
{
	digest_add_str(d, what, text);
	note(why, what, text);
}

/* Feed program's identity to the key as what; its resolved path goes onto
 * tools_out. */
static int add_tool(struct closure_cache *cc, const char *root, const char *program,
		    const char *what, struct digest *d, struct strvec *tools_out,
		    struct strvec *why)
{
	char hex[DIGEST_HEX_SIZE];
	const char *resolved = toolid_get(cc, root, program, hex);

	if (!resolved)
		return -1;
	add(d, why, what, hex);
	if (tools_out)
		strvec_push(tools_out, resolved);
	return 0;
}

/* The word of an option that takes one (-L, -l): joined ("-Lx"), or the next
 * word (*i moves on to it); NULL when word i is not that option. */
static const char *option_value(const struct strvec *words, size_t *i, const char *opt)
{
	const char *w = words->v[*i];
	size_t n = strlen(opt);

	if (strncmp(w, opt, n))
		return NULL;
	if (w[n])
		return w + n;
	return *i + 1 < words->nr ? words->v[++*i] : NULL;
}

/* A folder to watch for a file that would appear at rel (under root): its
 * own, or the nearest above it that exists. */
static void watch_folder(const char *root, const char *rel, struct strvec *inputs)
{
	char *dir = path_join_normal(root, rel);
	struct stat st;

	while (strcmp(dir, "/") && (stat(dir, &st) || !S_ISDIR(st.st_mode))) {
		char *up = path_dirname(dir);

		free(dir);
		dir = up;
	}
	strvec_push_nodup(inputs, dir);
}

/*
 * The libraries a link may take from the -L folders and LIBRARY_PATH's, in
 * that order (libNAME.so and libNAME.a for -lNAME, FILE for -l:FILE): each
 * one's digest, or that it is missing, so that an edit of a project's
 * library, or a new one that shadows another, changes the key. The folders
 * the driver searches after those are the toolchain's, as its headers are.
 */
static void add_libraries(struct closure_cache *cc, const char *root,
			  const struct strvec *words, struct digest *d,
			  struct strvec *inputs, struct strvec *why)
{
	struct strvec dirs = STRVEC_INIT, libs = STRVEC_INIT;
	const char *v, *env = getenv("LIBRARY_PATH");
	size_t first = 1;

	/* Most commands name no library: one look at each word's start. */
	while (first < words->nr && (words->v[first][0] != '-' || words->v[first][1] != 'l'))
		first++;
	if (first == words->nr)
		return;
	for (size_t i = 1; i < words->nr; i++)
		if ((v = option_value(words, &i, "-L")))
			strvec_push(&dirs, v);
		else if ((v = option_value(words, &i, "-l")) && v[0] == ':')
			strvec_push(&libs, v + 1);
		else if (v)
			strvec_pushf(&libs, "lib%s.so\nlib%s.a", v, v);
	if (libs.nr && env && *env)
		strvec_split_at(&dirs, env, ':');
	for (size_t i = 0; libs.nr && i < dirs.nr; i++) {
		const char *dir = *dirs.v[i] ? dirs.v[i] : ".";

		for (size_t k = 0; k < libs.nr; k++) {
			struct strvec names = STRVEC_INIT;

			strvec_split_at(&names, libs.v[k], '\n');
			for (size_t n = 0; n < names.nr; n++) {
				char *rel = path_join(dir, names.v[n]), *abs = path_join(root, rel);
				char hex[DIGEST_HEX_SIZE] = "missing";
				struct stat st;

				if (!stat(abs, &st) && S_ISREG(st.st_mode) &&
				    !filehash_get(&cc->files, abs, hex) && inputs)
					strvec_push(inputs, abs);
				add(d, why, "library", rel);
				add(d, why, "library-digest", hex);
				free(rel);
				free(abs);
			}
			strvec_release(&names);
		}
		if (inputs)
			watch_folder(root, dir, inputs);
	}
	strvec_release(&dirs);
	strvec_release(&libs);
}

static int base_key(struct closure_cache *cc, const struct unit_command *uc,
		    char hex[DIGEST_HEX_SIZE], struct closure *closure_out,
		    struct strvec *tools_out, struct strvec *why)
{
	struct strvec sources = STRVEC_INIT, dirs = STRVEC_INIT;
	struct strvec idirs = STRVEC_INIT, resolution = STRVEC_INIT;
	struct closure closure = { 0 };
	struct digest d;
	int ret = -1, by_resolution;

	if (!uc->argv.nr)
		BUG("empty unit command");
	unit_command_inputs(uc, &sources, &dirs);
	env_include_dirs(cc, &dirs);
	if (!sources.nr)
		BUG("unit command has no source after '-o %s'", UNITKEY_OUT);
	if (closure_compute(cc, uc->root, &sources, &dirs, &closure))
		goto out;

	digest_init(&d);
	digest_add_str(&d, "schema", UNITKEY_SCHEMA);
	add(&d, why, "platform", uc->platform);
	if (add_tool(cc, uc->root, uc->argv.v[0], "compiler", &d, tools_out, why))
		goto fail_digest;
	/* Two units whose -I lists differ in order or repeats but resolve every
	 * name alike compile alike: the key covers the resolution instead. */
	by_resolution = keys_by_resolution(uc, &idirs) && !position_dependent(&closure) &&
			!incdirs_resolution(cc, uc->root, &idirs, &resolution, tools_out);
	digest_add_str(&d, "include-list", by_resolution ? "resolution" : "words");
	for (size_t i = 0; i < uc->argv.nr; i++) {
		size_t n = by_resolution && i ? include_option(&uc->argv, i) : 0;

		if (!n)
			digest_add_str(&d, "arg", uc->argv.v[i]);
		for (size_t k = 0; k < (n ? n : 1); k++)
			note(why, "arg", uc->argv.v[i + k]);
		i += n ? n - 1 : 0;
	}
	/* Checkouts at two places share entries, but for output that names the
	 * place (DW_AT_comp_dir). */
	if (records_folder(uc))
		add(&d, why, "folder", uc->root);
	digest_add_u64(&d, "resolved-names", resolution.nr);
	for (size_t i = 0; i < resolution.nr; i++)
		digest_add_str(&d, "resolves", resolution.v[i]);
	strvec_release(&idirs);
	strvec_release(&resolution);
	/* Files that flags name (a -include header, a response file, a profile):
	 * their content matters as much as a source's. */
	add_named_words(uc->root, &uc->argv, &sources, &d, tools_out, why);
	add_libraries(cc, uc->root, &uc->argv, &d, tools_out, why);
	closure_digest(&closure, &d);
	/* A unit that may have to stay private (unitcompile.c: its files name the
	 * clock or .incbin, a header comes by a macro or -include) keys apart from
	 * an entry an older kwarm cached for it, which no later edit would undo. */
	if (closure.unkeyed || closure.macro_at || unitkey_forced_header(uc))
		add(&d, why, "may-stay-private", "1");
	for (size_t i = 0; why && i < closure.nr; i++)
		strvec_pushf(why, "file %s %s", closure.files[i].hex, closure.files[i].path);
	digest_add_u64(&d, "linkc", uc->link.nr);
	if (uc->link.nr) {
		if (add_tool(cc, uc->root, uc->link.v[0], "linker", &d, tools_out, why))
			goto fail_digest;
		for (size_t i = 0; i < uc->link.nr; i++)
			add(&d, why, "linkarg", uc->link.v[i]);
		/* A linker script's content, say. */
		add_named_words(uc->root, &uc->link, NULL, &d, tools_out, why);
		add_libraries(cc, uc->root, &uc->link, &d, tools_out, why);
	}
	add(&d, why, "extract", uc->extract_text ? "text" : "none");
	/* The same for every unit of a process: digested once. */
	digest_add_str(&d, "steering-env", steering_env_hex(cc));
	for (size_t i = 0; why && unitkey_steering_env[i]; i++)
		if (steering_keyed(i))
			note_env(why, unitkey_steering_env[i]);
	digest_add_u64(&d, "envc", uc->env.nr);
	for (size_t i = 0; i < uc->env.nr; i++) {
		digest_env(&d, uc->env.v[i]);
		note_env(why, uc->env.v[i]);
	}
	digest_final_hex(&d, hex);
	ret = 0;
	if (closure_out) {
		*closure_out = closure;
		memset(&closure, 0, sizeof(closure));	/* the caller's now */
	}
	goto out;

fail_digest:
	digest_release(&d);
out:
	closure_release(&closure);
	strvec_release(&sources);
	strvec_release(&dirs);
	return ret;
}

int unitkey_compute(struct closure_cache *cc, const struct unit_command *uc,
		    char hex[DIGEST_HEX_SIZE], const struct unitkey_out *out)
{
	static const struct unitkey_out none;
	char base[DIGEST_HEX_SIZE];

	if (!out)
		out = &none;
	if (base_key(cc, uc, base, out->closure, out->inputs, out->why))
		return -1;
	if (out->base)
		memcpy(out->base, base, DIGEST_HEX_SIZE);
	if (!uc->cache_dir) {
		memcpy(hex, base, DIGEST_HEX_SIZE);
		return 0;
	}
	return reads_pick_key(cc, uc->cache_dir, uc->root, base, hex, out->inputs, out->appear);
}
