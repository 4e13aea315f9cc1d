/* deps: the compiler's own list of the files it read (its dependency output).
 *
 * Every compile of a family that can write one writes one: gcc and clang with
 * -MD -MF FILE (one source), gcc with SUNPRO_DEPENDENCIES for a unit of several
 * sources (-MF keeps only the last source's list, the variable appends one list
 * per source). clang cannot list several sources in one file: such a unit keeps
 * the scanner-only key, as a compiler with no dependency output does. */
#ifndef KWARM_DEPS_H
#define KWARM_DEPS_H

#include "strvec.h"

enum deps_family { DEPS_NONE, DEPS_GCC, DEPS_CLANG };

/* The family a toolchain's "deps:" word names (gcc, clang, none), or -1. */
int deps_family_parse(const char *word);
/* "gcc", "clang" or "none". */
const char *deps_family_name(enum deps_family f);
/* The family of the compiler at path (resolved through links to its real file
 * name: g++-12, clang-14, ...); DEPS_NONE for any other compiler. */
enum deps_family deps_family_detect(const char *path);
/* deps_family_detect of a path already resolved (toolid_target's). */
enum deps_family deps_family_named(const char *real);

/* How one compile of nsources sources writes its list to dfile: words to add
 * after the compiler (to argv_extra) and "NAME=VALUE" variables to set, or
 * "NAME" to unset (to env_extra). 0 when it writes one, -1 when this family
 * cannot (nothing added). */
int deps_request(enum deps_family f, size_t nsources, const char *dfile,
		 struct strvec *argv_extra, struct strvec *env_extra);

/* The number of words at argv->v[i] that ask for a dependency file of the
 * user's own (-MD, -MMD, -MF FILE, -Wp,-MMD,FILE), or 0: a compile that asks
 * for kwarm's drops them, as -MMD would leave system headers out of its list
 * and another -MF would send the list elsewhere. */
size_t deps_user_option(const struct strvec *argv, size_t i);

/* Parse a make-style dependency file (one or more "target: prereq..." rules,
 * backslash-newline continued, quoted as gcc and clang do: see deps.c); appends every
 * prerequisite once, in first-seen order. 0, or -1 with errno set when the file
 * cannot be read (ENOENT: the compiler wrote none). */
int deps_parse_file(const char *path, struct strvec *out);
/* The same over text already read. */
void deps_parse(const char *text, size_t len, struct strvec *out);
/* clang 14 writes each lone '\' of a name as '/' ("b\s.h" as "b/s.h"): the
 * names each of names (relative to root, or absolute) may stand for go to
 * out, those that exist when there are several (a file that the compiler did
 * not read costs a compile at most), the name as written when none does. */
void deps_clang_names(const char *root, const struct strvec *names, struct strvec *out);

#endif
