/* kwarm compile: one unit's Makefile recipe. Compile beside the cache entry,
 * re-check the key against the files really compiled, publish by rename. */
#include "commands.h"
#include "annotate.h"
#include "cache.h"
#include "cachelog.h"
#include "deps.h"
#include "durations.h"
#include "extract.h"
#include "path.h"
#include "progress.h"
#include "publish.h"
#include "reads.h"
#include "run.h"
#include "unitkey.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char usage_compile[] =
	"usage: kwarm compile --cache DIR --root DIR --platform P --key KEY --unit LABEL\n"
	"                     [--id ID] [--owners A,B] [--private DIR] [--launcher WORD]...\n"
	"                     [--link WORD]... [--extract text] [--deps gcc|clang|none]\n"
	"                     [--env NAME]...\n"
	"                     [--state DIR] [--units FILE] [--goals GOALS] [--format FMT]\n"
	"                     -- COMPILER ARGS... -o {out} SOURCE...\n"
	"\n"
	"Compile one unit into the cache (the generated Makefile's recipe). The key is\n"
	"computed again from the files compiled; nothing is cached under a stale key.\n"
	"  --state DIR     OUT/.kwarm: report progress, trace and summary of the run there\n"
	"  --units FILE    the unit list 'kwarm gen' wrote (MAKEFILE.units)\n"
	"  --goals GOALS   the make run's goals, for the progress total and to know\n"
	"                  when the run is over\n"
	"  --format FMT    text, or github: failures also as GitHub annotations\n"
	"  --deps FAMILY   how the compiler lists the files it read (default: by its name)\n"
	"  --env NAME      a variable that steers the compiler (part of the key)\n";

struct compile_opts {
	const char *cache, *root, *platform, *key, *label, *owners;
	const char *private_dir;	/* where results go when the cache cannot be used */
	const char *id;			/* stable identity for the durations record */
	const char *state, *units, *goals;	/* runstate folder, unit list, goals */
	int github;			/* annotate failures for GitHub Actions */
	int annotated;			/* a failure was annotated already */
	enum deps_family family;	/* how the compiler lists what it read */
	struct strvec launcher;
	struct unit_command uc;
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The owners "A,B" as "A, B" for messages. */
static char *owners_text(const char *owners)
{
	struct buf b = BUF_INIT;

	for (const char *p = owners; *p; p++) {
		if (*p == ',')
			buf_adds(&b, ", ");
		else
			buf_addch(&b, *p);
	}
	return buf_detach(&b);
}

/* Print the compiler output as one block, so parallel jobs never interleave. */
static void print_block(const char *head, const struct buf *output)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, head);
	buf_addch(&b, '\n');
	buf_add(&b, output->s ? output->s : "", output->len);
	if (output->len && output->s[output->len - 1] != '\n')
		buf_addch(&b, '\n');
	fflush(stdout);
	/* One write; with a broken stderr there is nothing better to do. */
	(void)write_all(2, b.s, b.len);
	buf_release(&b);
}

/* The unit's main source: the word after "-o {out}", else the last word. */
static const char *unit_source(const struct compile_opts *o)
{
	const struct strvec *v = &o->uc.argv;

	for (size_t i = 0; i + 1 < v->nr; i++)
		if (!strcmp(v->v[i], UNITKEY_OUT))
			return v->v[i + 1];
	return v->nr ? v->v[v->nr - 1] : "";
}

/* Under --format github: annotations for a failed unit (stdout, one write). */
static void annotate_failure(struct compile_opts *o, const char *output)
{
	struct buf b = BUF_INIT;
	char *owners = owners_text(o->owners);
	char *msg = xstrfmt("%s failed (classes: %s)", o->label, owners);

	if (!o->github || o->annotated)
		goto out;
	o->annotated = 1;
	annotate_compiler_output(&b, output, o->root, unit_source(o), msg);
	fflush(stdout);
	(void)write_all(1, b.s, b.len);
out:
	buf_release(&b);
	free(msg);
	free(owners);
}

