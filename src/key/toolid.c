/*
 * A compiler is identified by the bytes exec would run, never by running it:
 * the generator (and so `make -n`, which remakes the Makefile) must start no
 * compiler, and a warm run must start no process at all. What the driver finds
 * beyond its own binary (cc1plus, the system headers outside the -I list) is
 * not covered; a toolchain update replaces the driver too in practice.
 */
#include "key/toolid.h"
#include "buf.h"
#include "cache/cacheentry.h"
#include "key/filehash.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
			error_to(cc->why, "compiler '%s' not found in PATH", program);
			return NULL;
		}
		/* path_which's access() check failed; say why. */
		path = path_absolute(program);
		if (access(path, X_OK)) {
			error_errno_to(cc->why, "cannot read compiler '%s'", path);
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

/*
 * The identity memo shared by processes (one compile step each), one file per
 * tool under cc->tool_memo_dir, named by the SHA-256 of the resolved path:
 *
 *   kwarm-toolid-memo 1
 *   <dev> <ino> <size> <mtime_ns> <ctime_ns>
 *   <identity hex>
 *
 * It is trusted only while stat() of the tool still gives that stamp, as the
 * in-process memo is; a tool replaced by a package update has a new inode.
 */
static char *memo_path(const struct closure_cache *cc, const char *path)
{
	char name[DIGEST_HEX_SIZE];

	digest_bytes_hex(path, strlen(path), name);
	return xstrfmt("%s/%s", cc->tool_memo_dir, name);
}

static void format_stamp(char *out, size_t size, const struct filestamp *st)
{
	snprintf(out, size, "%llu %llu %llu %lld %lld", (unsigned long long)st->dev,
		 (unsigned long long)st->ino, (unsigned long long)st->size,
		 (long long)st->mtime_ns, (long long)st->ctime_ns);
}

static int memo_read(const struct closure_cache *cc, const char *path,
		     const struct filestamp *stamp, char hex[DIGEST_HEX_SIZE])
{
	char *file, *text = NULL, want[128], expect[256];
	size_t len;
	int ret = -1;

	if (!cc->tool_memo_dir)
		return -1;
	file = memo_path(cc, path);
	format_stamp(want, sizeof(want), stamp);
	snprintf(expect, sizeof(expect), "kwarm-toolid-memo 1\n%s\n", want);
	if (!read_file_all(file, &text, &len) && len == strlen(expect) + 65 &&
	    !strncmp(text, expect, strlen(expect)) && text[len - 1] == '\n') {
		memcpy(hex, text + strlen(expect), 64);
		hex[64] = '\0';
		ret = 0;
	}
	free(text);
	free(file);
	return ret;
}

/* Best effort: a memo that cannot be written only costs a hash next time. */
static void memo_write(const struct closure_cache *cc, const char *path,
		       const struct filestamp *stamp, const char hex[DIGEST_HEX_SIZE])
{
	char *file, *tmp, line[128];
	struct buf b = BUF_INIT, name = BUF_INIT;
	int fd;

	if (!cc->tool_memo_dir || mkdir_p(cc->tool_memo_dir))
		return;
	file = memo_path(cc, path);
	cache_add_temp_name(&name, file, (long)getpid(), 0);
	tmp = buf_detach(&name);
	format_stamp(line, sizeof(line), stamp);
	buf_addf(&b, "kwarm-toolid-memo 1\n%s\n%s\n", line, hex);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd >= 0) {
		if (write_all(fd, b.s, b.len) || close(fd) || rename(tmp, file))
			unlink(tmp);
	}
	buf_release(&b);
	free(tmp);
	free(file);
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
		return error_errno_to(cc->why, "cannot read compiler '%s'", memo->path);
	filestamp_from_stat(&stamp, &st);
	/* The same file as last time: no need to hash 1 MB of driver again. */
	if (memo->known && filestamp_equal(&stamp, &memo->stamp))
		goto done;
	if (!memo_read(cc, memo->path, &stamp, memo->hex))
		goto remember;
	real = realpath(memo->path, NULL);
	if (!real)
		return error_errno_to(cc->why, "cannot read compiler '%s'", memo->path);
	/* Hash what exec runs: the symlink's target, re-validated by stat on each call. */
	if (filehash_get(&cc->files, real, content, NULL)) {
		error_errno_to(cc->why, "cannot read compiler '%s'", memo->path);
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
	memo_write(cc, memo->path, &stamp, memo->hex);
remember:
	memo->stamp = stamp;
	memo->known = 1;
done:
	memcpy(hex, memo->hex, DIGEST_HEX_SIZE);
	if (resolved)
		*resolved = xstrdup(memo->path);
	return 0;
}
