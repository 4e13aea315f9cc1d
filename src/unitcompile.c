#include "unitcompile.h"
#include "report/annotate.h"
#include "cache/cache.h"
#include "cache/cachelog.h"
#include "report/events.h"
#include "report/made.h"
#include "report/progress.h"
#include "report/runid.h"
#include "report/durations.h"
#include "pack/extract.h"
#include "path.h"
#include "publish.h"
#include "key/reads.h"
#include "key/searchlist.h"
#include "key/toolid.h"
#include "cache/remote.h"
#include "run.h"
#include "os.h"
#include "parseopt.h"
#include "cache/store.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void compile_job_init(struct compile_job *j)
{
	*j = (struct compile_job){ .owners = STRVEC_INIT, .launcher = STRVEC_INIT };
	unit_command_init(&j->uc);
}

void compile_job_release(struct compile_job *j)
{
	strvec_release(&j->launcher);
	unit_command_release(&j->uc);
	strvec_release(&j->owners);
	unitlist_unit_release(&j->found);
	free(j->classes);
	buf_release(&j->held);
	buf_release(&j->held_output);
	buf_release(&j->held_errors);
}

/* What the words leave to be worked out: the unit's label, id and owners from
 * the plan, and the output format. 0, or -1 with *bad set. */
static int compile_job_complete(struct compile_job *o, char **bad)
{
	struct buf classes = BUF_INIT;

	if (o->owner_list)
		planfile_split_owners(&o->owners, o->owner_list);
	if (!o->label) {
		int found = planfile_lookup(o->plan, o->key, &o->found);

		if (found <= 0) {
			*bad = found ? xstrfmt("cannot read the plan '%s'", o->plan)
				     : xstrfmt("unit '%.16s' is not in the plan '%s': run kwarm gen "
					       "again", o->key, o->plan);
			return -1;
		}
		o->label = o->found.label;
		if (!o->id)
			o->id = o->found.id;
		if (!o->owners.nr)
			strvec_pushv(&o->owners, &o->found.owners);
	}
	strvec_join(&classes, &o->owners, ", ");
	o->classes = buf_detach(&classes);
	/* One decision: --format over $GITHUB_ACTIONS. */
	o->github = annotate_pick_format(o->format) == 1;
	o->uc.cache_dir = o->cache;
	return 0;
}

/* --extract: "text" is the one way there is. */
static int extract_option(const struct option *opt, const char *arg, char **bad)
{
	if (strcmp(arg, "text")) {
		*bad = xstrfmt("unknown option '%s %s'", opt->name, arg);
		return -1;
	}
	*(int *)opt->value = 1;
	return 0;
}

static int deps_option(const struct option *opt, const char *arg, char **bad)
{
	int family = deps_family_parse(arg);

	if (family < 0) {
		*bad = xstrfmt("unknown option '%s %s'", opt->name, arg);
		return -1;
	}
	*(int *)opt->value = family;
	return 0;
}

int compile_job_parse(struct compile_job *o, int argc, char **argv, char **bad)
{
	struct option opts[] = {
		OPT_STRING("--cache", &o->cache),
		OPT_STRING("--root", &o->uc.root),
		OPT_STRING("--platform", &o->uc.platform),
		OPT_STRING("--key", &o->key),
		OPT_STRING("--unit", &o->label),
		OPT_STRING("--plan", &o->plan),
		OPT_STRING("--id", &o->id),
		OPT_STRING("--private", &o->private_dir),
		OPT_STRING("--owners", &o->owner_list),
		OPT_STRING("--state", &o->state),
		OPT_STRING("--goals", &o->goals),
		OPT_STRING("--remote", &o->remote),
		OPT_FORMAT(&o->format),
		OPT_LIST("--launcher", &o->launcher),
		OPT_LIST("--link", &o->uc.link),
		OPT_CALLBACK("--extract", &o->uc.extract_text, extract_option),
		OPT_CALLBACK("--deps", &o->uc.deps, deps_option),
		OPT_LIST("--env", &o->uc.env),
		OPT_END(),
	};
	/* parse_options moves words: the caller's array stays as it is. */
	char **words = xcalloc((size_t)argc + 1, sizeof(*words));
	int nr;

	memcpy(words, argv, (size_t)argc * sizeof(*words));
	nr = parse_options(argc, words, opts, PARSE_STOP, bad);
	/* What is left is "-- COMMAND...". */
	if (nr >= 0 && (nr < 2 || strcmp(words[0], "--") || !o->cache || !o->uc.root ||
			!o->uc.platform || !o->key || (!o->label && !o->plan) ||
			strlen(o->key) != 64)) {
		*bad = xstrdup("missing options or command");
		nr = -1;
	}
	for (int i = 1; i < nr; i++)
		strvec_push(&o->uc.argv, words[i]);
	free(words);
	return nr < 0 ? nr : compile_job_complete(o, bad);
}

