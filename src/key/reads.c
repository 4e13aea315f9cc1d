#include "key/reads.h"
#include "buf.h"
#include "cache/cache.h"
#include "cache/cacheentry.h"
#include "path.h"
#include "publish.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define READS_MAGIC "kwarm-reads 1\n"

/* Fanned out as the entries are (cacheentry.h). */
static char *pointer_path(const char *cache_dir, const char *base)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, cache_dir);
	buf_adds(&b, "/reads/");
	cache_add_unit_name(&b, base);
	return buf_detach(&b);
}

/* What is at abs now, in the form of a recorded line's first field: for a
 * file read (read), its digest, or "" when it cannot be read; for a place,
 * READS_ABSENT, READS_FOLDER or READS_FILE, padded. */
static void state_now(struct closure_cache *cc, const char *abs, int read,
		      char hex[DIGEST_HEX_SIZE])
{
	const char *word;
	int what;

	if (read) {
		if (filehash_get(&cc->files, abs, hex))
			hex[0] = '\0';
		return;
	}
	what = closure_probe(cc, abs);
	word = what == CLOSURE_DIR ? READS_FOLDER : what == CLOSURE_FILE ? READS_FILE
									   : READS_ABSENT;
	memset(hex, ' ', DIGEST_HEX_SIZE - 1);
	memcpy(hex, word, strlen(word));
	hex[DIGEST_HEX_SIZE - 1] = '\0';
}

/* Is a recorded line about a place looked at rather than a file read? Its
 * first field is a padded word, not 64 digits. */
static int is_place(const char *line)
{
	return strcspn(line, " ") < 64;
}

int reads_match(struct closure_cache *cc, const char *root, const struct strvec *reads,
		struct buf *why)
{
	for (size_t i = 0; i < reads->nr; i++) {
		const char *line = reads->v[i], *path = line + 65;
		/* Most are system headers' places, named absolutely: no copy. */
		char *joined = path[0] == '/' ? NULL : path_join(root, path), hex[DIGEST_HEX_SIZE];
		int same;

		state_now(cc, joined ? joined : path, !is_place(line), hex);
		same = hex[0] && !strncmp(hex, line, 64);

		free(joined);
		if (!same) {
			if (why)
				buf_addf(why, "'%s' changed: %.12s -> %.12s", path, line,
					 hex[0] ? hex : "missing");
			return 0;
		}
	}
	return 1;
}


/* Every name under the cache's units/<k0>/ folders into cc->entries, whatever
 * it is: a name listed is never called absent. */
static void add_entry(const char *name, void *entries)
{
	hashmap_put(entries, name, (void *)1);
}

static void list_entries(struct closure_cache *cc, const char *cache_dir)
{
	cc->entries_listed = cache_for_each_unit_name(cache_dir, add_entry, &cc->entries) ? -1 : 1;
}

/* In gen's snapshot one listing of the cache's entries tells an entry never
 * built, instead of an open per unit that fails; listed only after a first
 * miss, so that a gen whose every entry exists lists nothing. */
static int listed_absent(struct closure_cache *cc, const char *cache_dir, const char *key)
{
	struct buf name = BUF_INIT;
	int absent;

	if (!cc->snapshot || !cc->entry_missed)
		return 0;
	if (!cc->entries_listed)
		list_entries(cc, cache_dir);
	if (cc->entries_listed < 0)
		return 0;
	cache_add_unit_name(&name, key);
	buf_adds(&name, CACHE_ENTRY_SUFFIX);
	absent = !hashmap_get(&cc->entries, name.s);
	buf_release(&name);
	return absent;
}

/* Does entry key exist with reads that match now? 1 yes, 0 no such entry (or
 * a torn one: chosen, the step finds it corrupt and builds it again, with one
 * warning), -1 it exists and does not match; its reads go to reads. */
static int try_entry(struct closure_cache *cc, const char *cache_dir, const char *root,
		     const char *key, struct strvec *reads)
{
	struct buf text = BUF_INIT;
	char deps[16];
	int got = listed_absent(cc, cache_dir, key) ? 0 : cache_unit_manifest(cache_dir, key, &text);

	if (got < 0)
		got = 0;

	cc->entry_missed |= !got;

	if (got == 1) {
		cache_manifest_reads(text.s, reads, deps);
		got = reads_match(cc, root, reads, NULL) ? 1 : -1;
	}
	buf_release(&text);
	return got;
}

