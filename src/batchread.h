/* batchread: read many small files whole with a few system calls (io_uring).
 *
 * gen reads every unit's source once: at 100k units, open, read, read to the
 * end and close cost 400k system calls, about a microsecond each in a VM
 * before any work. Handed to the kernel in batches, they cost two calls per
 * batch. A file is given whole or not at all: what is not (it could not be
 * opened or read, or is larger than the room) the caller reads its own way,
 * which also says why. */
#ifndef KWARM_BATCHREAD_H
#define KWARM_BATCHREAD_H

#include <stddef.h>

/* Files per batch, and the largest file a batch reads (bytes). */
#define BATCHREAD_FILES 32
#define BATCHREAD_ROOM 65536

struct batchread;

struct batchread_file {
	const char *path;	/* in: the file to read (opened as given) */
	const char *data;	/* out: its bytes (room of the reader's, good until the next
				 * batch), NUL-terminated; NULL when not read whole */
	size_t len;
};

/* A reader, or NULL when this kernel or its settings give no io_uring (the
 * caller reads one file at a time) or KWARM_IO_URING=0 says not to. */
struct batchread *batchread_new(void);
void batchread_free(struct batchread *br);
/* Read files[0..n) (n at most BATCHREAD_FILES). */
void batchread_run(struct batchread *br, struct batchread_file *files, size_t n);

#endif