/* Print the compiler output as one block, so parallel jobs never interleave;
 * while holding, keep it in o->held instead (see show_held). */
static void print_block(struct compile_job *o, const char *head, const struct buf *output)
{
	struct buf b = BUF_INIT, *to = o->holding ? &o->held : &b;

	buf_adds(to, head);
	buf_addch(to, '\n');
	buf_add(to, buf_str(output), output->len);
	if (output->len && output->s[output->len - 1] != '\n')
		buf_addch(to, '\n');
	if (o->holding) {
		buf_add(&o->held_output, buf_str(output), output->len);
		return;
	}
	fflush(stdout);
	/* One write; with a broken stderr there is nothing better to do. */
	(void)write_all(2, b.s, b.len);
	buf_release(&b);
}

/* The unit's main source: the word after "-o {out}", else the last word. */
static const char *unit_source(const struct compile_job *o)
{
	const struct strvec *v = &o->uc.argv;

	for (size_t i = 0; i + 1 < v->nr; i++)
		if (!strcmp(v->v[i], UNITKEY_OUT))
			return v->v[i + 1];
	return v->nr ? v->v[v->nr - 1] : "";
}

/* Under --format github: annotations for a failed unit (stdout, one write). */
static void annotate_failure(struct compile_job *o, const char *output)
{
	struct buf b = BUF_INIT;
	char *msg;

	if (!o->github || o->annotated)
		return;
	o->annotated = 1;
	msg = xstrfmt("%s failed (classes: %s)", o->label, o->classes);
	annotate_compiler_output(&b, output, o->uc.root, unit_source(o), msg);
	fflush(stdout);
	(void)write_all(1, b.s, b.len);
	buf_release(&b);
	free(msg);
}

/* The run's bookkeeping this step owes (progress_unit_bookkeeping), once. */
static void bookkeeping(void *data)
{
	struct compile_job *o = data;

	if (!o->bookkeeping_due)
		return;
	o->bookkeeping_due = 0;
	progress_unit_bookkeeping(o->rs, o->cache, o->goals);
}

/* Run one step; 0 on success, -1 after printing the failure block (held
 * while holding) or with the error in why (error_to). The compile step does
 * the run's bookkeeping while the compiler runs. */
static int run_step(const char *step, const struct strvec *argv, struct compile_job *o,
		    struct buf *output, struct buf *why)
{
	struct run_result res;
	struct buf head = BUF_INIT;
	int ret = 0;

	if (run_capture_meanwhile((const char *const *)argv->v, o->uc.root, output, &res, why,
				  strcmp(step, "compile") ? NULL : bookkeeping, o)) {
		ret = error_to(why, "%s: cannot run the %s step (classes: %s)", o->label, step,
			       o->classes);
	} else if (!res.exited || res.status) {
		buf_addf(&head, "kwarm: error: %s failed at the %s step (", o->label, step);
		run_describe(&res, &head);
		buf_addf(&head, "); classes: %s", o->classes);
		print_block(o, head.s, output);
		if (!o->holding)
			annotate_failure(o, buf_str(output));
		buf_reset(output);
		ret = -1;
	}
	buf_release(&head);
	return ret;
}

/* What a compile that succeeded printed (its warnings), as one block. */
static void print_warnings(struct compile_job *o, const struct buf *output)
{
	char *head;

	if (!output->len)
		return;
	head = xstrfmt("kwarm: %s: compiler output:", o->label);
	print_block(o, head, output);
	free(head);
}

/* Check a step's output exists and is not empty. */
static int check_output(const char *path, const char *step, struct compile_job *o,
			const struct buf *output)
{
	struct stat st;
	char *head;
	int missing = stat(path, &st) != 0;

	if (!missing && S_ISREG(st.st_mode) && st.st_size > 0)
		return 0;
	head = xstrfmt("kwarm: error: %s: the %s step exited 0 but wrote %s; classes: %s",
		       o->label, step, missing ? "no output" : "an empty output", o->classes);
	print_block(o, head, output);
	free(head);
	return -1;
}

/* Say once per make run that the cache is not used, and why; note it in the
 * run's reports (summary.json). A store_warn_fn: data is the compile_job. */
