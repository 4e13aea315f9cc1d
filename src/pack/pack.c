#include "pack/pack.h"
#include "cache/cachelog.h"
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
static int remove_stamps(const char *stamp_path)
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
		ret = error_errno("cannot read '%s'", dir);
	else if (!d && mkdir_p(dir))
		ret = error_errno("cannot create '%s'", dir);
	while (d && (de = readdir(d))) {
		if (strlen(de->d_name) == DIGEST_HEX_SIZE - 1) {
			char *p = path_join(dir, de->d_name);

			if (unlink(p) && errno != ENOENT && (errno != EISDIR || rmdir(p)))
				ret = error_errno("cannot remove '%s'", p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return ret;
}

/* Open the private store in priv when it exists and is not open yet: once
 * before the units are read, and again after a compile that may have made
 * it. 0, or -1 after reporting. */
static int open_private(struct cache *priv, const char *private_dir)
{
	if (priv->dir || !private_dir || access(private_dir, F_OK))
		return 0;
	return cache_init(priv, private_dir);
}

/* The cache's entries a pack read that were there before its make run
 * began (runid_start()): the cache log's hits, logged at once. */
struct hits {
	double run_start;
	struct strvec keys;
};

/* Read a unit's verified bytes, from the cache or else the private store
 * (priv, when open). 1 when read, 2 when read from a cache entry made since
 * the run began (its artifact's digest to sha), 0 when neither holds it
 * valid. */
static int find_unit(const struct cache *cache, const struct cache *priv,
		     const struct packdesc_item *it, struct buf *bin, struct hits *hits,
		     char sha[DIGEST_HEX_SIZE])
{
	struct cache_use used;
	const char *why;

	buf_reset(bin);
	/* A unit compiled without the cache: the private store holds it. */
	if (priv->dir && cache_unit_check(cache, it->key, 0) == 0 &&
	    cache_unit_get(priv, it->key, bin, &why, NULL) == 1)
		return 1;
	buf_reset(bin);
	if (cache_unit_get(cache, it->key, bin, &why, &used) == 1) {
		if (used.mtime >= hits->run_start) {
			memcpy(sha, used.sha, DIGEST_HEX_SIZE);
			return 2;
		}
		strvec_push(&hits->keys, it->key);
		return 1;
	}
	buf_reset(bin);
	return 0;
}

/* Read a unit's verified bytes. A corrupt or missing entry is a miss: rc
 * compiles the unit again, now; without rc a corrupt entry is removed, so
 * that the next run's make sees it missing and compiles it again. */
static int read_unit(const struct cache *cache, struct cache *priv, const char *private_dir,
		     const char *what, const char *kind, const struct packdesc_item *it,
		     struct buf *bin, struct hits *hits, struct pack_recompile *rc)
{
	char sha[DIGEST_HEX_SIZE];
	int got = find_unit(cache, priv, it, bin, hits, sha);

	/* Made during the run: by this run's compile step, or by another
	 * process (make found it). */
	if (got == 2 && rc && rc->check(rc, it->key, sha))
		return error("cannot pack %s: %s '%s' in the cache is not what this run would "
			     "compile", what, kind, it->label);
	if (got)
		return 0;
	if (rc) {
		if (rc->compile(rc, it->key))
			return error("cannot pack %s: %s '%s' did not compile", what, kind,
				     it->label);
		if (open_private(priv, private_dir))
			return -1;
		if (find_unit(cache, priv, it, bin, hits, sha))
			return 0;
		return error("cannot pack %s: %s '%s' is not in the cache after its compile",
			     what, kind, it->label);
	}
	if (cache_unit_check(cache, it->key, 1) < 0 && !cache_unit_remove(cache, it->key)) {
		cachelog_event(cache->dir, "corrupt", it->key, 0, 0);
		return error("cannot pack %s: %s '%s' was corrupt in the cache and is removed; "
			     "run make again to rebuild it", what, kind, it->label);
	}
	/* Gone since make found it: removed by hand, or by a prune that came in
	 * before this run's first step claimed its entries (runstate.h). */
	return error("cannot pack %s: %s '%s' is no longer in the cache (removed after make "
		     "checked it); run make again to rebuild it", what, kind, it->label);
}

int pack_run(const struct cache *cache, const char *private_dir, const char *ckey,
	     const struct planfile_ref *desc, const char *out_path, const char *stamp_path,
	     struct pack_recompile *rc)
{
	struct cache priv = { NULL };
	struct hits hits = { .run_start = runid_start() };
	char *text = NULL, *out_dir = NULL;
	char hex[DIGEST_HEX_SIZE];
	struct packdesc d;
	struct layout_callable lc;
	struct layout_child *children = NULL;
	struct buf image = BUF_INIT, *bins = NULL;	/* the orchestration's, then each child's */
	int ret = -1;

	memset(&d, 0, sizeof(d));
	strvec_init(&hits.keys);
	if (planfile_read(desc->file, desc->offset, desc->len, "callable descriptions", &text))
		goto out;
	digest_bytes_hex(text, desc->len, hex);
	if (strcmp(hex, ckey) || packdesc_parse(text, &d)) {
		error("the description of callable %.12s in '%s' does not match it; run make "
		      "again", ckey, desc->file);
		goto out;
	}
	bins = xcalloc(d.nr_children + 1, sizeof(*bins));
	if (open_private(&priv, private_dir))
		goto out;
	if (read_unit(cache, &priv, private_dir, d.what, "orchestration", &d.orch, &bins[0],
		      &hits, rc))
		goto out;
	children = xcalloc(d.nr_children, sizeof(*children));
	for (size_t i = 0; i < d.nr_children; i++) {
		const struct packdesc_item *it = &d.children[i];

		if (read_unit(cache, &priv, private_dir, d.what, "incore", it, &bins[i + 1],
			      &hits, rc))
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
	if (layout_build(&lc, &image))
		goto out;

	out_dir = path_dirname(out_path);
	if (mkdir_p(out_dir)) {
		error_errno("cannot create '%s'", out_dir);
		goto out;
	}
	/* Old stamps go first: a crash before the new stamp only costs a repack.
	 * An empty folder in the output's place goes (one that holds files is
	 * reported by the publish). */
	(void)rmdir(out_path);
	if (remove_stamps(stamp_path) || publish_bytes_gently(out_path, image.s, image.len, NULL))
		goto out;
	/* Made after the callable is durable, so the stamp needs no fsync of its
	 * own: empty, it is whole once it exists, and one a crash loses only
	 * costs a repack. */
	if (write_file(stamp_path, "", 0)) {
		error_errno("cannot create '%s'", stamp_path);
		goto out;
	}
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
	free(out_dir);
	free(text);
	cache_release(&priv);
	cachelog_events(cache->dir, "hit", &hits.keys);
	strvec_release(&hits.keys);
	return ret;
}
