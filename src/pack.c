#include "pack.h"
#include "cachelog.h"
#include "runid.h"
#include "layout.h"
#include "path.h"
#include "plan.h"
#include "spec.h"
#include "publish.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PACK_MAGIC "kwarm-pack 1"
#define PACK_LAYOUT "layout 1"

static void add_sig(struct buf *b, const int *sig, int n)
{
	if (!n)
		buf_addch(b, '-');
	for (int i = 0; i < n; i++)
		buf_addf(b, "%s%d", i ? "," : "", sig[i]);
}

void pack_desc_build(struct plan_callable *pc)
{
	const struct spec_callable *sc = pc->spec;
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s\n%s\nwhat %s\nruntime %s\nfunc_name %s\nconfig_name %s\nsig ",
		 PACK_MAGIC, PACK_LAYOUT, pc->what, pc->cls->runtime, sc->function_name,
		 sc->config_name);
	add_sig(&b, sc->sig, sc->sig_count);
	buf_addf(&b, "\norch %s %s\n", pc->orchestration->key, sc->source);
	for (size_t i = 0; i < sc->nr_incores; i++) {
		const struct spec_incore *in = &sc->incores[i];

		buf_addf(&b, "child %d %s ", (int)in->func_id, pc->children[i]->key);
		add_sig(&b, in->sig, in->sig_count);
		buf_addf(&b, " %s\n", in->name);
	}
	digest_bytes_hex(b.s, b.len, pc->ckey);
	pc->desc = buf_detach(&b);
}

struct pack_item {
	char key[DIGEST_HEX_SIZE];
	char *label;
	int32_t func_id;
	int sig[SPEC_CHIP_SIG_MAX];
	int sig_count;
	struct buf bin;
};

struct pack_job {
	char *what, *func_name, *config_name;
	int sig[SPEC_CHIP_SIG_MAX];
	int sig_count;
	struct pack_item orch;
	struct pack_item *children;
	size_t nr_children, alloc_children;
};

static void pack_job_release(struct pack_job *job)
{
	free(job->what);
	free(job->func_name);
	free(job->config_name);
	free(job->orch.label);
	buf_release(&job->orch.bin);
	for (size_t i = 0; i < job->nr_children; i++) {
		free(job->children[i].label);
		buf_release(&job->children[i].bin);
	}
	free(job->children);
}

/* "1,2,3" or "-" into sig; 0 or -1. */
static int parse_sig(const char *s, size_t len, int *sig, int *count, int max)
{
	*count = 0;
	if (len == 1 && s[0] == '-')
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == ',')
			continue;
		if (s[i] < '0' || s[i] > '3' || *count >= max)
			return -1;
		sig[(*count)++] = s[i] - '0';
	}
	return 0;
}

/* "<key> <label>" into item (the key, then the rest of the line). */
static int parse_keyed(const char *s, struct pack_item *item)
{
	if (strlen(s) < 66 || s[64] != ' ')
		return -1;
	memcpy(item->key, s, 64);
	item->key[64] = '\0';
	item->label = xstrdup(s + 65);
	return 0;
}

