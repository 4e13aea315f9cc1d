/* Unit tests of layout: the ChipCallable image, byte for byte. */
#include "check.h"
#include "buf.h"
#include "pack/layout.h"
#include "util.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define WHAT "class TestX, callable y"

static char *tmpdir;

/* The test's own little-endian writer and reader, independent of layout.c. */
static void w32(unsigned char *img, size_t off, uint32_t v)
{
	size_t i;

	for (i = 0; i < 4; i++)
		img[off + i] = (unsigned char)((v >> (8 * i)) & 0xff);
}

static uint32_t r32(const char *img, size_t off)
{
	const unsigned char *p = (const unsigned char *)img + off;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Run layout_check or layout_build with stderr captured; returns its result
 * and the captured text in *msg (caller frees). */
static int captured(const struct layout_callable *c, struct buf *out, uint64_t *size, char **msg)
{
	int ret;

	check_capture_begin(2);
	ret = out ? layout_build(c, out, NULL) : layout_check(c, size, NULL);
	*msg = check_capture_end(2);
	return ret;
}

/* A failing check and a failing build, both naming every word of want[]
 * in one line, and the build leaving out untouched. */
static void expect_error(const struct layout_callable *c, const char *const *want, size_t nr)
{
	struct buf out = BUF_INIT;
	uint64_t size = 12345;
	char *msg;
	size_t i;

	CHECK_INT(captured(c, NULL, &size, &msg), -1);
	CHECK_INT(size, 12345);
	CHECK(starts_with(msg, "kwarm: error: " WHAT));
	CHECK_INT(strchr(msg, '\n') - msg + 1, (long long)strlen(msg));
	for (i = 0; i < nr; i++)
		if (!CHECK(strstr(msg, want[i])))
			fprintf(stderr, "  message '%s' lacks '%s'\n", msg, want[i]);
	free(msg);

	buf_adds(&out, "keep");
	CHECK_INT(captured(c, &out, NULL, &msg), -1);
	CHECK_HAS(msg, "kwarm: error: " WHAT);
	CHECK_INT(out.len, 4);
	CHECK_STR(out.s, "keep");
	free(msg);
	buf_release(&out);
}

static void expect_ok(const struct layout_callable *c, uint64_t want_size)
{
	uint64_t size = 0;
	char *msg;

	CHECK_INT(captured(c, NULL, &size, &msg), 0);
	CHECK_STR(msg, "");
	CHECK_INT(size, want_size);
	free(msg);
}

static void test_worked_example(void)
{
	static const int orch_sig[] = { LAYOUT_IN, LAYOUT_OUT };
	static const int sig7[] = { LAYOUT_IN };
	unsigned char orch[100], bin7[10], bin3[1];
	unsigned char *want;
	struct layout_child children[2];
	struct layout_callable c;
	struct buf out = BUF_INIT;
	uint64_t size = 0;
	size_t i;

	for (i = 0; i < sizeof(orch); i++)
		orch[i] = (unsigned char)(i * 7 + 1);
	for (i = 0; i < sizeof(bin7); i++)
		bin7[i] = (unsigned char)(0xa0 + i);
	bin3[0] = 0xee;

	memset(children, 0, sizeof(children));
	children[0].func_id = 7;
	children[0].sig = sig7;
	children[0].sig_count = 1;
	children[0].bin = bin7;
	children[0].size = sizeof(bin7);
	children[0].name = "k7";
	children[1].func_id = 3;
	children[1].bin = bin3;
	children[1].size = 1;
	children[1].name = "k3";
	memset(&c, 0, sizeof(c));
	c.what = WHAT;
	c.sig = orch_sig;
	c.sig_count = 2;
	c.func_name = "entry";
	c.config_name = "";
	c.orch_bin = orch;
	c.orch_size = sizeof(orch);
	c.children = children;
	c.nr_children = 2;

	/* The expected image, straight from CALLABLE_LAYOUT.md's tables. */
	want = calloc(1, 9953);
	w32(want, 0, 1);
	w32(want, 4, 2);
	w32(want, 1024, 2);
	w32(want, 1028, 100);
	memcpy(want + 1032, "entry", 5);
	w32(want, 1096, 5);
	w32(want, 1100, 7);
	w32(want, 1104, 3);
	w32(want, 5196, 128);
	w32(want, 5200, 384);
	w32(want, 9292, 2);
	w32(want, 9360, 0);
	memcpy(want + 9376, orch, 100);
	/* child 0 at storage 128 */
	w32(want, 9376 + 128 + 0, 1);
	w32(want, 9376 + 128 + 128, 1);
	w32(want, 9376 + 128 + 132, 10);
	memcpy(want + 9376 + 128 + 192, bin7, 10);
	/* child 1 at storage 384 */
	w32(want, 9376 + 384 + 128, 0);
	w32(want, 9376 + 384 + 132, 1);
	want[9376 + 384 + 192] = 0xee;

	CHECK_INT(layout_check(&c, &size, NULL), 0);
	CHECK_INT(size, 9953);

	buf_adds(&out, "pre");
	CHECK_INT(layout_build(&c, &out, NULL), 0);
	CHECK_INT(out.len, 3 + 9953);
	CHECK(!memcmp(out.s, "pre", 3));
	if (out.len == 3 + 9953) {
		const char *img = out.s + 3;
		size_t first_diff = 9953;

		for (i = 0; i < 9953; i++)
			if ((unsigned char)img[i] != want[i]) {
				first_diff = i;
				break;
			}
		CHECK_INT(first_diff, 9953);
		/* Field by field too, so a failure says which one. */
		CHECK_INT(r32(img, 0), 1);
		CHECK_INT(r32(img, 4), 2);
		CHECK_INT(r32(img, 8), 0);
		CHECK_INT(r32(img, 1024), 2);
		CHECK_INT(r32(img, 1028), 100);
		CHECK(!memcmp(img + 1032, "entry\0", 6));
		CHECK_INT(r32(img, 1096), 5);
		CHECK_INT(r32(img, 1100), 7);
		CHECK_INT(r32(img, 1104), 3);
		CHECK_INT(r32(img, 1108), 0);
		CHECK_INT(r32(img, 5196), 128);
		CHECK_INT(r32(img, 5200), 384);
		CHECK_INT(r32(img, 5204), 0);
		CHECK_INT(r32(img, 9292), 2);
		CHECK_INT(img[9296], 0);
		CHECK_INT(r32(img, 9360), 0);
		CHECK_INT(r32(img, 9376 + 128 + 128), 1);
		CHECK_INT(r32(img, 9376 + 128 + 132), 10);
		CHECK_INT(r32(img, 9376 + 384 + 132), 1);
		CHECK_INT((unsigned char)img[9952], 0xee);
	}
	free(want);
	buf_release(&out);
}

static void test_no_children(void)
{
	static const char orch[] = "0123456789abcdefghij";	/* 20 bytes + NUL */
	struct layout_callable c;
	struct buf out = BUF_INIT;
	size_t i;
	int zero_header = 1;

	memset(&c, 0, sizeof(c));
	c.what = WHAT;
	c.func_name = "f";
	c.config_name = NULL;
	c.orch_bin = orch;
	c.orch_size = 21;
	expect_ok(&c, 9376 + 21);
	CHECK_INT(layout_build(&c, &out, NULL), 0);
	CHECK_INT(out.len, 9376 + 21);
	if (out.len == 9376 + 21) {
		CHECK_INT(r32(out.s, 1024), 0);
		CHECK_INT(r32(out.s, 1028), 21);
		CHECK_INT(r32(out.s, 1096), 1);
		CHECK_INT(r32(out.s, 9292), 0);
		CHECK(!memcmp(out.s + 9376, orch, 21));
		/* Everything but binary_size, func_name and its length is zero. */
		for (i = 0; i < 9376; i++) {
			if ((i >= 1028 && i < 1032) || i == 1032 || i == 1096)
				continue;
			if (out.s[i])
				zero_header = 0;
		}
		CHECK(zero_header);
	}
	buf_release(&out);
}

static void test_names(void)
{
	char name63[64], name64[65];
	struct layout_callable c;
	struct buf out = BUF_INIT;
	const char *want_func[] = { "function name", name64, "63" };
	const char *want_config[] = { "config name", name64 };
	size_t i;
	int zero = 1;

	memset(name63, 'a', 63);
	name63[63] = '\0';
	memset(name64, 'b', 64);
	name64[64] = '\0';
	memset(&c, 0, sizeof(c));
	c.what = WHAT;
	c.func_name = name63;
	c.config_name = "";
	expect_ok(&c, 9376);
	CHECK_INT(layout_build(&c, &out, NULL), 0);
	CHECK_INT(out.len, 9376);
	if (out.len == 9376) {
		CHECK(!memcmp(out.s + 1032, name63, 63));
		CHECK_INT(out.s[1032 + 63], 0);
		CHECK_INT(r32(out.s, 1096), 63);
		for (i = 9296; i < 9376; i++)
			if (out.s[i])
				zero = 0;
		CHECK(zero);	/* empty config_name: no text, length 0 */
	}
	buf_reset(&out);

	c.config_name = name63;
	CHECK_INT(layout_build(&c, &out, NULL), 0);
	if (out.len == 9376) {
		CHECK(!memcmp(out.s + 9296, name63, 63));
		CHECK_INT(out.s[9296 + 63], 0);
		CHECK_INT(r32(out.s, 9360), 63);
	}
	buf_release(&out);

	c.func_name = name64;
	c.config_name = "";
	expect_error(&c, want_func, ARRAY_SIZE(want_func));
	c.func_name = "entry";
	c.config_name = name64;
	expect_error(&c, want_config, ARRAY_SIZE(want_config));
}

static void test_signatures(void)
{
	static int sig[300], core_sig[40];
	struct layout_child child;
	struct layout_callable c;
	struct buf out = BUF_INIT;
	const char *want_chip[] = { "signature", "257", "256" };
	const char *want_core[] = { "incore 'copy_hidden'", "signature", "33", "32" };
	const char *want_dir[] = { "incore 'copy_hidden'", "signature entry 5", "7" };
	const char *want_chip_dir[] = { "signature entry 200", "-1" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sig); i++)
		sig[i] = (int)(i % 4);
	for (i = 0; i < ARRAY_SIZE(core_sig); i++)
		core_sig[i] = (int)(i % 4);
	memset(&child, 0, sizeof(child));
	child.func_id = 0;
	child.sig = core_sig;
	child.sig_count = 32;
	child.name = "copy_hidden";
	memset(&c, 0, sizeof(c));
	c.what = WHAT;
	c.func_name = "entry";
	c.sig = sig;
	c.sig_count = 256;
	c.children = &child;
	c.nr_children = 1;
	expect_ok(&c, 9376 + 192);
	CHECK_INT(layout_build(&c, &out, NULL), 0);
	if (out.len == 9376 + 192) {
		CHECK_INT(r32(out.s, 255 * 4), 3);
		CHECK_INT(r32(out.s, 1024), 256);
		CHECK_INT(r32(out.s, 9376 + 31 * 4), 3);
		CHECK_INT(r32(out.s, 9376 + 128), 32);
	}
	buf_release(&out);

	c.sig_count = 257;
	expect_error(&c, want_chip, ARRAY_SIZE(want_chip));
	c.sig_count = 256;
	child.sig_count = 33;
	expect_error(&c, want_core, ARRAY_SIZE(want_core));
	child.sig_count = 32;
	core_sig[5] = 7;
	expect_error(&c, want_dir, ARRAY_SIZE(want_dir));
	core_sig[5] = 1;
	sig[200] = -1;
	expect_error(&c, want_chip_dir, ARRAY_SIZE(want_chip_dir));
	sig[200] = 0;
}