/* Run one step; 0 on success, -1 after printing the failure block. */
static int run_step(const char *step, const struct strvec *argv, struct compile_opts *o,
		    struct buf *output)
{
	struct run_result res;
	struct buf head = BUF_INIT;
	char *owners = owners_text(o->owners);
	int ret = 0;

	if (run_capture((const char *const *)argv->v, o->root, output, &res)) {
		ret = error("%s: cannot run the %s step (classes: %s)", o->label, step, owners);
	} else if (!res.exited || res.status) {
		buf_addf(&head, "kwarm: error: %s failed at the %s step (", o->label, step);
		run_describe(&res, &head);
		buf_addf(&head, "); classes: %s", owners);
		print_block(head.s, output);
		annotate_failure(o, buf_str(output));
		buf_reset(output);
		ret = -1;
	}
	buf_release(&head);
	free(owners);
	return ret;
}

/* Check a step's output exists and is not empty. */
static int check_output(const char *path, const char *step, const struct compile_opts *o,
			const struct buf *output)
{
	struct stat st;
	struct buf head = BUF_INIT;
	char *owners;
	int missing = stat(path, &st) != 0;

	if (!missing && S_ISREG(st.st_mode) && st.st_size > 0)
		return 0;
	owners = owners_text(o->owners);
	buf_addf(&head, "kwarm: error: %s: the %s step exited 0 but wrote %s; classes: %s",
		 o->label, step, missing ? "no output" : "an empty output", owners);
	print_block(head.s, output);
	buf_release(&head);
	free(owners);
	return -1;
}

/* Say once per make run that the cache is not used, and why. */
static void warn_uncached_once(const struct compile_opts *o, const char *why)
{
	char run[64], *marker;
	int fd;

	cachelog_run_tag(run, sizeof(run));
	marker = xstrfmt("%s/warned.%s", o->private_dir, run);

	mkdir_p(o->private_dir);
	fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0 || errno != EEXIST)
		warning("the cache is not used (%s); compiling without caching, results go "
			"to '%s'", why, o->private_dir);
	if (fd >= 0)
		close(fd);
	free(marker);
}

/* The temp files of one attempt, beside the entry they become: a rename
 * publishes the last one. Registered, so a signal removes them. */
struct attempt {
	char *obj, *linked, *text, *deps;
	int slots[4];
};

static void attempt_init(struct attempt *a, const struct cache *home, const char *key)
{
	char *entry = cache_unit_path(home, key, "");
	char *dir = path_dirname(entry);
	long pid = (long)getpid();

	mkdir_p(dir);
	a->obj = xstrfmt("%s.tmp.%ld.00000a00", entry, pid);
	a->linked = xstrfmt("%s.tmp.%ld.00000a01", entry, pid);
	a->text = xstrfmt("%s.tmp.%ld.00000a02", entry, pid);
	a->deps = xstrfmt("%s.tmp.%ld.00000a03", entry, pid);
	a->slots[0] = publish_register_temp(a->obj);
	a->slots[1] = publish_register_temp(a->linked);
	a->slots[2] = publish_register_temp(a->text);
	a->slots[3] = publish_register_temp(a->deps);
	free(dir);
	free(entry);
}

static void attempt_release(struct attempt *a)
{
	char *files[] = { a->obj, a->linked, a->text, a->deps };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		if (!files[i])
			continue;
		unlink(files[i]);
		publish_unregister_temp(a->slots[i]);
		free(files[i]);
	}
	memset(a, 0, sizeof(*a));
}

/* The family whose dependency output this compile asks for. */
static enum deps_family compile_family(const struct compile_opts *o)
{
	char *path;
	enum deps_family f;

