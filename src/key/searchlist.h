/* searchlist: where a gcc or clang compile looks for a header (its own list:
 * the built-in folders, -iquote, -I, -isystem, -idirafter, --sysroot, the
 * include variables, in the compiler's order), and what each of its lookups
 * found there. The recorded reads (reads.h) cover the files a compile read;
 * these cover the places it looked first and found nothing, so that a new
 * header there (a /usr/local/include/x.h over /usr/include/x.h) is seen. */
#ifndef KWARM_SEARCHLIST_H
#define KWARM_SEARCHLIST_H

#include "buf.h"
#include "key/closure.h"
#include "key/unitkey.h"
#include "strvec.h"

/*
 * The lookups of uc's compile, which read the files read (paths as the
 * compiler named them, relative to uc->root): every #include, #include_next
 * and __has_include name in those files, looked up in the compiler's list as
 * the compiler does (the includer's folder first for "name"), whatever #if
 * says. Appended to places, sorted, each place looked at up to the hit
 * (compiler-visible): "absent PATH" where nothing is (the outermost missing
 * folder of it), "folder PATH" where a folder is, "file PATH" for a hit the
 * compiler did not read. memo_dir holds the learned lists. 0, or -1 with why
 * set when the list cannot be learned.
 */
int searchlist_probes(struct closure_cache *cc, const struct unit_command *uc,
		      const char *memo_dir, const struct strvec *read, struct strvec *places,
		      struct buf *why);

#endif
