/* toolid: a compiler's identity, from what exec would run, without running it. */
#ifndef KWARM_TOOLID_H
#define KWARM_TOOLID_H

#include "key/closure.h"
#include "key/digest.h"

/* Resolve program (PATH lookup for a bare name, root for a relative path: the
 * compile runs there) and compute its identity: SHA-256 over the resolved
 * path, its realpath and the binary's content digest. Memoized in cc. The
 * resolved absolute path (cc's, valid while cc is), or NULL after an error
 * naming the compiler. */
const char *toolid_get(struct closure_cache *cc, const char *root, const char *program,
		       char hex[DIGEST_HEX_SIZE]);
/* The file exec runs for program (its links resolved), known with its
 * identity (memoized as toolid_get's): no resolving per compile step. cc's;
 * NULL, not reported, when it cannot be read. */
const char *toolid_target(struct closure_cache *cc, const char *root, const char *program);

#endif
