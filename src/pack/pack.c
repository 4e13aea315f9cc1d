#include "pack/pack.h"
#include "cache/cachelog.h"
#include "report/made.h"
#include "report/runid.h"
#include "pack/layout.h"
#include "plan/packdesc.h"
#include "plan/planfile.h"
#include "path.h"
#include "strvec.h"
#include "publish.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One pack: where its units are, what to do with a bad one, where errors go. */
struct packer {
	const struct cache *cache;
	struct cache priv;		/* the private store, once open */
	const char *private_dir;
	const char *what;		/* the callable, for messages */
	struct pack_recompile *rc;	/* or NULL */
	int gently;			/* give up quietly where it would report */
	struct buf *why;		/* errors (error_to): NULL, or dropped gently */
	struct hits {
		/* The cache's entries read that were there before the make run
		 * began (runid_start()): the cache log's hits. */
		double run_start;
		struct strvec keys;
	} hits;
};

/* Remove the file in the place of dir or of a folder above it up to
 * OUT/.kwarm (kwarm makes only folders there: a hand or a crash left it), so
 * that mkdir_p can make dir. OUT itself is a folder: pack_run made it. */
static void remove_file_in_way(const char *dir, const char *stamp_path)
{
	ssize_t out_len = planfile_stamp_out_len(stamp_path);
	char *p = xstrdup(dir), *slash;
	struct stat st;

	while (out_len >= 0 && lstat(p, &st) && (slash = strrchr(p, '/')) && slash > p + out_len)
		*slash = '\0';
	if (out_len >= 0 && !lstat(p, &st) && !S_ISDIR(st.st_mode))
		(void)unlink(p);
	free(p);
}

/* Remove the stamps of this output, of any key: OUT holds only one. They are
 * the keys in the stamp's folder, which holds this output's only (plan.h), so
 * listing it costs the same at any number of classes. An empty folder in a
 * stamp's place goes too. */
