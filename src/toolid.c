/*
 * A compiler is identified by the bytes exec would run, never by running it:
 * the generator (and so `make -n`, which remakes the Makefile) must start no
 * compiler, and a warm run must start no process at all. What the driver finds
 * beyond its own binary (cc1plus, the system headers outside the -I list) is
 * not covered; a toolchain update replaces the driver too in practice.
 */
#include "toolid.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int toolid_get(struct closure_cache *cc, const char *program, char **resolved,
	       char hex[DIGEST_HEX_SIZE])
{
	char *path = hashmap_get(&cc->tools, program);
	char content[DIGEST_HEX_SIZE], *real;
	struct digest d;

	if (!path) {
		/* The resolution is memoized: PATH does not change within a run. */
		path = path_which(program);
		if (!path) {
			if (!strchr(program, '/'))
				return error("compiler '%s' not found in PATH", program);
			/* path_which's access() check failed; say why. */
			path = path_absolute(program);
			if (access(path, X_OK)) {
				error("cannot read compiler '%s': %s", path, strerror(errno));
				free(path);
				return -1;
			}
		}
		hashmap_put(&cc->tools, program, path);
	}
	real = realpath(path, NULL);
	if (!real)
		return error("cannot read compiler '%s': %s", path, strerror(errno));
	/* Hash what exec runs: the symlink's target, re-validated by stat on each call. */
	if (filehash_get(&cc->files, real, content, NULL)) {
		error("cannot read compiler '%s': %s", path, strerror(errno));
		free(real);
		return -1;
	}
	digest_init(&d);
	digest_add_str(&d, "schema", "kwarm-toolid-1");
	digest_add_str(&d, "path", path);
	digest_add_str(&d, "realpath", real);
	digest_add_str(&d, "sha256", content);
	digest_final_hex(&d, hex);
	free(real);
	if (resolved)
		*resolved = xstrdup(path);
	return 0;
}
