/* unitindex: what a compile step reports about its unit but make does not
 * need (label, id, owners), by key, in a file gen writes beside the Makefile
 * (MAKEFILE.index), so that a unit's recipe carries its key and command only.
 * Fixed-width records sorted by key: a step finds its unit with a binary
 * search of a few small reads, whatever the number of units.
 *
 *   kwarm-index 1 <count, 17 digits>\n              32 bytes
 *   <key> <offset, 10 digits>\n                     76 bytes each, sorted by key
 *   <owner,owner...>\t<id>\t<label>\n               one per unit, at its offset
 */
#ifndef KWARM_UNITINDEX_H
#define KWARM_UNITINDEX_H

#include "buf.h"

struct plan;

/* Appended to the Makefile's path: the index's path. */
#define UNITINDEX_SUFFIX ".index"

struct unitindex_entry {
	char *owners, *id, *label;	/* owned */
};

/* Append the index of plan's units to out. */
void unitindex_format(const struct plan *plan, struct buf *out);
/* Find key in the index at path: 1 (e filled; release it), 0 when it is not
 * there, -1 after reporting (the file cannot be read or is not an index). */
int unitindex_lookup(const char *path, const char *key, struct unitindex_entry *e);
void unitindex_entry_release(struct unitindex_entry *e);

#endif
