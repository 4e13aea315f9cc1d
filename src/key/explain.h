/* explain: why a unit would compile, in words (kwarm explain). The current
 * state of the unit (its key and what the key covers) is set against the
 * entry the cache last held for it: the entry of its base key, the last entry
 * compiled for that base, or else the newest entry of the same unit (by its
 * id, recorded in each entry's manifest). */
#ifndef KWARM_EXPLAIN_H
#define KWARM_EXPLAIN_H

#include "buf.h"
#include "cache/cache.h"
#include "plan/plan.h"

/* Add to out a paragraph on unit u of a plan built over cache: whether it
 * would compile and why. 0, or -1 after reporting (its key cannot be made). */
int explain_unit(struct closure_cache *cc, const struct cache *cache,
		 const struct plan_unit *u, struct buf *out);

#endif
