#include "check.h"
#include "key/digest.h"
#include "key/filehash.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void test_vectors(void)
{
	char hex[DIGEST_HEX_SIZE];
	struct digest d;

	digest_bytes_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	digest_bytes_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* Two-block message from FIPS 180-2. */
	digest_init(&d);
	digest_update(&d, "abcdbcdecdefdefgefghfghighij", 28);
	digest_update(&d, "hijkijkljklmklmnlmnomnopnopq", 28);
	digest_final_hex(&d, hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK(d.ctx == NULL);
	digest_init(&d);
	digest_update(&d, "x", 1);
	digest_release(&d);
	CHECK(d.ctx == NULL);
}

static void test_records(void)
{
	char h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE], raw1[DIGEST_HEX_SIZE], raw2[DIGEST_HEX_SIZE];
	static const unsigned char expect_str[] = { 't', 0, 3, 0, 0, 0, 0, 0, 0, 0, 'a', 'b', 'c' };
	static const unsigned char expect_u64[] = { 'n', 0, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };
	struct digest d;

	/* Plain concatenation cannot tell the fields apart... */
	digest_init(&d);
	digest_update(&d, "ab", 2);
	digest_update(&d, "c", 1);
	digest_final_hex(&d, raw1);
	digest_init(&d);
	digest_update(&d, "a", 1);
	digest_update(&d, "bc", 2);
	digest_final_hex(&d, raw2);
	CHECK_STR(raw1, raw2);
	/* ...the length-prefixed record can. */
	digest_init(&d);
	digest_add_str(&d, "f", "ab");
	digest_add_str(&d, "f", "c");
	digest_final_hex(&d, h1);
	digest_init(&d);
	digest_add_str(&d, "f", "a");
	digest_add_str(&d, "f", "bc");
	digest_final_hex(&d, h2);
	CHECK(strcmp(h1, h2) != 0);
	/* The tag is part of the record. */
	digest_init(&d);
	digest_add_str(&d, "g", "ab");
	digest_add_str(&d, "f", "c");
	digest_final_hex(&d, h2);
	CHECK(strcmp(h1, h2) != 0);

	/* The exact encoding: tag, NUL, le64 length, bytes; tag, NUL, le64 value. */
	digest_init(&d);
	digest_add_str(&d, "t", "abc");
	digest_final_hex(&d, h1);
	digest_bytes_hex(expect_str, sizeof(expect_str), h2);
	CHECK_STR(h1, h2);
	digest_init(&d);
	digest_add_u64(&d, "n", 0x0102030405060708ULL);
	digest_final_hex(&d, h1);
	digest_bytes_hex(expect_u64, sizeof(expect_u64), h2);
	CHECK_STR(h1, h2);
	/* The same encoding for fields of every length around the one where a
	 * field stops going in as one update. */
	for (size_t n = 200; n < 300; n++) {
		unsigned char rec[4 + 8 + 300];
		char s[301];

		memset(s, 'a' + (int)(n % 26), n);
		s[n] = '\0';
		memcpy(rec, "tag", 4);
		for (int i = 0; i < 8; i++)
			rec[4 + i] = (unsigned char)((uint64_t)n >> (8 * i));
		memcpy(rec + 12, s, n);
		digest_init(&d);
		digest_add_str(&d, "tag", s);
		digest_final_hex(&d, h1);
		digest_bytes_hex(rec, 12 + n, h2);
		CHECK_STR(h1, h2);
	}
}

static void test_files(void)
{
	char *dir = check_tmpdir("digest");
	char *big = xstrfmt("%s/big", dir), *empty = xstrfmt("%s/empty", dir);
	char *missing = xstrfmt("%s/missing", dir);
	char fh_hex[DIGEST_HEX_SIZE], bytes_hex[DIGEST_HEX_SIZE], file_hex[DIGEST_HEX_SIZE];
	size_t n = 300000;	/* several read chunks */
	unsigned char *data = xmalloc(n);
	uint64_t size = 0;
	struct filehash fh;

	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)(i * 7 + (i >> 9));
	check_write_file(big, data, n, 0644);
	check_write_file(empty, "", 0, 0644);
	digest_bytes_hex(data, n, bytes_hex);
	CHECK_INT(digest_file_hex(big, file_hex, &size), 0);
	CHECK_STR(file_hex, bytes_hex);
	CHECK_INT(size, n);
	CHECK_INT(digest_file_hex(empty, file_hex, &size), 0);
	CHECK_STR(file_hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK_INT(size, 0);
	errno = 0;
	CHECK_INT(digest_file_hex(missing, file_hex, NULL), -1);
	CHECK_INT(errno, ENOENT);

	/* The memo reads a file once while its stamp holds, and again after a change. */
	filehash_init(&fh);
	CHECK_INT(filehash_get(&fh, big, fh_hex), 0);
	CHECK_STR(fh_hex, bytes_hex);
	CHECK_INT(filehash_get(&fh, big, fh_hex), 0);
	CHECK_STR(fh_hex, bytes_hex);
	CHECK_INT(fh.reads, 1);
	check_write_file(big, data, n - 1, 0644);	/* a different size: a different stamp */
	digest_bytes_hex(data, n - 1, bytes_hex);
	CHECK_INT(filehash_get(&fh, big, fh_hex), 0);
	CHECK_STR(fh_hex, bytes_hex);
	CHECK_INT(fh.reads, 2);
	CHECK_INT(filehash_get(&fh, missing, fh_hex), -1);
	filehash_release(&fh);

	free(data);
	free(big);
	free(empty);
	free(missing);
	free(dir);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_vectors(), "vectors");
	TEST(test_records(), "records");
	TEST(test_files(), "files");
	return check_done();
}