	if (o->uc.deps >= 0)
		return (enum deps_family)o->uc.deps;
	path = path_which(o->uc.argv.v[0]);
	f = deps_family_detect(path ? path : o->uc.argv.v[0]);
	free(path);
	return f;
}

/* Run the compile, with its dependency output in a->deps when the family
 * can write one (*listed says whether it was asked for). */
static int run_compile(struct compile_opts *o, struct attempt *a, struct buf *output,
		       int *listed)
{
	struct strvec argv, extra, env, sources, dirs;
	int ret;

	strvec_init(&argv);
	strvec_init(&extra);
	strvec_init(&env);
	strvec_init(&sources);
	strvec_init(&dirs);
	unit_command_inputs(&o->uc, &sources, &dirs);
	o->family = compile_family(o);
	*listed = !deps_request(o->family, sources.nr, a->deps, &extra, &env);
	strvec_pushv(&argv, &o->launcher);
	for (size_t i = 0; i < o->uc.argv.nr; i++) {
		strvec_push(&argv, strcmp(o->uc.argv.v[i], UNITKEY_OUT) ? o->uc.argv.v[i] : a->obj);
		if (!i)
			strvec_pushv(&argv, &extra);
	}
	/* This process exists for this compile: its environment is the child's. */
	for (size_t i = 0; i < env.nr; i++)
		putenv(env.v[i]);
	ret = run_step("compile", &argv, o, output);
	for (size_t i = 0; i < env.nr; i++) {
		char *name = xstrndup(env.v[i], strcspn(env.v[i], "="));

		unsetenv(name);
		free(name);
	}
	strvec_release(&argv);
	strvec_release(&extra);
	strvec_release(&env);
	strvec_release(&sources);
	strvec_release(&dirs);
	return ret;
}

/* Compile, link and extract into a's files; *final is the one to publish. */
static int run_steps(struct compile_opts *o, struct attempt *a, struct buf *output,
		     const char **final, int *listed)
{
	struct strvec link;
	int ret = -1;

	strvec_init(&link);
	if (run_compile(o, a, output, listed) || check_output(a->obj, "compile", o, output))
		goto out;
	*final = a->obj;
	if (o->uc.link.nr) {
		strvec_pushv(&link, &o->uc.link);
		strvec_push(&link, "-o");
		strvec_push(&link, a->linked);
		strvec_push(&link, a->obj);
		if (run_step("link", &link, o, output) ||
		    check_output(a->linked, "link", o, output))
			goto out;
		*final = a->linked;
	}
	if (o->uc.extract_text) {
		if (extract_text(*final, a->text, o->label))
			goto out;
		*final = a->text;
	}
	ret = 0;
out:
	strvec_release(&link);
	return ret;
}

/* The manifest lines of what the compile read (reads.h); 0, or -1 after reporting. */
static int read_lines(struct compile_opts *o, struct closure_cache *cc, const struct attempt *a,
		      int listed, const struct closure *closure, struct buf *lines)
{
	struct strvec files;
	int ret;

	strvec_init(&files);
	if (listed && deps_parse_file(a->deps, &files)) {
		if (errno != ENOENT) {
			strvec_release(&files);
			return error("%s: cannot read the compiler's dependency output '%s': %s",
				     o->label, a->deps, strerror(errno));
		}
		listed = 0;	/* it wrote none: the scanner's closure is all we know */
	}
	ret = reads_manifest_lines(cc, o->root, listed ? deps_family_name(o->family) : "none",
				   &files, closure, lines);
	if (ret)
		error("%s: cannot record what the compiler read", o->label);
	strvec_release(&files);
	return ret;
}