static int remove_stamps(const char *stamp_path, struct buf *why)
{
	char *dir = path_dirname(stamp_path);
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d && errno == ENOTDIR) {
		remove_file_in_way(dir, stamp_path);
		errno = ENOENT;
	}
	/* No folder yet: the output's first pack, nothing to remove. */
	if (!d && errno != ENOENT)
		ret = error_errno_to(why, "cannot read '%s'", dir);
	else if (!d && mkdir_p(dir))
		ret = error_errno_to(why, "cannot create '%s'", dir);
	while (d && (de = readdir(d))) {
		if (strlen(de->d_name) == DIGEST_HEX_SIZE - 1) {
			char *p = path_join(dir, de->d_name);

			if (unlink(p) && errno != ENOENT && (errno != EISDIR || rmdir(p)))
				ret = error_errno_to(why, "cannot remove '%s'", p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return ret;
}

/* Open the private store when it exists and is not open yet: once before the
 * units are read, and again after a compile that may have made it. 0, or -1
 * after reporting. */
static int open_private(struct packer *p)
{
	char *bad;

	if (p->priv.dir || !p->private_dir || access(p->private_dir, F_OK))
		return 0;
	if (!cache_try_init(&p->priv, p->private_dir, &bad))
		return 0;
	error_to(p->why, "cache folder unusable: %s", bad);
	free(bad);
	return -1;
}

/* Read a unit's verified bytes, from the cache or else the private store
 * (when open). 1 when read, 2 when read from a cache entry made since the run
 * began (its artifact's digest to sha), 0 when neither holds it valid. */
static int find_unit(struct packer *p, const struct packdesc_item *it, struct buf *bin,
		     char sha[DIGEST_HEX_SIZE])
{
	struct cache_use used;
	const char *why;

	buf_reset(bin);
	/* A unit compiled without the cache: the private store holds it. */
	if (p->priv.dir && cache_unit_check(p->cache, it->key, 0) == 0 &&
	    cache_unit_get(&p->priv, it->key, bin, &why, NULL) == 1)
		return 1;
	buf_reset(bin);
	if (cache_unit_get(p->cache, it->key, bin, &why, &used) == 1) {
		if (used.mtime >= p->hits.run_start) {
			memcpy(sha, used.sha, DIGEST_HEX_SIZE);
			return 2;
		}
		strvec_push(&p->hits.keys, it->key);
		return 1;
	}
	buf_reset(bin);
	return 0;
}

/* Read a unit's verified bytes. A corrupt or missing entry is a miss: rc
 * compiles the unit again, now; without its compile a corrupt entry is
 * removed, so that the next run's make sees it missing and compiles it
 * again; gently, it is left for the pack step to do either. */
static int read_unit(struct packer *p, const char *kind, const struct packdesc_item *it,
		     struct buf *bin)
{
	struct pack_recompile *rc = p->rc;
	char sha[DIGEST_HEX_SIZE];
	int got = find_unit(p, it, bin, sha);

	/* Made during the run: by this run's compile step, or by another
	 * process (make found it). */
	if (got == 2 && rc && rc->check(rc, it->key, sha))
		return error_to(p->why, "cannot pack %s: %s '%s' in the cache is not what this "
				"run would compile", p->what, kind, it->label);
	if (got)
		return 0;
	if (p->gently)
		return -1;
	if (rc && rc->compile) {
		if (rc->compile(rc, it->key))
			return error("cannot pack %s: %s '%s' did not compile", p->what, kind,
				     it->label);
		if (open_private(p))
			return -1;
		if (find_unit(p, it, bin, sha))
			return 0;
		return error("cannot pack %s: %s '%s' is not in the cache after its compile",
			     p->what, kind, it->label);
	}
	if (cache_unit_check(p->cache, it->key, 1) < 0 && !cache_unit_remove(p->cache, it->key)) {
		cachelog_event(p->cache->dir, "corrupt", it->key, 0, 0);
		return error("cannot pack %s: %s '%s' was corrupt in the cache and is removed; "
			     "run make again to rebuild it", p->what, kind, it->label);
	}
	/* Gone since make found it: removed by hand, or by a prune that came in
	 * before this run's first step claimed its entries (runstate.h). */
	return error("cannot pack %s: %s '%s' is no longer in the cache (removed after make "
		     "checked it); run make again to rebuild it", p->what, kind, it->label);
}

/* Publish image as out_path, then its stamp (old stamps first). */
static int publish(struct packer *p, const struct buf *image, const char *out_path,
		   const char *stamp_path)
{
	char *out_dir = path_dirname(out_path), run[RUNID_TAG_SIZE + 1];
	int ret = -1;

	if (mkdir_p(out_dir)) {
		error_errno_to(p->why, "cannot create '%s'", out_dir);
		goto out;
	}
	/* Old stamps go first: a crash before the new stamp only costs a repack.
	 * An empty folder in the output's place goes (one that holds files is
	 * reported by the publish). */
	(void)rmdir(out_path);
	if (remove_stamps(stamp_path, p->why) ||
	    publish_bytes_gently(out_path, image->s, image->len, p->why))
		goto out;
	/* Made after the callable is durable, so the stamp needs no fsync of its
	 * own: one a crash loses only costs a repack. It holds the make run's
	 * tag, which tells make that this run packed it (KW_PACKED_HERE in the
	 * Makefile); a tag a crash cut short is no run's. Without room for the
	 * tag it is empty: make then runs the pack recipe, which finds the
	 * callable current. */
	runid_tag(run, sizeof(run));
	strcat(run, "\n");
	if (write_file(stamp_path, run, strlen(run)) && write_file(stamp_path, "", 0)) {
		error_errno_to(p->why, "cannot create '%s'", stamp_path);
		goto out;
	}
	ret = 0;
out:
	free(out_dir);
	return ret;
}

static int pack(struct packer *p, const char *ckey, const struct planfile_ref *desc,
		const char *out_path, const char *stamp_path)
{
	char *text = NULL;
	char hex[DIGEST_HEX_SIZE];
	struct packdesc d;
	struct layout_callable lc;
	struct layout_child *children = NULL;
	struct buf image = BUF_INIT, *bins = NULL;	/* the orchestration's, then each child's */
	int ret = -1;

	memset(&d, 0, sizeof(d));
	if (planfile_read(desc->file, desc->offset, desc->len, "callable descriptions", &text,
			  p->why))
		goto out;
	digest_bytes_hex(text, desc->len, hex);
	if (strcmp(hex, ckey) || packdesc_parse(text, &d)) {
		error_to(p->why, "the description of callable %.12s in '%s' does not match it; "
			 "run make again", ckey, desc->file);
		goto out;
	}
	p->what = d.what;
	bins = xcalloc(d.nr_children + 1, sizeof(*bins));
	if (open_private(p) || read_unit(p, "orchestration", &d.orch, &bins[0]))
		goto out;
	children = xcalloc(d.nr_children, sizeof(*children));
	for (size_t i = 0; i < d.nr_children; i++) {
		const struct packdesc_item *it = &d.children[i];

		if (read_unit(p, "incore", it, &bins[i + 1]))
			goto out;
		children[i] = (struct layout_child){
			.func_id = it->func_id, .sig = it->sig, .sig_count = it->sig_count,
			.name = it->label, .bin = buf_str(&bins[i + 1]), .size = bins[i + 1].len,
		};
	}
	lc = (struct layout_callable){ .what = d.what, .sig = d.sig, .sig_count = d.sig_count,
				       .func_name = d.func_name, .config_name = d.config_name,
				       .orch_bin = buf_str(&bins[0]), .orch_size = bins[0].len,
				       .children = children, .nr_children = d.nr_children };
	if (layout_build(&lc, &image, p->why) || publish(p, &image, out_path, stamp_path))
		goto out;
	printf("kwarm: packed %s: %s (%zu incores, %zu bytes)\n", d.what, out_path,
	       d.nr_children, image.len);
	fflush(stdout);
	ret = 0;
out:
	for (size_t i = 0; bins && i <= d.nr_children; i++)
		buf_release(&bins[i]);
	free(bins);
	buf_release(&image);
	free(children);
	packdesc_release(&d);
	free(text);
	return ret;
}

static int run(const struct cache *cache, const char *private_dir, const char *ckey,
	       const struct planfile_ref *desc, const char *out_path, const char *stamp_path,
	       struct pack_recompile *rc, int gently)
{
	struct buf dropped = BUF_INIT;
	struct packer p = { .cache = cache, .private_dir = private_dir, .rc = rc,
			    .gently = gently, .why = gently ? &dropped : NULL,
			    .hits.run_start = runid_start() };
	int ret;

	strvec_init(&p.hits.keys);
	ret = pack(&p, ckey, desc, out_path, stamp_path);
	/* A pack that gave up leaves its hits to the one that will not. */
	if (!ret || !gently)
		cachelog_events(cache->dir, "hit", &p.hits.keys);
	strvec_release(&p.hits.keys);
	cache_release(&p.priv);
	buf_release(&dropped);
	return ret;
}

int pack_run(const struct cache *cache, const char *private_dir, const char *ckey,
	     const struct planfile_ref *desc, const char *out_path, const char *stamp_path,
	     struct pack_recompile *rc)
{
	return run(cache, private_dir, ckey, desc, out_path, stamp_path, rc, 0);
}

int pack_run_gently(const struct cache *cache, const char *private_dir, const char *ckey,
		    const struct planfile_ref *desc, const char *out_path,
		    const char *stamp_path, struct pack_recompile *rc)
{
	return run(cache, private_dir, ckey, desc, out_path, stamp_path, rc, 1);
}

/* The time of unit key's entry: the cache's, else the private store's
 * (private_dir may be NULL), which counts only when made says this run made
 * it (made NULL: any); 0, or -1 when none counts. A private entry is compiled
 * again by every run: the one a past run left is not this run's unit. The
 * store is looked at before the table, which a run whose store is empty then
 * never opens. */
static int entry_time(struct buf *path, const char *cache_dir, const char *private_dir,
		      struct made_table *made, const char *key, struct timespec *t)
{
	struct stat st;

	buf_reset(path);
	cache_add_unit_path(path, cache_dir, key, CACHE_ENTRY_SUFFIX);
	if (stat(path->s, &st)) {
		if (!private_dir)
			return -1;
		buf_reset(path);
		cache_add_unit_path(path, private_dir, key, CACHE_ENTRY_SUFFIX);
		if (stat(path->s, &st) || (made && !made_has(made, key, NULL)))
			return -1;
	}
	*t = st.st_mtim;
	return 0;
}

/* Whether each unit of d has its entry (entry_time), no later than *latest
 * when given. Last units first: in a warm-up those are the likeliest still
 * to come. */
static int units_there(const char *cache_dir, const char *private_dir,
		       struct made_table *made, const struct packdesc *d,
		       const char *known, const struct timespec *latest)
{
	struct buf path = BUF_INIT;
	struct timespec t;
	size_t i = d->nr_children + 1;
	int there = 1;

	while (there && i--) {
		const char *key = i ? d->children[i - 1].key : d->orch.key;

		if (latest || !known || strcmp(key, known))
			there = !entry_time(&path, cache_dir, private_dir, made, key, &t) &&
				(!latest || t.tv_sec < latest->tv_sec ||
				 (t.tv_sec == latest->tv_sec && t.tv_nsec <= latest->tv_nsec));
	}
	buf_release(&path);
	return there;
}

int pack_unit_there(const char *cache_dir, const char *private_dir,
		    struct made_table *made, const char *key)
{
	struct buf path = BUF_INIT;
	struct timespec t;
	int there = !entry_time(&path, cache_dir, private_dir, made, key, &t);

	buf_release(&path);
	return there;
}

int pack_units_there(const char *cache_dir, const char *private_dir,
		     struct made_table *made, const struct packdesc *d, const char *known)
{
	return units_there(cache_dir, private_dir, made, d, known, NULL);
}

int pack_current(const char *cache_dir, const char *private_dir, const struct packdesc *d,
		 const char *out_path, const char *stamp_path)
{
	struct stat st, out;

	return !stat(stamp_path, &st) && !stat(out_path, &out) && !S_ISDIR(out.st_mode) &&
	       units_there(cache_dir, private_dir, NULL, d, NULL, &st.st_mtim);
}