int reads_entry_matches(struct closure_cache *cc, const char *cache_dir, const char *root,
			const char *key)
{
	struct strvec reads;
	int got;

	strvec_init(&reads);
	got = try_entry(cc, cache_dir, root, key, &reads);
	strvec_release(&reads);
	return got == 1;
}

static void read_pointer(const char *cache_dir, const char *base, char key[DIGEST_HEX_SIZE])
{
	char *path = pointer_path(cache_dir, base), *text = NULL;
	size_t len;

	key[0] = '\0';
	if (!read_file_all(path, &text, &len) && len == strlen(READS_MAGIC) + 65 &&
	    starts_with(text, READS_MAGIC) && text[len - 1] == '\n' &&
	    strspn(text + strlen(READS_MAGIC), "0123456789abcdef") == 64) {
		memcpy(key, text + strlen(READS_MAGIC), 64);
		key[64] = '\0';
	}
	free(text);
	free(path);
}

int reads_pick_key(struct closure_cache *cc, const char *cache_dir, const char *root,
		   const char *base, char key[DIGEST_HEX_SIZE], struct strvec *inputs,
		   struct strvec *appear)
{
	struct strvec last = STRVEC_INIT, reads = STRVEC_INIT, *from = &last;
	char pointed[DIGEST_HEX_SIZE], name[DIGEST_HEX_SIZE];
	const char *chosen = base;
	int got, ret = 0;

	/* Built under its base and still good, or never built. */
	got = try_entry(cc, cache_dir, root, base, &last);
	if (got >= 0)
		goto chosen;
	read_pointer(cache_dir, base, pointed);
	if (pointed[0] && strcmp(pointed, base)) {
		got = try_entry(cc, cache_dir, root, pointed, &reads);
		if (got == 1) {
			chosen = pointed;
			from = &reads;
			goto chosen;
		}
		if (got < 0 && reads.nr) {
			strvec_release(&last);
			last = reads;
			strvec_init(&reads);
		}
	}
	/* A fresh name over the files last recorded, as they are now. */
	for (unsigned attempt = 0; attempt < 16; attempt++) {
		struct digest d;

		digest_init(&d);
		digest_add_str(&d, "schema", "kwarm-reads-key-1");
		digest_add_str(&d, "base", base);
		digest_add_u64(&d, "attempt", attempt);
		for (size_t i = 0; i < last.nr; i++) {
			char *abs = path_join(root, last.v[i] + 65), hex[DIGEST_HEX_SIZE];

			state_now(cc, abs, !is_place(last.v[i]), hex);
			if (!hex[0])
				snprintf(hex, sizeof(hex), "missing");
			digest_add_str(&d, "path", last.v[i] + 65);
			digest_add_str(&d, "sha256", hex);
			free(abs);
		}
		digest_final_hex(&d, name);
		strvec_clear(&reads);
		got = try_entry(cc, cache_dir, root, name, &reads);
		if (got >= 0) {
			chosen = name;
			goto chosen;
		}
	}
	ret = error_to(cc->why, "no free cache name for the unit of base key '%.16s'", base);
	goto out;
chosen:
	memcpy(key, chosen, DIGEST_HEX_SIZE);
	/* A place where nothing may appear is watched through its folder. */
	for (size_t i = 0; inputs && i < from->nr; i++) {
		char *abs = path_join(root, from->v[i] + 65);

		if (is_place(from->v[i])) {
			char *dir = path_dirname(abs);

			free(abs);
			abs = dir;
		}
		strvec_push_nodup(inputs, abs);
	}
	/* An entry never built: its appearance changes the choice. */
	if (!got && appear) {
		struct buf b = BUF_INIT;

		cache_add_unit_path(&b, cache_dir, chosen, CACHE_ENTRY_SUFFIX);
		strvec_push_nodup(appear, buf_detach(&b));
	}
out:
	strvec_release(&last);
	strvec_release(&reads);
	return ret;
}