static int compile_unit(struct compile_opts *o, const struct cache *cache, char *why)
{
	char key_now[DIGEST_HEX_SIZE], base[DIGEST_HEX_SIZE];
	struct closure_cache cc;
	struct closure closure;
	struct unitkey_out kout = { .closure = &closure, .base = base };
	struct buf output = BUF_INIT, lines = BUF_INIT;
	struct cache priv = { NULL };
	const struct cache *home = cache;
	struct attempt a = { NULL, NULL, NULL, NULL, { -1, -1, -1, -1 } };
	struct cache_adoption ad = { NULL, NULL, -1, 0 };
	char *tools = NULL;
	const char *final = NULL;
	double start = now_seconds(), seconds;
	int ret = -1, adopted, listed = 0;

	memset(&closure, 0, sizeof(closure));
	closure_cache_init(&cc);
	if (cache) {
		/* Compiler identities outlive this process: no 1 MB hash per compile. */
		tools = path_join(cache->dir, "tools");
		cc.tool_memo_dir = tools;
	}
	if (!home) {
		if (!o->private_dir || cache_init(&priv, o->private_dir))
			goto out;
		warn_uncached_once(o, why ? why : "it cannot be used");
		home = &priv;
	}
	/* The outputs go beside the entry, so that a rename publishes them. */
	attempt_init(&a, home, o->key);
	if (run_steps(o, &a, &output, &final, &listed)) {
		/* A full cache disk fails the compile itself: once more, privately. */
		if (home != cache || !o->private_dir || !cache_fs_full(cache) ||
		    cache_init(&priv, o->private_dir))
			goto out;
		warn_uncached_once(o, "its disk is full");
		attempt_release(&a);
		buf_reset(&output);
		home = &priv;
		attempt_init(&a, home, o->key);
		if (run_steps(o, &a, &output, &final, &listed))
			goto out;
	}
	/* The key from the files as they are now, after the compile: if a file
	 * changed since the Makefile was made (edited mid-build), the result is
	 * not what the key names and is never cached under it. */
	if (unitkey_compute(&cc, &o->uc, key_now, &kout))
		goto out;
	if (strcmp(key_now, o->key)) {
		error("%s: an input changed while it compiled; the result is not cached: "
		      "run make again", o->label);
		goto out;
	}
	/* What the compiler read beyond the closure goes into the manifest: the
	 * entry is used only while those files stay as they are. */
	if (read_lines(o, &cc, &a, listed, &closure, &lines))
		goto out;
	adopted = !cache_unit_adopt_begin(home, o->key, final, o->label, lines.s, &ad);
	seconds = now_seconds() - start;
	if (home == cache && o->id)
		durations_record(cache->dir, o->id, seconds);
	if (home == cache)
		cachelog_event(cache->dir, "miss", o->key, seconds);
	if (!adopted || cache_unit_adopt_finish(&ad)) {
		/* The cache took the compile but not its entry: keep the result
		 * privately, when the compiled file is still there. */
		if (home != cache || !o->private_dir || access(final, F_OK) ||
		    cache_init(&priv, o->private_dir))
			goto out;
		warn_uncached_once(o, "it cannot store results");
		if (cache_unit_store(&priv, o->key, final, o->label, lines.s))
			goto out;
	} else if (strcmp(o->key, base)) {
		reads_point(home->dir, base, o->key);
	}
	if (output.len) {
		char *head = xstrfmt("kwarm: %s: compiler output:", o->label);

		print_block(head, &output);
		free(head);
	}
	if (!o->state) {
		printf("kwarm: built %s (%.2f s)\n", o->label, now_seconds() - start);
		fflush(stdout);
	}
	ret = 0;
out:
	cache_unit_adopt_abort(&ad);
	attempt_release(&a);
	cache_release(&priv);
	closure_release(&closure);
	closure_cache_release(&cc);
	buf_release(&output);
	buf_release(&lines);
	free(tools);
	return ret;
}

