/* closure: the files a compile unit can read through #include, with their digests. */
#ifndef KWARM_CLOSURE_H
#define KWARM_CLOSURE_H

#include "buf.h"
#include "key/digest.h"
#include "key/filehash.h"
#include "hashmap.h"
#include "strvec.h"

#include <stddef.h>

struct batchread;

/*
 * The per-process memo shared by every unit of a run. File contents (digests and
 * #include directives) are re-validated by stat on each use, so an edited file is
 * seen, unless snapshot is set; whether a file or folder exists is asked once per
 * cache, because one run looks at one tree and the generated Makefile watches the
 * searched folders.
 */
struct closure_cache {
	struct hashmap scans;	/* absolute path -> scanned file (private to closure.c) */
	struct hashmap probes;	/* absolute path -> what stat found (private to closure.c) */
	struct hashmap tools;	/* program as given -> its resolution and identity (private to toolid.c) */
	struct hashmap listings;	/* absolute folder -> its files (private to incdirs.c) */
	struct hashmap resolutions;	/* -I list -> what it decides (private to incdirs.c) */
	struct filehash files;	/* digests of files that are not scanned (compilers) */
	unsigned long reads;	/* files read and scanned so far (the memo's misses) */
	char env_hex[DIGEST_HEX_SIZE];	/* the steering variables' digest, or "" (unitkey.c) */
	/* The folders the include path's variables add, read once (unitkey.c). */
	struct strvec env_dirs;
	int env_dirs_read;
	const char *tool_memo_dir;	/* where toolid keeps identities across processes, or NULL */
	struct buf *why;	/* where a key's errors go (error_to), NULL: on stderr */
	/* Read each file and tool at most once and trust it for the cache's
	 * life: gen plans from one view of the tree, and no unit pays a stat
	 * for the header that every unit includes. */
	int snapshot;
	/* The cache's entry names under units/, listed once an entry was
	 * found absent (private to reads.c). */
	int entry_missed;	/* a cache entry was found absent */
	int entries_listed;	/* 0 not yet, 1 listed, -1 cannot be listed whole */
	struct hashmap entries;	/* "<k0>/<name>" -> (void *)1 */
	struct buf data;	/* the file being read (its room is reused) */
	/* A snapshot's reader of many sources at once (batchread.h), made at
	 * the first closure_prefetch; NULL when there is none to be had. */
	struct batchread *batch;
	int batch_tried;
};

struct closure_file {
	char *path;			/* compiler-visible */
	char hex[DIGEST_HEX_SIZE];	/* SHA-256 of the content */
};

struct closure {
	struct closure_file *files;	/* first-visit DFS order from the sources in order */
	size_t nr, alloc;
	/* One line per directive of each file: "FROM\tKIND\tNAME\tRESOLVED", with
	 * KIND quote, angle, quote-next, angle-next, has-quote, has-angle (a
	 * __has_include probe) or macro (NAME is then the
	 * directive's text) and RESOLVED empty when the name did not resolve. */
	struct strvec edges;
	struct strvec dirs;	/* searched folders, compiler-visible, sorted, unique */
	int unkeyed;	/* CLOSURE_CLOCK, CLOSURE_MTIME, CLOSURE_ASM_FILE, CLOSURE_PCH_DIR */
	char *macro_at;	/* "FILE:LINE" of the first #include by a macro, or NULL */
};

/* __DATE__ or __TIME__ (the time the compiler runs, or SOURCE_DATE_EPOCH), and
 * __TIMESTAMP__ (a file's mtime): no digest of content covers what they give. */
#define CLOSURE_CLOCK 1
#define CLOSURE_MTIME 2
/* .incbin or .include (in an asm statement, say): the assembler reads a file
 * that no compiler's dependency output lists. */
#define CLOSURE_ASM_FILE 4
/* A folder NAME.gch beside a header NAME: gcc may take any valid file in it. */
#define CLOSURE_PCH_DIR 8

void closure_cache_init(struct closure_cache *cc);
void closure_cache_release(struct closure_cache *cc);

/* Compute the closure of sources (compiler-visible: relative to root, or absolute)
 * with the -I dirs in order (as passed to the compiler); root is absolute.
 * Initialises out. 0, or -1 after an error naming the source (or header) that
 * cannot be read; a header name that does not resolve is an edge, not an error. */
int closure_compute(struct closure_cache *cc, const char *root, const struct strvec *sources,
		    const struct strvec *include_dirs, struct closure *out);
void closure_release(struct closure *c);
/* In a snapshot, read and scan the files of paths (compiler-visible, as
 * closure_compute takes sources) that cc has not read yet, many per system
 * call: a closure computed next finds them read. What cannot be read so is
 * left to that closure, which reads it alone and says what is wrong. */
void closure_prefetch(struct closure_cache *cc, const char *root, const struct strvec *paths);
/* No more reading ahead: give back the reader's room (the memo stays). */
void closure_prefetch_end(struct closure_cache *cc);
/* What is at abs (memoized in cc as the scanner's own probes): */
#define CLOSURE_NONE 1	/* nothing, or a path through a non-folder */
#define CLOSURE_FILE 2	/* a file (stat follows links) */
#define CLOSURE_DIR 3	/* a folder */
int closure_probe(struct closure_cache *cc, const char *abs);
/* When the scanner read the file at abs in cc (and its stamp still holds),
 * append its lookups, one "KIND\tNAME" per #include, #include_next or
 * __has_include line (KIND as in the edges), to out: 1; else 0. */
int closure_scanned_lookups(struct closure_cache *cc, const char *abs, struct strvec *out);
/* Append the lookups of a file whose bytes are data, as above. */
void closure_text_lookups(const char *data, size_t len, struct strvec *out);
/* Feed the closure into d canonically (files with their digests, then edges). */
void closure_digest(const struct closure *c, struct digest *d);
/* Every folder where a new file could change how a name resolves
 * (compiler-visible, sorted, unique, existing): the Makefile depends on them.
 * Owned by c. */
const struct strvec *closure_searched_dirs(const struct closure *c);

#endif
