#include "buf.h"
#include "check.h"
#include "util.h"

#include <stdlib.h>

static void test_empty(void)
{
	struct buf b = BUF_INIT;
	struct buf c;
	char *s;

	CHECK_STR(buf_str(&b), "");
	CHECK_INT(b.len, 0);
	buf_init(&c);
	CHECK(c.s == NULL && c.len == 0 && c.alloc == 0);
	/* An unused buf detaches to a fresh empty string the caller owns. */
	s = buf_detach(&c);
	CHECK_STR(s, "");
	free(s);
	/* Adding nothing still leaves a valid string. */
	buf_add(&b, "", 0);
	CHECK(b.s != NULL);
	CHECK_STR(b.s, "");
	CHECK_INT(b.len, 0);
	buf_release(&b);
	CHECK(b.s == NULL && b.len == 0 && b.alloc == 0);
}

static void test_add(void)
{
	struct buf b = BUF_INIT;

	buf_add(&b, "ab", 2);
	buf_adds(&b, "cd");
	buf_addch(&b, 'e');
	CHECK_STR(b.s, "abcde");
	CHECK_INT(b.len, 5);
	/* Binary bytes, NUL included, are kept and the string stays terminated. */
	buf_add(&b, "x\0y", 3);
	CHECK_INT(b.len, 8);
	CHECK(!memcmp(b.s, "abcdex\0y", 8));
	CHECK_INT(b.s[8], 0);
	buf_addf(&b, "[%d:%s:%04x]", -3, "z", 0xbeef);
	CHECK_INT(b.len, 8 + strlen("[-3:z:beef]"));
	CHECK_STR(b.s + 8, "[-3:z:beef]");
	buf_addf(&b, "%s", "");
	CHECK_INT(b.len, 8 + strlen("[-3:z:beef]"));
	buf_release(&b);
}

static void test_addf_long(void)
{
	struct buf b = BUF_INIT;
	char long_text[5001];

	memset(long_text, 'L', 5000);
	long_text[5000] = '\0';
	buf_adds(&b, "head:");
	buf_addf(&b, "%s|%s", long_text, "tail");
	CHECK_INT(b.len, 5 + 5000 + 5);
	CHECK(!strncmp(b.s, "head:", 5));
	CHECK(!strncmp(b.s + 5, long_text, 5000));
	CHECK_STR(b.s + 5005, "|tail");
	CHECK(b.alloc > b.len);
	buf_release(&b);
}

/* Every length around the edge of the room it is formatted into (the spare
 * room, or a stack buffer when that is small), then grown when too small. */
static void test_addf_edges(void)
{
	char text[701];

	memset(text, 'e', 700);
	text[700] = '\0';
	for (int start = 0; start < 140; start += 7)
		for (int n = 0; n <= 700; n += 3) {
			struct buf b = BUF_INIT;

			buf_grow(&b, (size_t)(start % 3) * 300);
			for (int i = 0; i < start; i++)
				buf_addch(&b, 's');
			buf_addf(&b, "%.*s", n, text);
			CHECK_INT(b.len, (size_t)(start + n));
			CHECK_INT(b.s[b.len], 0);
			CHECK(!strncmp(b.s + start, text, (size_t)n));
			CHECK(start == 0 || b.s[start - 1] == 's');
			buf_release(&b);
		}
}

static void test_detach_reset(void)
{
	struct buf b = BUF_INIT;
	char *s;
	size_t alloc;

	buf_adds(&b, "keep me");
	s = buf_detach(&b);
	CHECK_STR(s, "keep me");
	CHECK(b.s == NULL && b.len == 0 && b.alloc == 0);
	CHECK_STR(buf_str(&b), "");
	/* The buf is usable again and does not share memory with s. */
	buf_adds(&b, "other");
	CHECK_STR(s, "keep me");
	CHECK_STR(b.s, "other");
	free(s);

	alloc = b.alloc;
	buf_reset(&b);
	CHECK_INT(b.len, 0);
	CHECK_STR(buf_str(&b), "");
	CHECK_INT(b.alloc, alloc);	/* reset keeps the memory */
	buf_adds(&b, "again");
	CHECK_STR(b.s, "again");
	buf_release(&b);
	/* reset of an unused buf is harmless. */
	buf_reset(&b);
	CHECK_STR(buf_str(&b), "");
}

static void test_growth(void)
{
	struct buf b = BUF_INIT;
	size_t reallocs = 0, last_alloc = 0;
	int ok = 1;

	/* Many small appends: the content is exact and growth is geometric. */
	for (int i = 0; i < 20000; i++) {
		buf_addch(&b, (char)('a' + i % 26));
		if (b.alloc != last_alloc) {
			reallocs++;
			last_alloc = b.alloc;
		}
		if (b.s[b.len] != '\0')
			ok = 0;
	}
	CHECK(ok);
	CHECK_INT(b.len, 20000);
	for (int i = 0; i < 20000; i++)
		if (b.s[i] != (char)('a' + i % 26)) {
			CHECK_INT(b.s[i], 'a' + i % 26);
			break;
		}
	CHECK(reallocs < 20);
	/* buf_grow reserves room without changing the content. */
	buf_grow(&b, 100000);
	CHECK(b.alloc >= b.len + 100000 + 1);
	CHECK_INT(b.len, 20000);
	CHECK_INT(b.s[19999], 'a' + 19999 % 26);
	buf_release(&b);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_empty(), "empty");
	TEST(test_add(), "add");
	TEST(test_addf_long(), "addf_long");
	TEST(test_detach_reset(), "detach_reset");
	TEST(test_growth(), "growth");
	TEST(test_addf_edges(), "addf_edges");
	return check_done();
}
