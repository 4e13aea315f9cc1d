#include "key/digest.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The low-level SHA-256 calls, deprecated in OpenSSL 3 in favour of EVP, are
 * used on purpose: kwarm runs once per compile, and OpenSSL 3's first EVP
 * fetch builds every digest of the default provider (most of a compile step's
 * own CPU time, measured by callgrind); these calls go straight to the same
 * SHA-256 code with no set-up at all. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

void digest_init(struct digest *d)
{
	SHA256_CTX *ctx = xmalloc(sizeof(*ctx));

	if (SHA256_Init(ctx) != 1)
		die("cannot start a SHA-256 digest (libcrypto failed)");
	d->ctx = ctx;
}

void digest_update(struct digest *d, const void *data, size_t len)
{
	if (!d->ctx)
		BUG("digest_update on a released digest");
	if (len && SHA256_Update(d->ctx, data, len) != 1)
		die("cannot update a SHA-256 digest (libcrypto failed)");
}

static void add_le64(struct digest *d, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	digest_update(d, b, sizeof(b));
}

/* The tag keeps its NUL so that a tag can never run into the length after it.
 * A short field goes in as one update (keys are many short fields). */
void digest_add_str(struct digest *d, const char *tag, const char *s)
{
	size_t t = strlen(tag) + 1, n = strlen(s);
	unsigned char rec[256];

	if (t + 8 + n > sizeof(rec)) {
		digest_update(d, tag, t);
		add_le64(d, n);
		digest_update(d, s, n);
		return;
	}
	memcpy(rec, tag, t);
	for (int i = 0; i < 8; i++)
		rec[t + i] = (unsigned char)((uint64_t)n >> (8 * i));
	memcpy(rec + t + 8, s, n);
	digest_update(d, rec, t + 8 + n);
}

void digest_add_u64(struct digest *d, const char *tag, uint64_t v)
{
	digest_update(d, tag, strlen(tag) + 1);
	add_le64(d, v);
}

static void to_hex(const unsigned char *md, char hex[DIGEST_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < DIGEST_SIZE; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * DIGEST_SIZE] = '\0';
}

void digest_final_hex(struct digest *d, char hex[DIGEST_HEX_SIZE])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	if (!d->ctx)
		BUG("digest_final_hex on a released digest");
	if (SHA256_Final(md, d->ctx) != 1)
		die("cannot finish a SHA-256 digest (libcrypto failed)");
	to_hex(md, hex);
	digest_release(d);
}

void digest_release(struct digest *d)
{
	free(d->ctx);
	d->ctx = NULL;
}

void digest_bytes_hex(const void *data, size_t len, char hex[DIGEST_HEX_SIZE])
{
	struct digest d;

	digest_init(&d);
	digest_update(&d, data, len);
	digest_final_hex(&d, hex);
}

int digest_fd_hex(int fd, char hex[DIGEST_HEX_SIZE], uint64_t *size)
{
	/* Streamed: a compiler binary may be large and only its digest is kept. */
	unsigned char chunk[65536];
	uint64_t total = 0;
	struct digest d;

	digest_init(&d);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			int saved = errno;

			if (saved == EINTR)
				continue;
			digest_release(&d);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		digest_update(&d, chunk, (size_t)n);
		total += (uint64_t)n;
	}
	digest_final_hex(&d, hex);
	if (size)
		*size = total;
	return 0;
}

int digest_file_hex(const char *path, char hex[DIGEST_HEX_SIZE], uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, saved;

	if (fd < 0)
		return -1;
	ret = digest_fd_hex(fd, hex, size);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}