void reads_point(const char *cache_dir, const char *base, const char *key)
{
	char *path = pointer_path(cache_dir, base), *dir = path_dirname(path);
	char *text = xstrfmt(READS_MAGIC "%s\n", key);
	struct buf ignored = BUF_INIT;

	/* Best effort: without it, the next run finds the entry by its reads' name. */
	if (!mkdir_p(dir))
		(void)publish_unsynced_gently(path, text, strlen(text), &ignored);
	buf_release(&ignored);
	free(text);
	free(dir);
	free(path);
}

static int within(int64_t ns, const struct timespec span[2])
{
	return ns >= (int64_t)span[0].tv_sec * 1000000000 + span[0].tv_nsec &&
	       ns <= (int64_t)span[1].tv_sec * 1000000000 + span[1].tv_nsec;
}

/* Did the file at root/path change between span[0] and span[1]? Its ctime
 * says (the link's, and for a symlink its target's too): every change of
 * content or link sets it to the time of the change, and nothing sets it
 * back (an mtime may lie in the future). seen: the memo whose digest of it
 * was just taken, after the compile (its look serves), or NULL. */
static int changed_within(const struct filehash *seen, const char *root, const char *path,
			  const struct timespec span[2])
{
	char *abs = path_join(root, path);
	struct filestamp fs;
	int64_t link;
	int changed = 0;

	if (!seen || !filehash_seen(seen, abs, &fs, &link))
		changed = filestamp_look(abs, &fs, &link);
	changed = changed || (link >= 0 && within(link, span)) || within(fs.ctime_ns, span);
	free(abs);
	return changed;
}

/* The first file changed since the compile began, or NULL: it may have been
 * read as it was before, and neither the key (recomputed after it) nor a
 * digest taken now says what the compiler saw. The files of vis were just
 * hashed through cc's memo. */
static char *find_changed(struct closure_cache *cc, const char *root, const struct strvec *vis,
			  const struct closure *closure, const struct timespec *since)
{
	struct timespec span[2] = { *since };

	clock_gettime(CLOCK_REALTIME, &span[1]);
	for (size_t i = 0; i < closure->nr; i++)
		if (changed_within(NULL, root, closure->files[i].path, span))
			return xstrdup(closure->files[i].path);
	for (size_t i = 0; i < vis->nr; i++)
		if (changed_within(&cc->files, root, vis->v[i], span))
			return xstrdup(vis->v[i]);
	return NULL;
}

int reads_manifest_lines(struct closure_cache *cc, const char *root, const char *family,
			 const struct strvec *listed, const struct strvec *places,
			 const struct closure *closure, const struct timespec *since,
			 char **changed, struct buf *out)
{
	struct hashmap held;
	struct strvec vis = STRVEC_INIT;
	int ret = 0;

	hashmap_init(&held);
	for (size_t i = 0; i < closure->nr; i++)
		hashmap_put(&held, closure->files[i].path, (void *)1);
	for (size_t i = 0; i < listed->nr; i++) {
		char *abs = path_join_physical(root, listed->v[i]), *v = path_visible(root, abs);

		free(abs);
		if (hashmap_get(&held, v) || strvec_find(&vis, v) >= 0)
			free(v);
		else
			strvec_push_nodup(&vis, v);
	}
	qsort(vis.v, vis.nr, sizeof(char *), strvec_cmp);
	buf_addf(out, "deps %s\n", family);
	for (size_t i = 0; i < vis.nr && !ret; i++) {
		char *abs = path_join(root, vis.v[i]), hex[DIGEST_HEX_SIZE];

		if (strchr(vis.v[i], '\n'))
			ret = error("cannot record the read of a file whose name has a newline");
		else if (filehash_get(&cc->files, abs, hex))
			ret = error_errno("cannot read '%s', which the compiler read", abs);
		else
			buf_addf(out, "read %s %s\n", hex, vis.v[i]);
		free(abs);
	}
	for (size_t i = 0; i < places->nr && !ret; i++)
		if (strchr(places->v[i], '\n'))
			ret = error("cannot record a place looked at whose name has a newline");
	if (!ret)
		cache_add_places(out, places);
	if (!ret && since && (*changed = find_changed(cc, root, &vis, closure, since)))
		ret = 1;
	hashmap_release(&held);
	strvec_release(&vis);
	return ret;
}