int cmd_compile(int argc, char **argv)
{
	struct compile_opts o;
	struct progress_step step = { NULL, NULL, NULL, NULL, 0, 0, 0, NULL };
	struct runstate rs;
	struct cache cache = { NULL };
	char *why = NULL;
	int i, lock, ret = 1, state;

	memset(&o, 0, sizeof(o));
	o.owners = "";
	strvec_init(&o.launcher);
	unit_command_init(&o.uc);
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			return usage_error(usage_compile, "option '%s' needs a value", a);
		i++;
		if (!strcmp(a, "--cache"))
			o.cache = v;
		else if (!strcmp(a, "--root"))
			o.root = v;
		else if (!strcmp(a, "--platform"))
			o.platform = v;
		else if (!strcmp(a, "--key"))
			o.key = v;
		else if (!strcmp(a, "--unit"))
			o.label = v;
		else if (!strcmp(a, "--id"))
			o.id = v;
		else if (!strcmp(a, "--private"))
			o.private_dir = v;
		else if (!strcmp(a, "--owners"))
			o.owners = v;
		else if (!strcmp(a, "--state"))
			o.state = v;
		else if (!strcmp(a, "--units"))
			o.units = v;
		else if (!strcmp(a, "--goals"))
			o.goals = v;
		else if (!strcmp(a, "--format") && annotate_pick_format(v) >= 0)
			o.github = annotate_pick_format(v);
		else if (!strcmp(a, "--launcher"))
			strvec_push(&o.launcher, v);
		else if (!strcmp(a, "--link"))
			strvec_push(&o.uc.link, v);
		else if (!strcmp(a, "--extract") && !strcmp(v, "text"))
			o.uc.extract_text = 1;
		else if (!strcmp(a, "--deps") && deps_family_parse(v) >= 0)
			o.uc.deps = deps_family_parse(v);
		else if (!strcmp(a, "--env"))
			strvec_push(&o.uc.env, v);
		else
			return usage_error(usage_compile, "unknown option '%s %s'", a, v);
	}
	if (i >= argc - 1 || !o.cache || !o.root || !o.platform || !o.key || !o.label ||
	    strlen(o.key) != 64)
		return usage_error(usage_compile, "missing options or command");
	for (i++; i < argc; i++)
		strvec_push(&o.uc.argv, argv[i]);
	o.uc.platform = o.platform;
	o.uc.root = o.root;
	o.uc.cache_dir = o.cache;
	if (!o.github)
		o.github = annotate_pick_format(NULL) == 1;
	if (o.state) {
		runstate_open(&rs, o.state, o.units ? o.units : "");
		progress_unit_start(&rs, o.cache, o.goals);
	}
	step.t0 = runstate_now();

	publish_install_signal_cleanup();
	if (cache_try_init(&cache, o.cache, &why)) {
		ret = compile_unit(&o, NULL, why) ? 1 : 0;
		goto out;
	}
	lock = cache_lock_unit(&cache, o.key);
	if (lock < 0) {
		why = xstrfmt("cannot lock '%s'", o.key);
		ret = compile_unit(&o, NULL, why) ? 1 : 0;
		goto out;
	}
	/* Whoever held the lock before us may have published it: a hit after wait. */
	state = cache_unit_check(&cache, o.key, 1);
	if (state == 1) {
		cachelog_event(cache.dir, "wait-hit", o.key, 0);
		step.status = "cached";
		ret = 0;
	} else {
		if (state < 0 && !cache_unit_remove(&cache, o.key))
			cachelog_event(cache.dir, "corrupt", o.key, 0);
		ret = compile_unit(&o, &cache, NULL) ? 1 : 0;
	}
	cache_unlock(lock);
out:
	if (ret)
		annotate_failure(&o, "");
	if (o.state) {
		step.label = o.label;
		step.key = o.key;
		step.owners = o.owners;
		step.status = ret ? "failed" : step.status ? step.status : "built";
		step.t1 = runstate_now();
		step.github = o.github;
		step.goals = o.goals;
		progress_unit_done(&rs, &step);
		runstate_release(&rs);
	}
	free(why);
	cache_release(&cache);
	strvec_release(&o.launcher);
	unit_command_release(&o.uc);
	return ret;
}
