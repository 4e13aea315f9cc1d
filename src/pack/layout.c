/*
 * The ChipCallable image (CALLABLE_LAYOUT.md), all integers little-endian,
 * every byte not named zero:
 *
 *   header, 9376 bytes:
 *        0  int32[256]   signature (directions SCALAR 0, IN 1, OUT 2, INOUT 3)
 *     1024  int32        sig_count
 *     1028  uint32       binary_size of the orchestration binary
 *     1032  char[64]     func_name, NUL-terminated, zero-padded
 *     1096  uint32       func_name_len
 *     1100  int32[1024]  child_func_ids, in child order
 *     5196  uint32[1024] child_offsets, from the start of storage
 *     9292  int32        child_count
 *     9296  char[64]     config_name, NUL-terminated, zero-padded
 *     9360  uint32       config_name_len
 *     9364  12 bytes     zero
 *   storage at 9376: the orchestration binary at 0, then child i at
 *   offset_i = align64(end of the previous item); nothing after the last child.
 *
 *   child (CoreCallable), 192-byte header then the kernel binary:
 *        0  int32[32]    signature
 *      128  int32        sig_count
 *      132  uint32       binary_size
 *      136  uint64       resolved_addr, always 0 in a file
 *      144  48 bytes     zero
 *
 * Each field is put at its offset by hand rather than through a packed struct,
 * so that the bytes do not depend on the compiler's layout or the host's
 * endianness.
 */
#include "pack/layout.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static uint64_t align64(uint64_t x)
{
	return (x + (LAYOUT_ALIGN - 1)) & ~(uint64_t)(LAYOUT_ALIGN - 1);
}

static void put_le32(unsigned char *img, size_t off, uint32_t v)
{
	img[off] = (unsigned char)v;
	img[off + 1] = (unsigned char)(v >> 8);
	img[off + 2] = (unsigned char)(v >> 16);
	img[off + 3] = (unsigned char)(v >> 24);
}

static int check_name(const struct layout_callable *c, const char *field, const char *name,
		      struct buf *why)
{
	size_t len = strlen(name);

	if (len >= LAYOUT_NAME_SIZE)
		return error_to(why, "%s: %s '%s' is %zu bytes, more than %d", c->what, field,
			     name, len, LAYOUT_NAME_SIZE - 1);
	return 0;
}

static int check_sig(const char *what, const char *unit, const int *sig, int count, int max,
		     struct buf *why)
{
	int i;

	if (count < 0 || (count && !sig))
		BUG("%s: bad signature (count %d)", what, count);
	if (count > max)
		return error_to(why, "%s%s%s%s: signature has %d entries, more than %d", what,
			     unit ? ", incore '" : "", unit ? unit : "", unit ? "'" : "",
			     count, max);
	for (i = 0; i < count; i++)
		if (sig[i] < LAYOUT_SCALAR || sig[i] > LAYOUT_INOUT)
			return error_to(why, "%s%s%s%s: signature entry %d is %d, not a direction",
				     what, unit ? ", incore '" : "", unit ? unit : "",
				     unit ? "'" : "", i, sig[i]);
	return 0;
}

int layout_check(const struct layout_callable *c, uint64_t *size, struct buf *why)
{
	uint64_t end;
	size_t i;

	if (check_name(c, "function name", c->func_name ? c->func_name : "", why) ||
	    check_name(c, "config name", c->config_name ? c->config_name : "", why) ||
	    check_sig(c->what, NULL, c->sig, c->sig_count, LAYOUT_CHIP_SIG_MAX, why))
		return -1;
	if (c->nr_children > LAYOUT_CHILDREN_MAX)
		return error_to(why, "%s: %zu incores, more than %d", c->what, c->nr_children,
			     LAYOUT_CHILDREN_MAX);
	if (c->orch_size > LAYOUT_BINARY_MAX)
		return error_to(why, "%s: orchestration binary is %" PRIu64 " bytes, more than %" PRIu32,
			     c->what, c->orch_size, LAYOUT_BINARY_MAX);
	end = c->orch_size;
	for (i = 0; i < c->nr_children; i++) {
		const struct layout_child *ch = &c->children[i];
		char tmp[32];
		const char *unit = ch->name;
		uint64_t off = align64(end);

		if (!unit || !*unit) {
			snprintf(tmp, sizeof(tmp), "func_id %" PRId32, ch->func_id);
			unit = tmp;	/* an unnamed unit: its func_id */
		}
		if (check_sig(c->what, unit, ch->sig, ch->sig_count, LAYOUT_CORE_SIG_MAX, why))
			return -1;
		if (ch->size > LAYOUT_BINARY_MAX)
			return error_to(why, "%s, incore '%s': binary is %" PRIu64 " bytes, more than %" PRIu32,
				     c->what, unit, ch->size, LAYOUT_BINARY_MAX);
		if (off > UINT32_MAX)
			return error_to(why, "%s, incore '%s': storage offset %" PRIu64 " does not fit 32 bits",
				     c->what, unit, off);
		end = off + LAYOUT_CHILD_HEADER + ch->size;
	}
	*size = LAYOUT_HEADER_SIZE + end;
	return 0;
}