static int parse_desc(char *text, struct pack_job *job)
{
	char *line = text, *next;
	int lineno = 0;

	for (; *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			return -1;
		*next++ = '\0';
		lineno++;
		if (lineno == 1 && strcmp(line, PACK_MAGIC))
			return -1;
		if (lineno == 2 && strcmp(line, PACK_LAYOUT))
			return -1;
		if (lineno <= 2)
			continue;
		if (starts_with(line, "what "))
			job->what = xstrdup(line + 5);
		else if (starts_with(line, "runtime "))
			;	/* part of the key only */
		else if (starts_with(line, "func_name "))
			job->func_name = xstrdup(line + 10);
		else if (starts_with(line, "config_name "))
			job->config_name = xstrdup(line + 12);
		else if (starts_with(line, "sig ")) {
			if (parse_sig(line + 4, strlen(line + 4), job->sig, &job->sig_count,
				      SPEC_CHIP_SIG_MAX))
				return -1;
		} else if (starts_with(line, "orch ")) {
			if (parse_keyed(line + 5, &job->orch))
				return -1;
		} else if (starts_with(line, "child ")) {
			struct pack_item *it;
			char *end, *sp;
			long id;

			ALLOC_GROW(job->children, job->nr_children + 1, job->alloc_children);
			it = &job->children[job->nr_children++];
			memset(it, 0, sizeof(*it));
			errno = 0;
			id = strtol(line + 6, &end, 10);
			if (errno || *end != ' ' || id < INT32_MIN || id > INT32_MAX)
				return -1;
			it->func_id = (int32_t)id;
			if (strlen(end + 1) < 66 || end[65] != ' ')
				return -1;
			memcpy(it->key, end + 1, 64);
			it->key[64] = '\0';
			sp = strchr(end + 66, ' ');
			if (!sp || parse_sig(end + 66, (size_t)(sp - (end + 66)), it->sig,
					     &it->sig_count, SPEC_CORE_SIG_MAX))
				return -1;
			it->label = xstrdup(sp + 1);
		} else {
			return -1;
		}
	}
	return job->what && job->func_name && job->config_name && job->orch.label ? 0 : -1;
}

/* Remove the stamps of other keys of this output: OUT holds only one. */
static int remove_stamps(const char *stamp_path)
{
	char *dir = path_dirname(stamp_path);
	const char *base = strrchr(stamp_path, '/') + 1;
	size_t prefix = strlen(base) - 64;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (mkdir_p(dir)) {
		ret = error_errno("cannot create '%s'", dir);
		goto out;
	}
	d = opendir(dir);
	if (!d) {
		ret = error_errno("cannot read '%s'", dir);
		goto out;
	}
	while ((de = readdir(d))) {
		if (strlen(de->d_name) == prefix + 64 && !strncmp(de->d_name, base, prefix)) {
			char *p = path_join(dir, de->d_name);

			if (unlink(p) && errno != ENOENT)
				ret = error_errno("cannot remove '%s'", p);
			free(p);
		}
	}
	closedir(d);
out:
	free(dir);
	return ret;
}

static void layout_item(const struct pack_item *it, const void **bin, uint64_t *size)
{
	*bin = it->bin.s ? it->bin.s : "";
	*size = it->bin.len;
}

/* Read a unit's verified bytes, from the cache or else the private store
 * (opened in priv, when it exists, on first need). 1 when read, 0 when neither
 * holds it valid, -1 after reporting. */
static int find_unit(const struct cache *cache, struct cache *priv, const char *private_dir,
		     struct pack_item *it, double run_start)
{
	const char *why;

	buf_reset(&it->bin);
	if (!priv->dir && private_dir && access(private_dir, F_OK) == 0 &&
	    cache_init(priv, private_dir))
		return -1;
	/* A unit compiled without the cache: the private store holds it. */
	if (priv->dir && cache_unit_check(cache, it->key, 0) == 0 &&
	    cache_unit_get(priv, it->key, &it->bin, &why) == 1)
		return 1;
	buf_reset(&it->bin);
	if (cache_unit_get(cache, it->key, &it->bin, &why) == 1) {
		cachelog_note_use(cache->dir, it->key, run_start);
		return 1;
	}
	buf_reset(&it->bin);
	return 0;
}

/* Read a unit's verified bytes. A corrupt or missing entry is a miss: rc
 * compiles the unit again, now; without rc a corrupt entry is removed, so
 * that the next run's make sees it missing and compiles it again. */
static int read_unit(const struct cache *cache, struct cache *priv, const char *private_dir,
		     const char *what, const char *kind, struct pack_item *it, double run_start,
		     struct pack_recompile *rc)
{
	int found = find_unit(cache, priv, private_dir, it, run_start);

