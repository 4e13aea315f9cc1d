/* incdirs: what a command's -I list decides. The compiler looks a name up in
 * the -I folders in order; the answer depends on which folders are searched
 * and, only for a name that more than one of them holds, on their order (a
 * folder given twice counts at its first place). Two lists that agree on both
 * find the same file for every name, #include_next included, however they
 * are ordered: a key over this instead of the -I words lets such
 * units share one compile, while a new header in a folder changes nothing
 * unless it shadows or is shadowed. */
#ifndef KWARM_INCDIRS_H
#define KWARM_INCDIRS_H

#include "key/closure.h"
#include "strvec.h"

/* Append what the -I folders dirs (compiler-visible, relative to the absolute
 * root) decide to lines, sorted: "folder\tDIR" for each folder searched (the
 * word of its first place: a header's __FILE__ is spelled through it), and
 * "shared\tNAME\tDIR\tDIR..." for each name several hold (in search order);
 * and every folder listed (absolute) to folders (may be NULL): a new file there
 * changes the resolution. 0, or -1 when a folder cannot be listed whole
 * (unreadable, or a symbolic link to a folder inside it): then only the
 * spelling of the list can key the unit. */
int incdirs_resolution(struct closure_cache *cc, const char *root, const struct strvec *dirs,
		       struct strvec *lines, struct strvec *folders);
/* Release what incdirs keeps in cc (called by closure_cache_release). */
void incdirs_release(struct closure_cache *cc);

#endif
