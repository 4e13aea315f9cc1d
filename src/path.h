/* path: lexical path arithmetic (no symlink resolution) and folder creation. */
#ifndef KWARM_PATH_H
#define KWARM_PATH_H

/* "a/b" joined with "c" -> "a/b/c"; an absolute rel is returned as is. Caller frees. */
char *path_join(const char *base, const char *rel);
/* Remove ".", empty components and "x/.." lexically; keeps a leading "/". Caller frees. */
char *path_normalize(const char *path);
/* path_join_normal for an absolute base, except that a ".." after a symlinked
 * folder goes up from where the link points, as the kernel resolves it (the
 * file a compiler opens by that name). Caller frees. */
char *path_join_physical(const char *base, const char *rel);
/* path_normalize(path_join(base, rel)), in one allocation when that is normal. */
char *path_join_normal(const char *base, const char *rel);
/* Is path in normal form already (path_normalize would return it as it is)? */
int path_is_normal(const char *path);
/* Absolute, normalized form of path relative to the current folder. Caller frees. */
char *path_absolute(const char *path);
/* The compiler-visible form of abs (absolute, normalized): relative to root when
 * inside it ("." for root itself), absolute otherwise. Caller frees. */
char *path_visible(const char *root, const char *abs);
/* Folder part of path ("." when there is none). Caller frees. */
char *path_dirname(const char *path);
/* File name without folder and without the last extension. Caller frees. */
char *path_stem(const char *path);
/* Create path and its parents (mode 0777 & ~umask); 0 or -1 with errno set. */
int mkdir_p(const char *path);
/* The outermost folder of path that does not exist (caller frees), or NULL
 * when path exists: the first one mkdir_p(path) creates. */
char *path_first_missing(const char *path);
/* Remove the empty folders under top, then top itself when it is empty: what
 * holds a file stays. Best effort. */
void rmdir_empty(const char *top);
/* Search PATH for a program name without '/'; a path is made absolute.
 * Returns the absolute path (caller frees) or NULL when not found. */
char *path_which(const char *program);

#endif
