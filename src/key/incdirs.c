#include "key/incdirs.h"
#include "buf.h"
#include "path.h"
#include "util.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Kept per process, by name in a hashmap: a folder's listing (one run looks
 * at one tree, and the Makefile watches the folders) or a -I list's
 * resolution (units of a role share their list). */
struct listing {
	int status;		/* -1: something could not be listed or resolved */
	struct strvec files;	/* a listing's relative names, sorted; a resolution's lines */
	struct strvec folders;	/* absolute; a listing's own folder first */
};

static struct listing *listing_new(void)
{
	struct listing *l = xcalloc(1, sizeof(*l));

	strvec_init(&l->files);
	strvec_init(&l->folders);
	return l;
}

static void release_all(struct hashmap *map)
{
	for (size_t i = 0; i < map->nr; i++) {
		struct listing *l = map->entries[i].value;

		strvec_release(&l->files);
		strvec_release(&l->folders);
		free(l);
	}
	hashmap_release(map);
}

static void list_into(struct listing *l, const char *abs, const char *rel, int depth)
{
	DIR *dir = opendir(abs);
	struct dirent *de;

	if (!dir) {
		l->status = -1;
		return;
	}
	strvec_push(&l->folders, abs);
	while ((de = readdir(dir))) {
		char *path, *name;
		struct stat st;
		int type = de->d_type;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		path = path_join(abs, de->d_name);
		name = *rel ? xstrfmt("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		/* The folder entry's type saves a stat per file; some filesystems
		 * do not give it. */
		if (type == DT_UNKNOWN)
			type = lstat(path, &st) ? -1 : S_ISDIR(st.st_mode) ? DT_DIR
				: S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		if (type < 0) {
			l->status = -1;
		} else if (type == DT_DIR) {
			if (depth < 32)
				list_into(l, path, name, depth + 1);
			else
				l->status = -1;
		} else if (type == DT_LNK) {
			/* A link to a file is a file; to a folder, a tree we do not walk. */
			if (stat(path, &st) || S_ISDIR(st.st_mode))
				l->status = -1;
			else
				strvec_push(&l->files, name);
		} else {
			strvec_push(&l->files, name);
		}
		free(path);
		free(name);
	}
	closedir(dir);
}

static struct listing *get_listing(struct closure_cache *cc, const char *abs)
{
	struct listing *l = hashmap_get(&cc->listings, abs);

	if (l)
		return l;
	l = listing_new();
	list_into(l, abs, "", 0);
	qsort(l->files.v, l->files.nr, sizeof(char *), strvec_cmp);
	hashmap_put(&cc->listings, abs, l);
	return l;
}

static int resolve(struct closure_cache *cc, const char *root, const struct strvec *dirs,
		   struct strvec *lines, struct strvec *folders);

int incdirs_resolution(struct closure_cache *cc, const char *root, const struct strvec *dirs,
		       struct strvec *lines, struct strvec *folders)
{
	struct buf key = BUF_INIT;
	struct listing *r;

	buf_adds(&key, root);
	for (size_t i = 0; i < dirs->nr; i++)
		buf_addf(&key, "\n%s", dirs->v[i]);
	r = hashmap_get(&cc->resolutions, key.s);
	if (!r) {
		r = listing_new();
		r->status = resolve(cc, root, dirs, &r->files, &r->folders);
		hashmap_put(&cc->resolutions, key.s, r);
	}
	buf_release(&key);
	strvec_pushv(lines, &r->files);
	if (folders)
		strvec_pushv(folders, &r->folders);
	return r->status;
}

static int resolve(struct closure_cache *cc, const char *root, const struct strvec *dirs,
		   struct strvec *lines, struct strvec *folders)
{
	/* name -> index + 1 into holders: every folder that holds the name, in
	 * search order (#include_next goes on to the next one). */
	struct hashmap where, seen_dirs;
	struct strvec holders, set;
	size_t start = lines->nr;
	int ret = 0;

	hashmap_init(&where);
	hashmap_init(&seen_dirs);
	strvec_init(&holders);
	strvec_init(&set);
	for (size_t i = 0; i < dirs->nr && !ret; i++) {
		char *joined = path_join(root, dirs->v[i]), *abs = path_normalize(joined);
		struct listing *l;

		free(joined);
		/* The compiler ignores a folder given twice after its first place. */
		if (hashmap_get(&seen_dirs, abs)) {
			free(abs);
			continue;
		}
		hashmap_put(&seen_dirs, abs, (void *)1);
		/* As spelled: the compiler names a header found there (__FILE__)
		 * by the folder's word and the name ("./a/x.h" is not "a/x.h"). */
		strvec_push(&set, dirs->v[i]);
		l = get_listing(cc, abs);
		if (l->status)
			ret = -1;
		for (size_t j = 0; !ret && j < l->files.nr; j++) {
			const char *name = l->files.v[j];
			size_t at = (size_t)(uintptr_t)hashmap_get(&where, name);

			if (!at) {
				strvec_pushf(&holders, "%s\t%s", name, dirs->v[i]);
				hashmap_put(&where, name, (void *)(uintptr_t)holders.nr);
			} else {
				char *more = xstrfmt("%s\t%s", holders.v[at - 1], dirs->v[i]);

				free(holders.v[at - 1]);
				holders.v[at - 1] = more;
			}
		}
		for (size_t j = 0; folders && j < l->folders.nr; j++)
			strvec_push(folders, l->folders.v[j]);
		free(abs);
	}
	/* What decides every lookup: which folders are searched (in any order)
	 * and, for a name more than one holds, their order. */
	qsort(set.v, set.nr, sizeof(char *), strvec_cmp);
	for (size_t i = 0; i < set.nr; i++)
		strvec_pushf(lines, "folder\t%s", set.v[i]);
	for (size_t i = 0; i < holders.nr; i++)
		if (strchr(strchr(holders.v[i], '\t') + 1, '\t'))
			strvec_pushf(lines, "shared\t%s", holders.v[i]);
	qsort(lines->v + start, lines->nr - start, sizeof(char *), strvec_cmp);
	strvec_release(&holders);
	strvec_release(&set);
	hashmap_release(&seen_dirs);
	hashmap_release(&where);
	return ret;
}

void incdirs_release(struct closure_cache *cc)
{
	release_all(&cc->listings);
	release_all(&cc->resolutions);
}
