/* unitlist: the list of a warm-up's classes, callables and units that the
 * generator writes next to the Makefile (MAKEFILE.units), for the steps that report on a
 * run (progress totals, the summary) and cannot parse the Makefile.
 *
 * Format (text, one record a line, fields split at single spaces; the label,
 * last, may contain spaces):
 *
 *   kwarm-units 1
 *   class <name>                              spec order
 *   callable <ckey> <class> <stamp path>      spec order
 *   unit <key> <owner,owner...> <label>       plan order
 */
#ifndef KWARM_UNITLIST_H
#define KWARM_UNITLIST_H

#include "buf.h"
#include "digest.h"
#include "strvec.h"

struct plan;

struct unitlist_unit {
	char key[DIGEST_HEX_SIZE];
	struct strvec owners;		/* class names */
	char *label;
};

struct unitlist_callable {
	char ckey[DIGEST_HEX_SIZE];
	char *cls;
	char *stamp;			/* OUT/.kwarm/<...>.<ckey>: present when packed */
};

struct unitlist {
	struct strvec classes;
	struct unitlist_unit *units;
	size_t nr_units, alloc_units;
	struct unitlist_callable *callables;
	size_t nr_callables, alloc_callables;
};

/* Appended to the Makefile's path: the list's path. */
#define UNITLIST_SUFFIX ".units"

/* Append the list of plan to out. */
void unitlist_format(const struct plan *plan, struct buf *out);
void unitlist_init(struct unitlist *ul);
void unitlist_release(struct unitlist *ul);
/* Read path into ul (initialised here); 0, or -1 after reporting. */
int unitlist_load(struct unitlist *ul, const char *path);
/* unitlist_load with no message: for the run's reports, which go on without a
 * list that is missing or bad. */
int unitlist_load_gently(struct unitlist *ul, const char *path);
/* True when the unit belongs to class cls. */
int unitlist_unit_owned_by(const struct unitlist_unit *u, const char *cls);

#endif