static void test_children_limit(void)
{
	struct layout_child *children = calloc(1025, sizeof(*children));
	struct layout_callable c;
	struct buf out = BUF_INIT;
	const char *want[] = { "1025 incores", "1024" };
	size_t i;

	for (i = 0; i < 1025; i++) {
		children[i].func_id = (int32_t)(1000 + i);
		children[i].name = "k";
	}
	memset(&c, 0, sizeof(c));
	c.what = WHAT;
	c.func_name = "entry";
	c.children = children;
	c.nr_children = 1024;
	/* No binaries: every child is its 192-byte header, already aligned. */
	expect_ok(&c, 9376 + 1024 * 192);
	CHECK_INT(layout_build(&c, &out, NULL), 0);
	CHECK_INT(out.len, 9376 + 1024 * 192);
	if (out.len == 9376 + 1024 * 192) {
		CHECK_INT(r32(out.s, 1100 + 1023 * 4), 2023);
		CHECK_INT(r32(out.s, 5196 + 1023 * 4), 1023 * 192);
		CHECK_INT(r32(out.s, 9292), 1024);
	}
	buf_release(&out);
	c.nr_children = 1025;
	expect_error(&c, want, ARRAY_SIZE(want));
	free(children);
}

static void test_binary_limits(void)
{
	struct layout_child child[2];
	struct layout_callable c;
	const char *want_orch[] = { "orchestration binary", "4294967296", "4294967295" };
	const char *want_core[] = { "incore 'big_kernel'", "4294967296", "4294967295" };
	const char *want_off[] = { "incore 'late'", "offset", "4294967296" };
	const char *want_unnamed[] = { "incore 'func_id 42'", "4294967296" };

	/* Only sizes are looked at before the checks pass: no binaries needed. */
	memset(child, 0, sizeof(child));
	child[0].name = "small";
	child[1].name = "big_kernel";
	memset(&c, 0, sizeof(c));
	c.what = WHAT;
	c.func_name = "entry";
	c.orch_size = 1ULL << 32;
	expect_error(&c, want_orch, ARRAY_SIZE(want_orch));

	c.orch_size = UINT32_MAX;
	expect_ok(&c, 9376 + (uint64_t)UINT32_MAX);

	/* The largest binary that fits; its child's offset still fits. */
	c.orch_size = 0;
	c.children = child;
	c.nr_children = 2;
	child[1].size = UINT32_MAX;
	expect_ok(&c, 9376 + 192 + 192 + (uint64_t)UINT32_MAX);
	child[1].size = 1ULL << 32;
	expect_error(&c, want_core, ARRAY_SIZE(want_core));

	/* Each binary fits, but child 1 would start at 2^32. */
	child[0].size = UINT32_MAX - 192 - 63;
	child[1].size = 0;
	child[1].name = "late";
	c.orch_size = 64;
	expect_error(&c, want_off, ARRAY_SIZE(want_off));
	c.orch_size = 0;
	expect_ok(&c, 9376 + 4294967232ULL + 192);

	child[0].size = 0;
	child[1].name = NULL;
	child[1].func_id = 42;
	child[1].size = 1ULL << 32;
	expect_error(&c, want_unnamed, ARRAY_SIZE(want_unnamed));
}

