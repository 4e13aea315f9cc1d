/* planfile: the plan's side file, which gen writes beside the Makefile
 * (MAKEFILE.plan) for the steps that cannot parse the Makefile: what a unit's
 * compile reports (by key), what a pack packs, and what a run's reports count.
 * Each step reads only its part: a compile binary-searches the index, then
 * reads the lines of the callables its unit is in (their offsets are on its
 * line) to pack one whose units are all there (packnow.h); a pack reads its
 * own callable's section (its recipe says where); the reports read the unit
 * list.
 *
 *   kwarm-plan 3 <list at> <index at> <units>\n   17 digits each: 67 bytes
 *   callable sections, in spec order, each:
 *     <pack description>                         packdesc.h; the callable key
 *                                                is its SHA-256
 *     unit <unit key> <n>                        the compile record of each
 *     <word>                                     distinct unit of the callable:
 *                                                n lines, the words of its
 *                                                `kwarm compile` recipe only it
 *                                                has (plan_unit_walk_words:
 *                                                "--" and the command last)
 *   the unit list, at <list at>:
 *     common <bytes>                             the options every unit's
 *     <word>                                     compile recipe has alike
 *                                                (plan_common_words): bytes
 *                                                of word lines
 *     class <name>                               spec order
 *     callable <ckey> <class> <stamp path>       spec order; the stamp path
 *                                                OUT/.kwarm/stamps/<output
 *                                                below OUT>/<ckey>
 *     unit <key> <owner,owner...> <id>\t<label>  plan order
 *   the index, at <index at>:
 *     <key> <offset, 10 digits>\n                76 bytes each, sorted by key:
 *                                                where the unit's line lies
 *
 * A unit's whole recipe (after "compile", less the run's report options) is
 * the common words, --key, --unit, --id and --owners from its unit line, then
 * its record: each written once (version 2 wrote them all in every record: a
 * plan of 100k units was 80 MB). Words, ids and labels are one line each
 * (newlines become '?'; in ids and labels tabs too): they come from spec names and paths. The owners list is a
 * strvec in memory, joined and split only by planfile_add_owners and
 * planfile_split_owners wherever it is written down: here, on a unit's
 * --owners, in the run's events (events.h).
 */
#ifndef KWARM_PLANFILE_H
#define KWARM_PLANFILE_H

#include "buf.h"
#include "sink.h"
#include "key/digest.h"
#include "strvec.h"

#include <stdint.h>
#include <sys/types.h>

/* Appended to the Makefile's path: the side file's path. */
#define PLANFILE_SUFFIX ".plan"

/* Where a callable's section lies: its description, len bytes at offset, then
 * cmds_len bytes of its units' records. */
struct planfile_ref {
	const char *file;
	uint64_t offset, len;
	uint64_t cmds_len;
};

struct planfile_slot;

struct planfile_writer {
	struct sink *out;		/* the file, written as it is made */
	uint64_t header_at;		/* where it begins in out */
	uint64_t list_at;		/* where the unit list begins in out, 0 before */
	struct planfile_slot *slots;	/* each unit line's key and place in list */
	size_t nr_slots, alloc_slots;
	uint64_t *callable_at;		/* each callable line's place in out */
	size_t nr_callables, alloc_callables;
	uint64_t *packs;		/* every unit's packs, one array */
	size_t nr_packs, alloc_packs;
};

/* Write the file into out (sink.h): every section before the unit list. */
void planfile_writer_init(struct planfile_writer *w, struct sink *out);
void planfile_writer_release(struct planfile_writer *w);
/* The unit list, each kind in its order (classes, callables, units), after
 * every callable's section. */
void planfile_add_class(struct planfile_writer *w, const char *name);
void planfile_add_callable(struct planfile_writer *w, const char *ckey, const char *cls,
			   const char *stamp, const struct planfile_ref *ref);
/* packs: the indexes (in planfile_add_callable's order) of the nr_packs
 * callables whose descriptions name the unit. */
void planfile_add_unit(struct planfile_writer *w, const char *key, const struct strvec *owners,
		       const char *id, const char *label, const size_t *packs, size_t nr_packs);
/* A callable's section: its description, then planfile_add_record for each of
 * its distinct units, then planfile_end_pack; ref (its file left alone) says
 * where it lies. */
