/* layout: the ChipCallable byte image of a packed callable
 * (/work/shared/CALLABLE_LAYOUT.md; the format is described in layout.c). */
#ifndef KWARM_LAYOUT_H
#define KWARM_LAYOUT_H

#include "buf.h"

#include <stddef.h>
#include <stdint.h>

/* Capacities. */
#define LAYOUT_CHIP_SIG_MAX 256
#define LAYOUT_CORE_SIG_MAX 32
#define LAYOUT_CHILDREN_MAX 1024
#define LAYOUT_NAME_SIZE 64		/* NUL included: at most 63 bytes of text */
#define LAYOUT_ALIGN 64
#define LAYOUT_BINARY_MAX UINT32_MAX

/* ChipCallable header: byte offsets of its fields. */
#define LAYOUT_OFF_SIGNATURE 0
#define LAYOUT_OFF_SIG_COUNT 1024
#define LAYOUT_OFF_BINARY_SIZE 1028
#define LAYOUT_OFF_FUNC_NAME 1032
#define LAYOUT_OFF_FUNC_NAME_LEN 1096
#define LAYOUT_OFF_CHILD_FUNC_IDS 1100
#define LAYOUT_OFF_CHILD_OFFSETS 5196
#define LAYOUT_OFF_CHILD_COUNT 9292
#define LAYOUT_OFF_CONFIG_NAME 9296
#define LAYOUT_OFF_CONFIG_NAME_LEN 9360
#define LAYOUT_HEADER_SIZE 9376		/* storage starts here */

/* CoreCallable child header: byte offsets of its fields. */
#define LAYOUT_CHILD_OFF_SIGNATURE 0
#define LAYOUT_CHILD_OFF_SIG_COUNT 128
#define LAYOUT_CHILD_OFF_BINARY_SIZE 132
#define LAYOUT_CHILD_OFF_RESOLVED_ADDR 136
#define LAYOUT_CHILD_HEADER 192		/* the kernel binary starts here */

/* Argument directions (int32 in the image). */
enum layout_dir { LAYOUT_SCALAR = 0, LAYOUT_IN = 1, LAYOUT_OUT = 2, LAYOUT_INOUT = 3 };

struct layout_child {
	int32_t func_id;
	const int *sig;		/* sig_count directions */
	int sig_count;
	const void *bin;	/* the kernel binary, size bytes */
	uint64_t size;
	const char *name;	/* unit name, for messages */
};

struct layout_callable {
	const char *what;	/* "class TestX" or "class TestX, callable y": prefix of every message */
	const int *sig;
	int sig_count;
	const char *func_name, *config_name;	/* config_name may be NULL (empty) */
	const void *orch_bin;
	uint64_t orch_size;
	const struct layout_child *children;
	size_t nr_children;
};

/* Check every limit and set *size to the image size; 0, or -1 after reporting
 * the first violation (naming the class, callable and unit) to why (error_to:
 * NULL is stderr). Reads no binary. */
int layout_check(const struct layout_callable *c, uint64_t *size, struct buf *why);
/* Append the whole image to out; 0, or -1 after reporting to why (out then
 * unchanged). */
int layout_build(const struct layout_callable *c, struct buf *out, struct buf *why);

#endif
