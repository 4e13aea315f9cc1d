/* packdesc: a callable's pack description, the text its callable key is the
 * SHA-256 of. gen writes it (while planning: the key names the callable's
 * stamp) into the plan side file (planfile.h); the pack step reads it back
 * and checks it against the key:
 *
 *   kwarm-pack 1
 *   layout 1
 *   what <class TestX[, callable y]>
 *   runtime <label>
 *   func_name <text>
 *   config_name <text>
 *   sig <d,d,...|->
 *   orch <unit key> <label>
 *   child <func_id> <unit key> <d,d,...|-> <label>      (one per incore, in order)
 *
 * Everything that can change the packed bytes is in it, so the callable key
 * covers units' keys, func_ids, signatures, order, names and the runtime.
 */
#ifndef KWARM_PACKDESC_H
#define KWARM_PACKDESC_H

#include "buf.h"
#include "key/digest.h"
#include "spec/spec.h"

#include <stdint.h>

struct packdesc_item {
	char key[DIGEST_HEX_SIZE];
	char *label;
	int32_t func_id;		/* children only */
	int sig[SPEC_CHIP_SIG_MAX];
	int sig_count;
};

struct packdesc {
	char *what, *func_name, *config_name;
	int sig[SPEC_CHIP_SIG_MAX];
	int sig_count;
	struct packdesc_item orch;
	struct packdesc_item *children;	/* in order */
	size_t nr_children, alloc_children;
};

/* Writing, in this order: the head, the orchestration, each child. */
void packdesc_add_head(struct buf *b, const char *what, const char *runtime,
		       const char *func_name, const char *config_name, const int *sig, int n);
void packdesc_add_orch(struct buf *b, const char *key, const char *label);
void packdesc_add_child(struct buf *b, int func_id, const char *key, const int *sig, int n,
			const char *label);

/* Parse text (NUL-terminated; changed in place) into d, initialised here
 * (release it either way); 0, or -1 when it is not a whole description. */
int packdesc_parse(char *text, struct packdesc *d);
void packdesc_release(struct packdesc *d);
/* Where the unit key an orch or child line names begins (64 hex digits, not
 * NUL-terminated), or NULL for any other line: for a reader of a part. */
const char *packdesc_line_key(const char *line);

#endif
