/*
 * A compiler is identified by the bytes exec would run, never by running it:
 * the generator (and so `make -n`, which remakes the Makefile) must start no
 * compiler, and a warm run must start no process at all. What the driver finds
 * beyond its own binary (cc1plus, the system headers outside the -I list) is
 * not covered; a toolchain update replaces the driver too in practice.
 *
 * The identity memo shared by processes (one compile step each), one file per
 * tool under cc->tool_memo_dir (CACHE/tools), named by the SHA-256 of the
 * resolved path:
 *
 *   kwarm-toolid-memo 2
 *   <dev> <ino> <size> <mtime_ns> <ctime_ns>
 *   <identity hex>
 *   <realpath: the file exec runs>
 *
 * It is trusted only while stat() of the tool still gives that stamp, as the
 * in-process memo is; a tool replaced by a package update has a new inode.
 * The realpath saves a compile step resolving the links again for its name.
 */
#include "key/toolid.h"
#include "buf.h"
#include "cache/cacheentry.h"
#include "key/filehash.h"
#include "path.h"
#include "util.h"

#include <errno.h>
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
	char real[PATH_MAX];	/* the file exec runs (realpath), once known */
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

static int memo_read(const struct closure_cache *cc, struct tool_memo *memo)
{
	char *file, *text = NULL, *p, want[128], expect[256];
	size_t len, head;
	int ret = -1;

	if (!cc->tool_memo_dir)
		return -1;
	file = memo_path(cc, memo->path);
	format_stamp(want, sizeof(want), &memo->stamp);
	snprintf(expect, sizeof(expect), "kwarm-toolid-memo 2\n%s\n", want);
	head = strlen(expect);
	/* Published without fsync: a crash may leave zero bytes in it. */
	if (!read_file_all(file, &text, &len) && len > head + 66 && len - head - 66 < PATH_MAX &&
	    strlen(text) == len && !strncmp(text, expect, head) &&
	    strspn(text + head, "0123456789abcdef") == 64 && text[head + 64] == '\n' &&
	    text[head + 65] == '/' && text[len - 1] == '\n') {
		p = text + head;
		memcpy(memo->hex, p, 64);
		memo->hex[64] = '\0';
		memcpy(memo->real, p + 65, len - head - 66);
		memo->real[len - head - 66] = '\0';
		ret = 0;
	}
	free(text);
	free(file);
	return ret;
}

/* Best effort: a memo that cannot be written only costs a hash next time. */
static void memo_write(const struct closure_cache *cc, const struct tool_memo *memo)
{
	char *file, *tmp, line[128];
	struct buf b = BUF_INIT, name = BUF_INIT;

	if (!cc->tool_memo_dir || mkdir_p(cc->tool_memo_dir))
		return;
	/* A name the memo's line cannot hold is resolved again each time. */
	if (strchr(memo->real, '\n'))
		return;
	file = memo_path(cc, memo->path);
	/* A word of its own: gen keys units on two threads of one pid. */
	cache_add_temp_name(&name, file, (long)getpid(), cache_temp_word());
	tmp = buf_detach(&name);
	format_stamp(line, sizeof(line), &memo->stamp);
	buf_addf(&b, "kwarm-toolid-memo 2\n%s\n%s\n%s\n", line, memo->hex, memo->real);
	if (write_file(tmp, b.s, b.len) || rename(tmp, file))
		unlink(tmp);
	buf_release(&b);
	free(tmp);
	free(file);
}

/* The identity of program, memoized in cc and in the memo folder; NULL
 * after saying why into cc->why. A tool named by a relative path runs from
 * root, as the compile does. */
static struct tool_memo *identify(struct closure_cache *cc, const char *root,
				  const char *program)
{
	char *joined = strchr(program, '/') && program[0] != '/' ? path_join(root, program) : NULL;
	struct tool_memo *memo = resolve(cc, joined ? joined : program);
	char content[DIGEST_HEX_SIZE];
	const char *real;
	struct filestamp stamp;
	struct stat st;
	struct digest d;

	free(joined);
	if (!memo)
		return NULL;
	if (memo->known && cc->snapshot)
		return memo;
	if (stat(memo->path, &st))
		goto fail;
	filestamp_from_stat(&stamp, &st);
	/* The same file as last time: no need to hash 1 MB of driver again. */
	if (memo->known && filestamp_equal(&stamp, &memo->stamp))
		return memo;
	memo->known = 0;
	memo->stamp = stamp;
	if (!memo_read(cc, memo))
		goto remember;
	real = realpath(memo->path, memo->real);
	if (!real)
		goto fail;
	/* Hash what exec runs: the symlink's target, re-validated by stat on each call. */
	if (filehash_get(&cc->files, real, content))
		goto fail;
	digest_init(&d);
	digest_add_str(&d, "schema", "kwarm-toolid-1");
	digest_add_str(&d, "path", memo->path);
	digest_add_str(&d, "realpath", real);
	digest_add_str(&d, "sha256", content);
	digest_final_hex(&d, memo->hex);
	memo_write(cc, memo);
remember:
	memo->known = 1;
	return memo;
fail:
	error_errno_to(cc->why, "cannot read compiler '%s'", memo->path);
	return NULL;
}

const char *toolid_get(struct closure_cache *cc, const char *root, const char *program,
		       char hex[DIGEST_HEX_SIZE])
{
	struct tool_memo *memo = identify(cc, root, program);

	if (!memo)
		return NULL;
	memcpy(hex, memo->hex, DIGEST_HEX_SIZE);
	return memo->path;
}

const char *toolid_target(struct closure_cache *cc, const char *root, const char *program)
{
	struct buf quiet = BUF_INIT, *why = cc->why;
	struct tool_memo *memo;

	/* Not reported: the compile that runs it will say. */
	cc->why = &quiet;
	memo = identify(cc, root, program);
	cc->why = why;
	buf_release(&quiet);
	return memo ? memo->real : NULL;
}