static void warn_uncached_once(void *data, const char *why)
{
	const struct compile_job *o = data;
	char run[RUNID_TAG_SIZE], *marker;
	int fd;

	if (o->rs) {
		int lock = runstate_lock(o->rs);

		if (lock >= 0)
			(void)runstate_note(o->rs, RUNSTATE_CACHE_UNUSABLE, why);
		runstate_unlock(lock);
	}
	runid_tag(run, sizeof(run));
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

/* Hold o's failure blocks while on (an attempt in the cache); the errors
 * to hold go to the buf returned (NULL when off: on stderr). */
static struct buf *hold(struct compile_job *o, int on)
{
	o->holding = on;
	return on ? &o->held_errors : NULL;
}

/* The attempt's failure counts after all: show what it held back. */
static void show_held(struct compile_job *o)
{
	if (o->held_errors.len)
		error("%s", o->held_errors.s);
	if (o->held.len) {
		fflush(stdout);
		(void)write_all(2, o->held.s, o->held.len);
		annotate_failure(o, buf_str(&o->held_output));
	}
}

/* It does not count: a private attempt made it good. */
static void drop_held(struct compile_job *o)
{
	buf_reset(&o->held);
	buf_reset(&o->held_output);
	buf_reset(&o->held_errors);
}

/* Why the unit's result must not be cached, or NULL: what decides it that
 * its key cannot cover. The time macros its files name (closure.h), whose
 * entry would be served with another time's bytes; an assembler directive
 * that reads a file; when the compiler listed no reads (listed 0), a header
 * named by a macro or by -include, which the scanner does not follow.
 * Caller frees. */
static char *uncached_why(const struct closure *c, const struct unit_command *uc, int listed)
{
	const char *forced;

	if (c->unkeyed & CLOSURE_MTIME)
		return xstrdup("a file of it names __TIMESTAMP__");
	if ((c->unkeyed & CLOSURE_CLOCK) && !getenv("SOURCE_DATE_EPOCH"))
		return xstrdup("a file of it names __DATE__ or __TIME__, and SOURCE_DATE_EPOCH is not set");
	if (c->unkeyed & CLOSURE_ASM_FILE)
		return xstrdup("a file of it names .incbin or .include, whose file the "
			       "assembler reads unlisted");
	if (c->unkeyed & CLOSURE_PCH_DIR)
		return xstrdup("a header of it has a folder of precompiled headers beside it");
	if (!listed && c->macro_at)
		return xstrfmt("the header that '%s' includes by a macro is not in its key: "
			       "the compiler lists no files it read", c->macro_at);
	if (!listed && (forced = unitkey_forced_header(uc)))
		return xstrfmt("what its '%s' includes is not in its key: "
			       "the compiler lists no files it read", forced);
	return NULL;
}

static void warn_not_cached(void *data, const char *why)
{
	const struct compile_job *o = data;

	warning("%s: not cached: %s", o->label, why);
}

/* The cache cannot take this unit (why): its results go to the private store,
 * opened in priv on first need (store.h). 0, or -1 after reporting. */
static int go_private(struct compile_job *o, struct cache *priv, const char *why)
{
	return store_fall_back(priv, o->private_dir, 0, why, warn_uncached_once, o);
}

/* The temp files of one attempt, beside the entry they become: a rename
 * publishes the last one. Named and registered once a step may write them
 * (a tiny compile writes OBJ alone), so a signal removes them. */
enum { OBJ, LINKED, TEXT, DEPS, NR_TEMPS };
struct attempt {
	char *stem;			/* the entry's path but its suffix */
	char *file[NR_TEMPS];		/* NULL until a step may write it */
	int slot[NR_TEMPS];
	int made[NR_TEMPS];		/* a step that writes it ran */
	int stamp_fd;			/* the job slot's file (runstate.h), or -1 */
	int deps_fd;			/* the dependency output in memory, or -1 (DEPS) */
	struct timespec started;	/* the file system's time before the compile */
	int again;			/* a read changed during the last attempt's compile */
	const char *published;		/* the one renamed into the entry */
};

/* A step that writes file i is about to run. Its name is fresh: a file a
 * killed attempt left under this pid is never taken for what a step (exiting
 * 0 without writing) made. */
static void attempt_writes(struct attempt *a, int i)
{
	if (a->made[i])
		return;
	a->made[i] = 1;
	a->file[i] = cache_fresh_temp_name(a->stem, (long)getpid(), (unsigned)i);
	a->slot[i] = publish_register_temp(a->file[i], NULL);
}

static void attempt_init(struct attempt *a, const struct cache *home, const struct compile_job *o)
{
	char *dir;

	memset(a, 0, sizeof(*a));
	a->stem = cache_unit_path(home, o->key, "");
	dir = path_dirname(a->stem);
	mkdir_p(dir);
	for (int i = 0; i < NR_TEMPS; i++)
		a->slot[i] = -1;
	a->stamp_fd = o->rs ? o->rs->slot_fd : -1;
	/* No file made and removed for the list (see stamp). */
	a->deps_fd = o->deps_in_memory ? os_memory_file("kwarm-deps") : -1;
	attempt_writes(a, OBJ);
	/* Else no step writes DEPS (but run_compile, when the memory fails). */
	if (a->deps_fd < 0 || a->stamp_fd < 0)
		attempt_writes(a, DEPS);
	free(dir);
}

static void attempt_release(struct attempt *a)
{
	for (int i = 0; i < NR_TEMPS; i++) {
		/* No failing unlink of a file no step wrote, or that is the entry now. */
		if (a->made[i] && a->file[i] != a->published)
			unlink(a->file[i]);
		publish_unregister_temp(a->slot[i]);
		free(a->file[i]);
	}
	free(a->stem);
	if (a->deps_fd >= 0)
		close(a->deps_fd);
}

/* Start the attempt a over, with fresh names in home and its output dropped. */
static void attempt_restart(struct attempt *a, const struct cache *home,
			    const struct compile_job *o, struct buf *output)
{
	attempt_release(a);
	buf_reset(output);
	attempt_init(a, home, o);
}

/* The family whose dependency output this compile asks for: --deps, else
 * by the name of the file the compiler's identity was taken of (cc's memo:
 * the key needs it anyway). Its list goes to memory when that name is gcc's
 * and no launcher runs it: gcc writes it where -MF says, /dev/fd/N too,
 * while a launcher or a wrapper (ccache) may publish it by rename. */
static void compile_family(struct compile_job *o, struct closure_cache *cc)
{
	const char *real = toolid_target(cc, o->uc.root, o->uc.argv.v[0]);
	enum deps_family named = real ? deps_family_named(real)
				      : deps_family_detect(o->uc.argv.v[0]);

	o->family = o->uc.deps >= 0 ? (enum deps_family)o->uc.deps : named;
	o->deps_in_memory = !o->launcher.nr && o->family == DEPS_GCC && named == DEPS_GCC;
}

/* Run the compile, with its dependency output in memory or a->file[DEPS]
 * when the family can write one (*listed says whether it was asked for). */
static int run_compile(struct compile_job *o, struct attempt *a, struct buf *output,
		       int *listed, struct buf *why)
{
	struct strvec argv = STRVEC_INIT, extra = STRVEC_INIT, env = STRVEC_INIT;
	size_t nsources = unit_command_nr_sources(&o->uc);
	/* Open in the compiler (not close-on-exec) while it runs. */
	int keep = a->deps_fd >= 0 ? dup(a->deps_fd) : -1, ret;
	char *dfile = keep >= 0 ? xstrfmt("/dev/fd/%d", keep) : NULL;

	if (a->deps_fd >= 0 && keep < 0) {
		close(a->deps_fd);
		a->deps_fd = -1;
		attempt_writes(a, DEPS);
	}
	*listed = !deps_request(o->family, nsources, dfile ? dfile : a->file[DEPS], &extra, &env);
	strvec_pushv(&argv, &o->launcher);
	for (size_t i = 0; i < o->uc.argv.nr; i++) {
		size_t drop = *listed && i ? deps_user_option(&o->uc.argv, i) : 0;

		if (drop) {
			i += drop - 1;
			continue;
		}
		strvec_push(&argv, strcmp(o->uc.argv.v[i], UNITKEY_OUT) ? o->uc.argv.v[i]
									: a->file[OBJ]);
		if (!i)
			strvec_pushv(&argv, &extra);
	}
	/* This process exists for this compile: its environment is the child's. */
	for (size_t i = 0; i < env.nr; i++)
		if (strchr(env.v[i], '='))
			putenv(env.v[i]);
		else
			unsetenv(env.v[i]);
	ret = run_step("compile", &argv, o, output, why);
	if (keep >= 0)
		close(keep);
	free(dfile);
	for (size_t i = 0; i < env.nr; i++) {
		char *name = xstrndup(env.v[i], strcspn(env.v[i], "="));

		unsetenv(name);
		free(name);
	}
	strvec_release(&argv);
	strvec_release(&extra);
	strvec_release(&env);
	return ret;
}

/* The file system's time now, off a write to the job slot's file, else to
 * DEPS (a temp of the attempt, which a kill leaves for prune to find):
 * creating a file and removing it costs more (on ext4 without a journal,
 * each inode removed makes every file created in its group for a minute
 * after dearer). */
static int stamp(struct attempt *a)
{
	if (a->stamp_fd >= 0 && !os_file_stamp_fd(a->stamp_fd, &a->started))
		return 0;
	attempt_writes(a, DEPS);
	(void)os_file_stamp_at(a->file[DEPS], &a->started);
	return 1;	/* DEPS is there */
}

/* The compile's start stamp. Best effort: a failure gives the coarse clock,
 * which errs on the side of a file changed while it compiled. Again after a
 * change, the file system's clock ticks first: the change is older than it. */
static void start_stamp(struct attempt *a)
{
	const struct timespec ms = { 0, 1000000 };
	struct timespec seen;
	int wrote = stamp(a);

	seen = a->started;
	while (a->again && a->started.tv_sec == seen.tv_sec &&
	       a->started.tv_nsec == seen.tv_nsec) {
		nanosleep(&ms, NULL);
		wrote |= stamp(a);
	}
	/* The compiler writes DEPS, or no file is there. */
	if (wrote)
		unlink(a->file[DEPS]);
}

/* Compile, link and extract into a's files; *final is the one to publish.
 * Errors go to why (error_to). */
static int run_steps(struct compile_job *o, struct attempt *a, struct buf *output,
		     const char **final, int *listed, struct buf *why)
{
	struct strvec link = STRVEC_INIT;
	int ret = -1;

	start_stamp(a);
	if (run_compile(o, a, output, listed, why) ||
	    check_output(a->file[OBJ], "compile", o, output))
		goto out;
	*final = a->file[OBJ];
	if (o->uc.link.nr) {
		strvec_pushv(&link, &o->uc.link);
		attempt_writes(a, LINKED);
		strvec_push(&link, "-o");
		strvec_push(&link, a->file[LINKED]);
		strvec_push(&link, a->file[OBJ]);
		if (run_step("link", &link, o, output, why) ||
		    check_output(a->file[LINKED], "link", o, output))
			goto out;
		*final = a->file[LINKED];
	}
	if (o->uc.extract_text) {
		attempt_writes(a, TEXT);
		if (extract_text(*final, a->file[TEXT], o->label, why))
			goto out;
		*final = a->file[TEXT];
	}
	ret = 0;
out:
	strvec_release(&link);
	return ret;
}

/* Another process compiled the unit while this one waited: is what it read
 * (its entry's recorded reads) as this process sees the files? Two runs whose
 * system headers differ can share a cache; the key then names another state. */
static int same_inputs(struct compile_job *o, int report)
{
	struct closure_cache cc;
	char key_now[DIGEST_HEX_SIZE];
	struct buf unsaid = BUF_INIT;
	int same;

	closure_cache_init(&cc);
	/* Only asked (a fetched entry's check): what the key cannot read counts
	 * as other inputs, silently. */
	if (!report)
		cc.why = &unsaid;
	same = !unitkey_compute(&cc, &o->uc, key_now, NULL) && !strcmp(key_now, o->key);
	closure_cache_release(&cc);
	buf_release(&unsaid);
	if (!same && report)
		error("%s: another process compiled it from other inputs than this run sees; "
		      "run make again", o->label);
	return same;
}

/* The compiler's list of what it read into files. 0, or -1 with errno set:
 * ENOENT when it wrote none (in memory: an empty list, as a list names at
 * least the source). */
static int read_deps(const struct attempt *a, struct strvec *files)
{
	char *mem = a->deps_fd >= 0 ? xstrfmt("/dev/fd/%d", a->deps_fd) : NULL;
	int ret = deps_parse_file(mem ? mem : a->file[DEPS], files);

	if (!ret && mem && !files->nr) {
		errno = ENOENT;
		ret = -1;
	}
	free(mem);
	return ret;
}

/* The manifest lines of what the compile read (reads.h) and where its
 * lookups found nothing (searchlist.h); *listed is 0 when the compiler wrote
 * no list. 0, 1 when a file it read changed while it ran (*changed), or -1
 * after reporting. Without the compiler's search list, *uncached says so
 * (caller frees): a new header in a folder it searches first would not be
 * seen. */
static int read_lines(struct compile_job *o, struct closure_cache *cc, const struct attempt *a,
		      int *listed, const struct closure *closure, char **changed,
		      char **uncached, struct buf *lines)
{
	struct strvec files = STRVEC_INIT, places = STRVEC_INIT;
	struct buf why = BUF_INIT;
	int ret;

	if (*listed && read_deps(a, &files)) {
		if (errno != ENOENT) {
			strvec_release(&files);
			return error_errno("%s: cannot read the compiler's dependency output '%s'",
					   o->label, a->deps_fd >= 0 ? "in memory" : a->file[DEPS]);
		}
		*listed = 0;	/* it wrote none: the scanner's closure is all we know */
	}
	if (*listed && o->family == DEPS_CLANG) {
		struct strvec written = files;

		strvec_init(&files);
		deps_clang_names(o->uc.root, &written, &files);
		strvec_release(&written);
	}
	if (*listed && searchlist_probes(cc, &o->uc, cc->tool_memo_dir, &files, &places, &why)) {
		warning("%s: %s", o->label, why.s);
		*uncached = xstrdup("its compiler's include search list is not known");
	}
	ret = reads_manifest_lines(cc, o->uc.root, *listed ? deps_family_name(o->family) : "none",
				   &files, &places, closure, &a->started, changed, lines);
	if (ret < 0)
		error("%s: cannot record what the compiler read", o->label);
	strvec_release(&files);
	strvec_release(&places);
	buf_release(&why);
	return ret;
}

/* The entry's manifest lines, once the compile is done: the key again from
 * the files as they are now (a file edited mid-build makes the result not
 * what the key names: it is never cached under it), what the compiler read
 * beyond the closure (the entry is used only while those stay as they are),
 * and what the key covered, so that kwarm explain can say what changed;
 * *uncached: why it must not be cached, or NULL (read_lines, uncached_why;
 * caller frees). 0, 1 when a file the compile read changed while it ran
 * (*changed), or -1 after reporting. */
static int manifest_lines(struct compile_job *o, struct closure_cache *cc,
			  const struct attempt *a, int listed, char *base, char **changed,
			  char **uncached, struct buf *lines)
{
	char key_now[DIGEST_HEX_SIZE];
	struct closure closure = { 0 };
	struct strvec covers = STRVEC_INIT;
	struct unitkey_out kout = { .closure = &closure, .base = base, .why = &covers };
	int ret = -1;

	if (unitkey_compute(cc, &o->uc, key_now, &kout))
		goto out;
	if (strcmp(key_now, o->key)) {
		error("%s: an input changed while it compiled; the result is not cached: "
		      "run make again", o->label);
		goto out;
	}
	free(*uncached);
	*uncached = NULL;
	ret = read_lines(o, cc, a, &listed, &closure, changed, uncached, lines);
	if (ret)
		goto out;
	if (!*uncached)
		*uncached = uncached_why(&closure, &o->uc, listed);
	if (o->id && !strchr(o->id, '\n'))
		buf_addf(lines, "id %s\n", o->id);
	for (size_t i = 0; i < covers.nr; i++)
		if (!strchr(covers.v[i], '\n'))
			buf_addf(lines, "covers %s\n", covers.v[i]);
	ret = 0;
out:
	closure_release(&closure);
	strvec_release(&covers);
	return ret;
}

/* A fresh memo of the files, with the compiler memos (identities, search
 * lists) in the folder tools. */
static void memos_init(struct closure_cache *cc, const char *tools)
{
	closure_cache_init(cc);
	cc->tool_memo_dir = tools;
}

/* Compile into cache (NULL: it cannot be used), else into the private store
 * priv (set up by the caller when cache is NULL, else on need). */
static int compile_unit(struct compile_job *o, const struct cache *cache, struct cache *priv)
{
	char base[DIGEST_HEX_SIZE];
	struct closure_cache cc;
	struct buf output = BUF_INIT, lines = BUF_INIT;
	const struct cache *home = cache ? cache : priv;
	struct attempt a;
	struct cache_adoption ad = { .fd = -1 };
	struct buf *why;
	/* Compiler identities and search lists outlive this process: no 1 MB
	 * hash and no -v run per compile. */
	char *tools = path_join(home->dir, "tools"), *cannot = NULL, *changed = NULL;
	char *uncached = NULL;
	const char *final = NULL;
	double start = now_monotonic(), seconds;
	int ret = -1, failed, stored, renamed, listed = 0, again = 0;

	memos_init(&cc, tools);
	compile_family(o, &cc);
	/* The outputs go beside the entry, so that a rename publishes them. */
	attempt_init(&a, home, o);
compile:
	why = hold(o, home == cache);
	failed = run_steps(o, &a, &output, &final, &listed, why);
	hold(o, 0);
	if (failed) {
		/* A full cache disk fails the compile itself (the compiler cannot
		 * write its output): once more, privately, and only the private
		 * attempt's failure is shown. */
		free(cannot);
		cannot = home == cache && o->private_dir ? store_unusable(cache) : NULL;
		if (!cannot || go_private(o, priv, cannot)) {
			show_held(o);
			goto out;
		}
		home = priv;
		/* Its memos too: a cache that cannot take the unit cannot take them. */
		free(tools);
		cc.tool_memo_dir = tools = path_join(home->dir, "tools");
		attempt_restart(&a, home, o, &output);
		if (run_steps(o, &a, &output, &final, &listed, NULL))
			goto out;
	}
	failed = manifest_lines(o, &cc, &a, listed, base, &changed, &uncached, &lines);
	if (failed == 1 && !again++) {
		/* The edit has most likely landed by now: once more, from the files
		 * as they are, a fresh memo of them and a fresh start stamp. */
		warning("%s: '%s' changed while it compiled; compiling it again",
			o->label, changed);
		free(changed);
		changed = NULL;
		drop_held(o);
		buf_reset(&lines);
		closure_cache_release(&cc);
		memos_init(&cc, tools);
		attempt_restart(&a, home, o, &output);
		a.again = 1;
		goto compile;
	}
	if (failed == 1)
		error("%s: '%s' changed while it compiled; the result is not cached: "
		      "run make again", o->label, changed);
	if (failed)
		goto out;
	/* Kept privately: this run packs it, the next compiles it again. */
	if (home != cache || !o->private_dir) {
		free(uncached);
		uncached = NULL;
	}
	drop_held(o);
	why = hold(o, home == cache);
	stored = !uncached && !cache_unit_adopt_begin(home, o->key, final, o->label, lines.s, &ad, why);
	/* Renamed into the entry by finish, unless begin published a copy. */
	renamed = stored && ad.fd >= 0;
	seconds = now_monotonic() - start;
	if (home == cache && o->id)
		durations_record(cache->dir, o->id, seconds, why);
	if (home == cache)
		cachelog_event(cache->dir, "miss", o->key, seconds, 0);
	stored = stored && !cache_unit_adopt_finish(&ad);
	if (stored && renamed)
		a.published = final;
	/* Built from this root's files: the run's packs need not check it; a
	 * private one is this run's for the compile steps' packs (packnow.h). */
	if (stored && o->rs)
		made_mark(o->rs, o->key, ad.sha);
	hold(o, 0);
	if (!stored) {
		/* The cache took the compile but not its entry: keep the result
		 * privately, when the compiled file is still there. */
		free(cannot);
		cannot = uncached ? xstrdup(uncached) :
			 xstrfmt("it cannot store results: %s", buf_str(&o->held_errors));
		if (home != cache || !o->private_dir || access(final, F_OK) ||
		    store_fall_back(priv, o->private_dir, 0, cannot,
				    uncached ? warn_not_cached : warn_uncached_once, o)) {
			show_held(o);
			goto out;
		}
		if (cache_unit_store(priv, o->key, final, o->label, lines.s, NULL))
			goto out;
	} else if (strcmp(o->key, base)) {
		reads_point(home->dir, base, o->key);
	}
	print_warnings(o, &output);
	if (!o->state) {
		printf("kwarm: built %s (%.2f s)\n", o->label, now_monotonic() - start);
		fflush(stdout);
	}
	ret = 0;
out:
	cache_unit_adopt_abort(&ad);
	attempt_release(&a);
	closure_cache_release(&cc);
	buf_release(&output);
	buf_release(&lines);
	free(cannot);
	free(changed);
	free(uncached);
	free(tools);
	return ret;
}

/* --- the remote tier (remote.h) --- */

/* The run's report counts what this step asked of the remote (summary.json). */
static void remote_report(const struct compile_job *o, const struct remote *r)
{
	const struct remote_tally *t = &r->tally;
	struct event ev = { .kind = EVENT_REMOTE, .remote = {
		[EVENT_HITS] = t->hits, [EVENT_MISSES] = t->misses, [EVENT_ERRORS] = t->errors,
		[EVENT_UPLOADS] = t->uploads, [EVENT_BYTES_IN] = t->bytes_in,
		[EVENT_BYTES_OUT] = t->bytes_out,
	} };
	int lock;

	if (!o->rs || !(t->hits || t->misses || t->errors || t->uploads))
		return;
	lock = runstate_lock(o->rs);
	if (lock >= 0)
		events_append(o->rs->dir, &ev);
	runstate_unlock(lock);
}

/* An entry this step took from elsewhere, the remote or another process that
 * held the lock, once same_inputs found it read this run's files: for the
 * run's packs as good as one the step compiled (made.h). Shared entries
 * only: a private one is this process's own. */
static void took_in(struct compile_job *o, const char *sha)
{
	/* The table is sized by the run's total: fixed first (a wait-hit's
	 * step ran no compiler to do it meanwhile). */
	bookkeeping(o);
	if (o->rs)
		made_mark(o->rs, o->key, sha);
}

/* The unit is missing here: fetched from the remote when it has it, valid
 * for this machine's inputs (recorded reads included), else compiled. */
static int fetch_or_compile(struct compile_job *o, struct cache *cache, struct cache *priv,
			    int *cached)
{
	/* The remote's run markers go in the run's folder. */
	char *dir = o->remote && o->private_dir ? remote_marker_dir(o->private_dir) : NULL;
	char sha[DIGEST_HEX_SIZE];
	struct remote r;
	int ret, fetched;

	remote_init(&r, o->remote, dir);
	free(dir);
	fetched = remote_fetch(&r, cache, o->key, sha) == 1;
	if (fetched && same_inputs(o, 0)) {
		took_in(o, sha);
		*cached = 1;
		ret = 0;
	} else {
		/* Compiled where the files it read differ (system headers, say). */
		if (fetched)
			(void)cache_unit_remove(cache, o->key);
		ret = compile_unit(o, cache, priv);
		/* Uploads only what this process compiled into the cache. */
		if (!ret && !fetched)
			(void)remote_upload(&r, cache, o->key);
	}
	remote_report(o, &r);
	remote_release(&r);
	return ret;
}

/* --- end of the remote tier --- */

int compile_job_run(struct compile_job *o, int *cached)
{
	struct cache cache = { NULL }, priv = { NULL };
	struct buf lock_why = BUF_INIT;
	struct cache_use used;
	const char *bad;
	char *why = NULL, *mpath;
	int lock, ret, state;

	*cached = 0;
	state = store_open(&cache, o->cache, o->private_dir, 0, warn_uncached_once, o);
	if (state) {
		/* The cache cannot be set up: cache is the private store. */
		ret = state < 0 ? -1 : compile_unit(o, NULL, &cache);
		goto out;
	}
	lock = cache_lock_unit(&cache, o->key, 1, &lock_why);
	if (lock < 0) {
		why = xstrfmt("cannot lock '%s': %s", o->key, buf_str(&lock_why));
		ret = go_private(o, &priv, why) ? -1 : compile_unit(o, NULL, &priv);
		goto out;
	}
	/* Whoever held the lock before us may have published it: a hit after
	 * wait (a use of the entry, which it dates for prune). */
	state = cache_unit_get(&cache, o->key, NULL, &bad, &used);
	if (state == 1 && !same_inputs(o, 1)) {
		ret = -1;
	} else if (state == 1) {
		took_in(o, used.sha);
		cachelog_event(cache.dir, "wait-hit", o->key, 0, 0);
		*cached = 1;
		ret = 0;
	} else {
		/* A corrupt entry is a miss: compile it again, now. */
		if (state < 0) {
			mpath = cache_unit_path(&cache, o->key, CACHE_ENTRY_SUFFIX);
			warning("cache entry '%s' is corrupt: %s; compiling %s again", mpath, bad,
				o->label);
			free(mpath);
			if (!cache_unit_remove(&cache, o->key))
				cachelog_event(cache.dir, "corrupt", o->key, 0, 0);
		}
		ret = fetch_or_compile(o, &cache, &priv, cached);
	}
	cache_unlock(lock);
out:
	if (ret)
		annotate_failure(o, "");
	buf_release(&lock_why);
	free(why);
	cache_release(&cache);
	cache_release(&priv);
	return ret;
}

int compile_job_run_shown(struct compile_job *o, int *cached, int show_cached)
{
	double t0;
	int ret;

	if (!o->rs)
		return compile_job_run(o, cached);
	progress_unit_start(o->rs);
	o->bookkeeping_due = 1;
	/* A remote's entry is published before any compiler runs. */
	if (o->remote)
		bookkeeping(o);
	t0 = now_wall();
	ret = compile_job_run(o, cached);
	bookkeeping(o);	/* no compiler ran: a hit, or a failure before it */
	if (show_cached || !*cached) {
		struct progress_step step = {
			.label = o->label, .key = o->key, .owners = &o->owners, .t0 = t0,
			.status = ret ? "failed" : *cached ? "cached" : "built", .t1 = now_wall(),
			.github = o->github, .goals = o->goals, .cache_dir = o->cache,
		};

		progress_unit_done(o->rs, &step);
	}
	return ret;
}