	if (found)
		return found < 0 ? -1 : 0;
	if (rc) {
		if (rc->compile(rc, it->key))
			return error("cannot pack %s: %s '%s' did not compile", what, kind,
				     it->label);
		found = find_unit(cache, priv, private_dir, it, run_start);
		if (found)
			return found < 0 ? -1 : 0;
		return error("cannot pack %s: %s '%s' is not in the cache after its compile",
			     what, kind, it->label);
	}
	if (cache_unit_check(cache, it->key, 1) < 0 && !cache_unit_remove(cache, it->key)) {
		cachelog_event(cache->dir, "corrupt", it->key, 0);
		return error("cannot pack %s: %s '%s' was corrupt in the cache and is removed; "
			     "run make again to rebuild it", what, kind, it->label);
	}
	/* Gone since make found it: removed by hand, or by a prune that came in
	 * before this run's first step claimed its entries (runstate.h). */
	return error("cannot pack %s: %s '%s' is no longer in the cache (removed after make "
		     "checked it); run make again to rebuild it", what, kind, it->label);
}

/* Read len bytes at offset of path into a NUL-terminated buffer. */
static int read_desc(const char *path, uint64_t offset, uint64_t len, char **text)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd < 0)
		return error_errno("cannot read callable descriptions '%s'", path);
	*text = xmalloc(len + 1);
	if (len < SIZE_MAX)
		n = pread(fd, *text, len, (off_t)offset);
	close(fd);
	if (n < 0 || (uint64_t)n != len)
		return error("callable descriptions '%s' are shorter than the Makefile says; "
			     "run make again", path);
	(*text)[len] = '\0';
	return 0;
}

int pack_run(const struct cache *cache, const char *private_dir, const char *ckey,
	     const struct pack_desc_ref *desc, const char *out_path, const char *stamp_path,
	     struct pack_recompile *rc)
{
	struct cache priv = { NULL };
	double run_start = runid_start();
	char *text = NULL, *out_dir = NULL;
	char hex[DIGEST_HEX_SIZE];
	struct pack_job job;
	struct layout_callable lc;
	struct layout_child *children = NULL;
	struct buf image = BUF_INIT;
	int ret = -1;

	memset(&job, 0, sizeof(job));
	if (read_desc(desc->file, desc->offset, desc->len, &text))
		goto out;
	digest_bytes_hex(text, desc->len, hex);
	if (strcmp(hex, ckey) || parse_desc(text, &job)) {
		error("the description of callable %.12s in '%s' does not match it; run make "
		      "again", ckey, desc->file);
		goto out;
	}
	if (read_unit(cache, &priv, private_dir, job.what, "orchestration", &job.orch, run_start,
		      rc))
		goto out;
	children = xcalloc(job.nr_children, sizeof(*children));
	for (size_t i = 0; i < job.nr_children; i++) {
		struct pack_item *it = &job.children[i];

		if (read_unit(cache, &priv, private_dir, job.what, "incore", it, run_start, rc))
			goto out;
		children[i].func_id = it->func_id;
		children[i].sig = it->sig;
		children[i].sig_count = it->sig_count;
		children[i].name = it->label;
		layout_item(it, &children[i].bin, &children[i].size);
	}
	memset(&lc, 0, sizeof(lc));
	lc.what = job.what;
	lc.sig = job.sig;
	lc.sig_count = job.sig_count;
	lc.func_name = job.func_name;
	lc.config_name = job.config_name;
	layout_item(&job.orch, &lc.orch_bin, &lc.orch_size);
	lc.children = children;
	lc.nr_children = job.nr_children;
	if (layout_build(&lc, &image))
		goto out;

	out_dir = path_dirname(out_path);
	if (mkdir_p(out_dir)) {
		error_errno("cannot create '%s'", out_dir);
		goto out;
	}
	/* Old stamps go first: a crash before the new stamp only costs a repack. */
	if (remove_stamps(stamp_path) || publish_bytes(out_path, image.s, image.len) ||
	    publish_bytes(stamp_path, "", 0))
		goto out;
	printf("kwarm: packed %s: %s (%zu incores, %zu bytes)\n", job.what, out_path,
	       job.nr_children, image.len);
	fflush(stdout);
	ret = 0;
out:
	buf_release(&image);
	free(children);
	pack_job_release(&job);
	free(out_dir);
	free(text);
	cache_release(&priv);
	return ret;
}
