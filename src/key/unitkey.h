/* unitkey: the cache key of one compile unit.
 *
 * A unit is described by its compile command exactly as the compiler sees it
 * (argv without the launcher, with the literal word UNITKEY_OUT after -o), an
 * optional link step and extract mode, the platform label, and the root that
 * relative paths are relative to. The key is SHA-256 over a length-prefixed
 * record of: schema, platform, the compiler's identity, every argv word, the
 * include closure of the sources (paths and content digests, edges), the
 * linker's identity and words, and the extract mode. The generator and the
 * compile step both call unitkey_compute, so the compile step can re-check the
 * key it was given against the files it really compiles. */
#ifndef KWARM_UNITKEY_H
#define KWARM_UNITKEY_H

#include "key/closure.h"
#include "key/digest.h"
#include "strvec.h"

/* 4: entries record where their compiler looked for headers (searchlist.h);
 * a 3 entry, which does not, is never used. */
#define UNITKEY_SCHEMA "kwarm-unit-4"
#define UNITKEY_OUT "{out}"	/* stands for the output path in a command */

struct unit_command {
	const char *platform;
	const char *root;		/* absolute */
	struct strvec argv;		/* compiler flags... -I.. -o {out} SOURCE [sources...] */
	struct strvec link;		/* [linker, args...] or empty */
	int extract_text;
	struct strvec env;		/* more variables that steer the compiler (toolchain env:) */
	const char *cache_dir;		/* where recorded reads are found (see reads.h), or NULL */
	int deps;			/* enum deps_family, or -1: detect (not in the key) */
};

void unit_command_init(struct unit_command *uc);
void unit_command_release(struct unit_command *uc);
/* The sources (words after "-o {out}") and the include dirs (-I, -iquote,
 * -isystem, -idirafter, joined or separate) of argv, compiler-visible. */
void unit_command_inputs(const struct unit_command *uc, struct strvec *sources,
			 struct strvec *include_dirs);
/* How many sources unit_command_inputs would give, without copying them. */
size_t unit_command_nr_sources(const struct unit_command *uc);
/* The word that makes the compiler read a header no #include of its files
 * names (-include FILE, -imacros FILE), or NULL: the scanner does not follow it. */
const char *unitkey_forced_header(const struct unit_command *uc);
/* The variables every compiler's key covers (NULL-terminated), besides a
 * toolchain's own env: list. */
extern const char *const unitkey_steering_env[];

/* Optional outputs of unitkey_compute; any field may be NULL. */
struct unitkey_out {
	struct closure *closure;	/* the include closure (initialised) */
	struct strvec *inputs;		/* resolved compiler and linker, files that flags
					 * name, recorded reads the key used (absolute):
					 * the Makefile's own prerequisites */
	struct strvec *appear;		/* entries whose appearance changes the key */
	char *base;			/* DIGEST_HEX_SIZE: the base key (before reads) */
	struct strvec *why;		/* what the base key covers, one line each:
					 * "platform P", "compiler HEX", "arg WORD",
					 * "named HEX PATH", "file HEX PATH", "linker HEX",
					 * "linkarg WORD", "extract MODE", "env NAME=VALUE"
					 * or "env NAME unset" (for kwarm explain) */
};

/* Compute the key: the base key, then, with uc->cache_dir, the choice among
 * entries by what their compiles read (reads.h). 0, or -1 after reporting
 * (compiler not found, source unreadable). */
int unitkey_compute(struct closure_cache *cc, const struct unit_command *uc,
		    char hex[DIGEST_HEX_SIZE], const struct unitkey_out *out);

#endif