/* Every byte of an int32 lands in its place, sign included. */
static void test_byte_order(void)
{
	static const unsigned char want_neg[4] = { 0xfe, 0xff, 0xff, 0xff };
	static const unsigned char want_big[4] = { 0x12, 0x34, 0x56, 0x7f };
	struct layout_child child[2];
	struct layout_callable c;
	struct buf out = BUF_INIT;

	memset(child, 0, sizeof(child));
	child[0].func_id = -2;
	child[1].func_id = 0x7f563412;
	memset(&c, 0, sizeof(c));
	c.what = WHAT;
	c.func_name = "entry";
	c.children = child;
	c.nr_children = 2;
	CHECK_INT(layout_build(&c, &out, NULL), 0);
	CHECK_INT(out.len, 9376 + 2 * 192);
	if (out.len == 9376 + 2 * 192) {
		CHECK(!memcmp(out.s + 1100, want_neg, 4));
		CHECK(!memcmp(out.s + 1104, want_big, 4));
		CHECK_INT(r32(out.s, 5200), 192);
	}
	buf_release(&out);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("layout");
	TEST(test_worked_example(), "worked_example");
	TEST(test_no_children(), "no_children");
	TEST(test_byte_order(), "byte_order");
	TEST(test_names(), "names");
	TEST(test_signatures(), "signatures");
	TEST(test_children_limit(), "children_limit");
	TEST(test_binary_limits(), "binary_limits");
	free(tmpdir);
	return check_done();
}