void planfile_begin_pack(struct planfile_writer *w, const char *desc, struct planfile_ref *ref);
/* The common words, after every section, before the unit list (none when
 * not called). */
void planfile_add_common(struct planfile_writer *w, const char *const *words, size_t nr);
void planfile_add_record(struct planfile_writer *w, const char *key, const char *const *words,
			 size_t nr);
void planfile_end_pack(struct planfile_writer *w, struct planfile_ref *ref);
/* Write the index and the header: the file is whole in out. */
void planfile_finish(struct planfile_writer *w);

/* The stamp path of callable ckey whose output is out_path, below out_dir
 * (caller frees). */
char *planfile_stamp_path(const char *out_dir, const char *out_path, const char *ckey);
/* The output a stamp path stands for (caller frees), or NULL when stamp is
 * not one. */
char *planfile_stamp_output(const char *stamp);
/* The length of the out_dir a stamp path is below, or -1 when stamp is not
 * one (its stamps folder is out_dir's .kwarm/stamps/). */
ssize_t planfile_stamp_out_len(const char *stamp);

/* A unit's owners (its classes) as every file that writes them down spells
 * them, "A,B": added to b, and split into owners (added to it). */
void planfile_add_owners(struct buf *b, const struct strvec *owners);
void planfile_split_owners(struct strvec *owners, const char *s);

/* A unit of the list. */
struct unitlist_unit {
	char key[DIGEST_HEX_SIZE];
	struct strvec owners;		/* class names */
	char *id, *label;
	uint64_t *packs;		/* where its callables' lines lie */
	size_t nr_packs;
	size_t packs_at;		/* in a list: packs' place in its packs */
};

struct unitlist_callable {
	char ckey[DIGEST_HEX_SIZE];
	uint64_t at, len, cmds;		/* its section (planfile_ref) */
	char *cls;
	char *stamp;			/* plan_callable's stamp_path: present when packed */
};

struct unitlist {
	struct strvec classes;
	struct unitlist_unit *units;
	size_t nr_units, alloc_units;
	struct unitlist_callable *callables;
	size_t nr_callables, alloc_callables;
	uint64_t *packs;		/* every unit's packs, one array */
	size_t nr_packs, alloc_packs;
};

/* Read the unit list of the side file at path into ul (initialised here); 0,
 * or -1 with no message: the run's reports go on without a list that is
 * missing or bad. */
int unitlist_load_gently(struct unitlist *ul, const char *path);
void unitlist_release(struct unitlist *ul);
/* True when the unit belongs to class cls. */
int unitlist_unit_owned_by(const struct unitlist_unit *u, const char *cls);

/* Find key in the index of the side file at path: 1 (u filled; release it
 * with unitlist_unit_release), 0 when it is not there, -1 after reporting
 * (the file cannot be read or is not a side file). */
int planfile_lookup(const char *path, const char *key, struct unitlist_unit *u);
void unitlist_unit_release(struct unitlist_unit *u);
/* Read the callable lines at ats[0..n) (a unit's packs) of the side file at
 * path into cs[0..n); 0, or -1 with no message (nothing to release then). */
int planfile_read_callables(const char *path, const uint64_t *ats, size_t n,
			    struct unitlist_callable *cs);
void unitlist_callable_release(struct unitlist_callable *c);

/* Call fn(i, key, data) with each unit key of the i-th callable's section
 * (spec order, as the list's callables) in the side file at path: the keys of
 * its compile records. 0, or -1 with no message (a missing or bad file). */
int planfile_each_pack_unit(const char *path,
			    void (*fn)(size_t i, const char *key, void *data), void *data);

/* The len bytes at offset of path, NUL-terminated (caller frees *text); 0, or
 * -1 after reporting to why (error_to; what names them in the message). */
int planfile_read(const char *path, uint64_t offset, uint64_t len, const char *what,
		  char **text, struct buf *why);
/* Find unit key's record in a callable's records (text, NUL-terminated line
 * by line here) and push its words; 0, or -1 when absent or malformed. */
int planfile_find_record(char *text, const char *key, struct strvec *words);
/* Unit key's whole recipe words (see the top) pushed onto words, its record
 * found in records (a callable's, as for planfile_find_record) of the side
 * file at path; 0, or -1 when something is absent or malformed. */
int planfile_compile_words(const char *path, char *records, const char *key,
			   struct strvec *words);

#endif
