#include "path.h"
#include "buf.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *path_join(const char *base, const char *rel)
{
	size_t n = strlen(base), m;
	char *p;

	if (rel[0] == '/' || !n)
		return xstrdup(rel);
	/* By hand, not xstrfmt: gen joins a few paths per unit. */
	m = strlen(rel);
	p = xmalloc(n + 1 + m + 1);
	memcpy(p, base, n);
	if (base[n - 1] != '/')
		p[n++] = '/';
	memcpy(p + n, rel, m + 1);
	return p;
}

/* Is path already in normal form: no empty, "." or ".." component, no
 * trailing '/' (but "/" itself)? Most paths gen sees are. */
int path_is_normal(const char *path)
{
	const char *p = path;

	if (!*p)
		return 0;
	if (*p == '/' && !p[1])
		return 1;
	if (*p == '/')
		p++;
	for (;;) {
		/* strchr, not strcspn: glibc's strcspn takes a slow path for a
		 * set of one (gen asks this of a few paths a unit). */
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (!len || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (!p[len])
			return 1;
		p += len + 1;
	}
}

char *path_normalize(const char *path)
{
	int absolute = path[0] == '/';
	size_t n = strlen(path), top = 0, *starts;
	struct buf out = BUF_INIT;
	const char *p = path;

	if (path_is_normal(path))
		return xstrndup(path, n);
	starts = xmalloc((n + 1) * sizeof(size_t));
	if (absolute)
		buf_addch(&out, '/');
	/* starts[] remembers where each kept component begins, to undo it on "..". */
	while (*p) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* skip */
		} else if (len == 2 && p[0] == '.' && p[1] == '.' && top > 0 &&
			   strcmp(out.s + starts[top - 1], "..")) {
			out.len = starts[--top];
			if (out.len > (size_t)absolute)
				out.len--;	/* the separator before it */
			out.s[out.len] = '\0';
		} else if (len == 2 && p[0] == '.' && p[1] == '.' && absolute) {
			/* "/.." is "/" */
		} else {
			if (out.len > (size_t)absolute)
				buf_addch(&out, '/');
			starts[top++] = out.len;
			buf_add(&out, p, len);
		}
		p += len;
		while (*p == '/')
			p++;
	}
	free(starts);
	if (!out.len)
		buf_addch(&out, '.');
	return buf_detach(&out);
}

/* The end of path's last ".." component, or NULL when it has none. */
static const char *last_dotdot_end(const char *path)
{
	const char *end = NULL;

	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (!p[2] || p[2] == '/'))
			end = p + 2;
	return end;
}

char *path_join_physical(const char *base, const char *rel)
{
	char *path = path_join(base, rel), *norm, *upto, *lexical, *real, *same = NULL;
	const char *end = last_dotdot_end(path);

	if (!end && path_is_normal(path))
		return path;
	norm = path_normalize(path);
	if (!end) {
		free(path);
		return norm;
	}
	upto = xstrndup(path, (size_t)(end - path));
	lexical = path_normalize(upto);
	real = realpath(upto, NULL);
	/* Only a symlink before the ".." makes the two differ; else the lexical
	 * form stays (the root may itself sit behind a link). */
	if (real && !((same = realpath(lexical, NULL)) && !strcmp(same, real))) {
		free(norm);
		norm = *end ? path_join_normal(real, end + 1) : xstrdup(real);
	}
	free(same);
	free(real);
	free(lexical);
	free(upto);
	free(path);
	return norm;
}

char *path_join_normal(const char *base, const char *rel)
{
	char *joined = path_join(base, rel), *norm;

	if (path_is_normal(joined))
		return joined;
	norm = path_normalize(joined);
	free(joined);
	return norm;
}

char *path_absolute(const char *path)
{
	char *cwd, *abs;

	if (path[0] == '/')
		return path_normalize(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		die_errno("cannot get the current folder");
	abs = path_join_normal(cwd, path);
	free(cwd);
	return abs;
}

char *path_visible(const char *root, const char *abs)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return xstrdup(abs[1] ? abs + 1 : ".");
	if (!strncmp(abs, root, n)) {
		if (!abs[n])
			return xstrdup(".");
		if (abs[n] == '/')
			return xstrdup(abs + n + 1);
	}
	return xstrdup(abs);
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *path_stem(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return xstrdup(base);
	return xstrndup(base, (size_t)(dot - base));
}

int mkdir_p(const char *path)
{
	char *copy;
	struct stat st;

	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return 0;
		errno = ENOTDIR;
		return -1;
	}
	/* Mostly only the last one is missing: one mkdir, not one per level. */
	if (errno == ENOENT && !mkdir(path, 0777))
		return 0;
	copy = xstrdup(path);
	for (char *p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) && errno != EEXIST) {
			int saved = errno;

			free(copy);
			errno = saved;
			return -1;
		}
		*p = '/';
	}
	free(copy);
	if (mkdir(path, 0777) && errno != EEXIST)
		return -1;
	return 0;
}

char *path_first_missing(const char *path)
{
	char *top = NULL, *copy = xstrdup(path), *slash;
	struct stat st;

	while (*copy && lstat(copy, &st) && errno == ENOENT) {
		free(top);
		top = xstrdup(copy);
		slash = strrchr(copy, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	free(copy);
	return top;
}

void rmdir_empty(const char *top)
{
	DIR *d = opendir(top);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = path_join(top, de->d_name);
		/* Never through a symbolic link: only what lies under top. */
		if (!lstat(sub, &st) && S_ISDIR(st.st_mode))
			rmdir_empty(sub);
		free(sub);
	}
	closedir(d);
	(void)rmdir(top);
}

char *path_which(const char *program)
{
	const char *env = getenv("PATH"), *p;

	if (!*program)
		return NULL;
	if (strchr(program, '/')) {
		char *abs = path_absolute(program);

		if (access(abs, X_OK)) {
			free(abs);
			return NULL;
		}
		return abs;
	}
	if (!env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (p = env;; ) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *dir = len ? xstrndup(p, len) : xstrdup(".");
		char *cand = path_join(dir, program);
		struct stat st;

		free(dir);
		if (!access(cand, X_OK) && !stat(cand, &st) && S_ISREG(st.st_mode)) {
			char *abs = path_absolute(cand);

			free(cand);
			return abs;
		}
		free(cand);
		if (!end)
			break;
		p = end + 1;
	}
	return NULL;
}