static void put_name(unsigned char *img, size_t off, size_t len_off, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (len)
		memcpy(img + off, name, len);
	put_le32(img, len_off, (uint32_t)len);
}

static void add_zeros(struct buf *out, uint64_t n)
{
	static const unsigned char zeros[LAYOUT_ALIGN];

	while (n) {
		size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

		buf_add(out, zeros, k);
		n -= k;
	}
}

/* n signature entries at img (offset 0 of both headers), then their count. */
static void put_sig(unsigned char *img, size_t count_off, const int *sig, int n)
{
	for (int i = 0; i < n; i++)
		put_le32(img, 4 * (size_t)i, (uint32_t)sig[i]);
	put_le32(img, count_off, (uint32_t)n);
}

static void add_child(struct buf *out, const struct layout_child *ch)
{
	unsigned char head[LAYOUT_CHILD_HEADER];

	memset(head, 0, sizeof(head));
	put_sig(head + LAYOUT_CHILD_OFF_SIGNATURE, LAYOUT_CHILD_OFF_SIG_COUNT, ch->sig, ch->sig_count);
	put_le32(head, LAYOUT_CHILD_OFF_BINARY_SIZE, (uint32_t)ch->size);
	/* resolved_addr (8 bytes at LAYOUT_CHILD_OFF_RESOLVED_ADDR) stays 0. */
	buf_add(out, head, sizeof(head));
	if (ch->size)
		buf_add(out, ch->bin, (size_t)ch->size);
}

int layout_build(const struct layout_callable *c, struct buf *out, struct buf *why)
{
	unsigned char *img;
	uint64_t size, end;
	size_t start = out->len, i;

	if (layout_check(c, &size, why))
		return -1;
	if (size > SIZE_MAX - out->len - 1)
		return error_to(why, "%s: image of %" PRIu64 " bytes does not fit in memory", c->what, size);
	if (c->orch_size && !c->orch_bin)
		BUG("%s: no orchestration binary", c->what);
	for (i = 0; i < c->nr_children; i++)
		if (c->children[i].size && !c->children[i].bin)
			BUG("%s: no binary for child %zu", c->what, i);

	/* Room for it all: the header stays where it is while storage goes in. */
	buf_grow(out, (size_t)size);
	add_zeros(out, LAYOUT_HEADER_SIZE);
	img = (unsigned char *)out->s + start;
	put_sig(img + LAYOUT_OFF_SIGNATURE, LAYOUT_OFF_SIG_COUNT, c->sig, c->sig_count);
	put_le32(img, LAYOUT_OFF_BINARY_SIZE, (uint32_t)c->orch_size);
	put_name(img, LAYOUT_OFF_FUNC_NAME, LAYOUT_OFF_FUNC_NAME_LEN, c->func_name);
	put_le32(img, LAYOUT_OFF_CHILD_COUNT, (uint32_t)c->nr_children);
	put_name(img, LAYOUT_OFF_CONFIG_NAME, LAYOUT_OFF_CONFIG_NAME_LEN, c->config_name);
	if (c->orch_size)
		buf_add(out, c->orch_bin, (size_t)c->orch_size);
	end = c->orch_size;
	for (i = 0; i < c->nr_children; i++) {
		uint64_t off = align64(end);

		put_le32(img, LAYOUT_OFF_CHILD_FUNC_IDS + 4 * i, (uint32_t)c->children[i].func_id);
		put_le32(img, LAYOUT_OFF_CHILD_OFFSETS + 4 * i, (uint32_t)off);
		add_zeros(out, off - end);
		add_child(out, &c->children[i]);
		end = off + LAYOUT_CHILD_HEADER + c->children[i].size;
	}
	if (out->len - start != size)
		BUG("%s: image is %zu bytes, want %" PRIu64, c->what, out->len - start, size);
	return 0;
}
