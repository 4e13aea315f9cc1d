/* spec: the YAML spec (CONTRACT.md, version 1) loaded into a typed tree.
 *
 * With yamltree (its generic layer), the only code that includes <yaml.h>.
 * Every node keeps its position so that later stages can report
 * "FILE:LINE:COL: message". spec_load() checks every rule
 * of the contract (types, required/unknown/duplicate keys, limits, charsets,
 * $VAR expansion, include dirs, source existence, alias expansion limits) and
 * reports the first error exactly once. */
#ifndef KWARM_SPEC_H
#define KWARM_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "strvec.h"

#define SPEC_NAME_MAX 63		/* bytes of function_name / config_name text */
#define SPEC_CHIP_SIG_MAX 256		/* orchestration signature capacity */
#define SPEC_CORE_SIG_MAX 32		/* incore signature capacity */
#define SPEC_CHILDREN_MAX 1024		/* incores per callable */

enum sig_dir { SIG_SCALAR = 0, SIG_IN = 1, SIG_OUT = 2, SIG_INOUT = 3 };

struct spec_pos {
	const char *file;	/* owned by the spec */
	int line, col;		/* 1-based */
};

/* One toolchain role: the orchestration role or one incore core type. */
struct spec_toolchain {
	char *role;			/* "orchestration" or the core type name */
	char *compiler;			/* as written: a PATH name or a path */
	struct strvec flags;
	struct strvec include_dirs;	/* $VAR-expanded, only those that exist, as
					 * written (relative to root or absolute) */
	struct strvec sources;		/* extra sources (orchestration only), as written */
	struct strvec launcher;		/* empty when none */
	struct strvec link;		/* empty when none: [linker, args...] */
	int extract_text;		/* extract: text */
	int deps;			/* enum deps_family, or -1: detect from the compiler */
	struct strvec env;		/* env: more variables that steer the compiler */
	struct spec_pos pos;
};

struct spec_incore {
	int32_t func_id;
	char *name;			/* given, or the source file's stem */
	char *source;			/* as written (relative to root or absolute) */
	char *core_type;
	int *sig;			/* sig_count directions (NULL when none) */
	int sig_count;
	struct strvec extra_include_dirs;	/* expanded, only those that exist */
	const struct spec_toolchain *toolchain;	/* resolved for its class */
	struct spec_pos pos;
};

struct spec_callable {
	char *name;			/* level 3: its name; level 2: NULL */
	char *source;			/* orchestration source, as written */
	char *function_name;
	char *config_name;		/* "" when not given */
	int *sig;			/* sig_count directions (NULL when none) */
	int sig_count;
	const struct spec_toolchain *toolchain;	/* orchestration role for its class */
	struct spec_incore *incores;
	size_t nr_incores;
	struct spec_pos pos;
};

struct spec_class {
	char *name;
	char *runtime;			/* "" when not given */
	int level;			/* 2 (callable:) or 3 (callables:) */
	struct spec_callable *callables;
	size_t nr_callables;
	/* Roles this class overrides (owned here); the resolved pointers above point
	 * into these or into the spec's top-level table. */
	struct spec_toolchain *own_toolchains;
	size_t nr_own_toolchains;
	struct spec_pos pos;
};

struct spec {
	char *file;			/* the spec path as given */
	char *root;			/* absolute, normalized */
	char *platform;
	char *cache;			/* absolute; NULL when the spec sets none */
	char *out;			/* absolute; NULL when the spec sets none */
	char *remote;			/* the remote cache's URL (remote.h); NULL when none */
	struct spec_toolchain orchestration;
	struct spec_toolchain *incore;	/* top-level incore roles, in spec order */
	size_t nr_incore;
	struct spec_class *classes;
	size_t nr_classes;
	struct strvec env_used;		/* "NAME=value" of every $VAR expanded, sorted, unique */
};

/* Load and check path. On error, prints one "FILE:LINE:COL: message" line to
 * stderr and returns -1 (the spec is then released). Caller releases on success. */
int spec_load(struct spec *spec, const char *path);
void spec_release(struct spec *spec);

#endif
