/*
 * A compiler is identified by the bytes exec would run, never by running it:
 * the generator (and so `make -n`, which remakes the Makefile) must start no
 * compiler, and a warm run must start no process at all. What the driver finds
 * beyond its own binary (cc1plus, the system headers outside the -I list) is
 * not covered; a toolchain update replaces the driver too in practice.
 */
#include "toolid.h"
#include "filehash.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a tool resolved to, and its identity while its file stays the same. */
struct tool_memo {
	struct filestamp stamp;	/* of the file exec runs (stat follows links) */
	int known;
	char hex[DIGEST_HEX_SIZE];
	char path[];		/* the resolved path */
};

static struct tool_memo *resolve(struct closure_cache *cc, const char *program)
{
	struct tool_memo *memo = hashmap_get(&cc->tools, program);
	char *path;

	if (memo)
		return memo;
	/* The resolution is memoized: PATH does not change within a run. */
	path = path_which(program);
	if (!path) {
		if (!strchr(program, '/')) {
			error("compiler '%s' not found in PATH", program);
			return NULL;
		}
		/* path_which's access() check failed; say why. */
		path = path_absolute(program);
		if (access(path, X_OK)) {
			error("cannot read compiler '%s': %s", path, strerror(errno));
			free(path);
			return NULL;
		}
	}
	memo = xcalloc(1, sizeof(*memo) + strlen(path) + 1);
	memcpy(memo->path, path, strlen(path) + 1);
	free(path);
	hashmap_put(&cc->tools, program, memo);
	return memo;
}

int toolid_get(struct closure_cache *cc, const char *program, char **resolved,
	       char hex[DIGEST_HEX_SIZE])
{
	struct tool_memo *memo = resolve(cc, program);
	char content[DIGEST_HEX_SIZE], *real;
	struct filestamp stamp;
	struct stat st;
	struct digest d;

	if (!memo)
		return -1;
	if (stat(memo->path, &st))
		return error("cannot read compiler '%s': %s", memo->path, strerror(errno));
	filestamp_from_stat(&stamp, &st);
	/* The same file as last time: no need to hash 1 MB of driver again. */
	if (memo->known && filestamp_equal(&stamp, &memo->stamp))
		goto done;
	real = realpath(memo->path, NULL);
	if (!real)
		return error("cannot read compiler '%s': %s", memo->path, strerror(errno));
	/* Hash what exec runs: the symlink's target, re-validated by stat on each call. */
	if (filehash_get(&cc->files, real, content, NULL)) {
		error("cannot read compiler '%s': %s", memo->path, strerror(errno));
		free(real);
		return -1;
	}
	digest_init(&d);
	digest_add_str(&d, "schema", "kwarm-toolid-1");
	digest_add_str(&d, "path", memo->path);
	digest_add_str(&d, "realpath", real);
	digest_add_str(&d, "sha256", content);
	digest_final_hex(&d, memo->hex);
	free(real);
	memo->stamp = stamp;
	memo->known = 1;
done:
	memcpy(hex, memo->hex, DIGEST_HEX_SIZE);
	if (resolved)
		*resolved = xstrdup(memo->path);
	return 0;
}
