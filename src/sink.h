/* sink: a file written as it is made: text gathers in a buffer that goes to a
 * publish temp (publish.h) whenever it holds SINK_CHUNK bytes, so that a large
 * file never sits in memory whole. Nothing appears under the final name before
 * sink_commit; sink_release removes the temp.
 *
 * A sink without a temp (sink_init only) keeps everything in its buffer: what
 * a test or the fuzzer reads back.
 */
#ifndef KWARM_SINK_H
#define KWARM_SINK_H

#include "buf.h"
#include "publish.h"

#include <stdint.h>

#define SINK_CHUNK (256 * 1024)

struct sink {
	struct buf b;		/* made, not yet written */
	uint64_t written;	/* bytes already in the temp */
	struct publish pub;
	int to_file;		/* begun on a temp */
	int failed;		/* a write failed (reported): the rest is dropped */
};

void sink_init(struct sink *s);
/* Init s onto a temp of final; 0, or -1 after reporting. */
int sink_begin(struct sink *s, const char *final);
/* Where the next byte goes in the file. */
static inline uint64_t sink_tell(const struct sink *s)
{
	return s->written + s->b.len;
}
/* Write the buffer out when it holds SINK_CHUNK bytes or more. */
void sink_flush(struct sink *s);
/* Overwrite len bytes at offset (before sink_tell) with data. */
void sink_patch(struct sink *s, uint64_t offset, const void *data, size_t len);
/* Write the rest to the temp; 0, or -1 when a write failed (reported). */
int sink_finish(struct sink *s);
/* Write the rest and publish under the final name; 0, or -1 after reporting
 * (the temp removed). */
int sink_commit(struct sink *s);
/* Drop the buffer and remove the temp, if any. Idempotent. */
void sink_release(struct sink *s);

#endif
