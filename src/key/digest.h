/* digest: SHA-256 of bytes, files and canonical length-prefixed records. */
#ifndef KWARM_DIGEST_H
#define KWARM_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_SIZE 32
#define DIGEST_HEX_SIZE 65	/* 64 hex digits + NUL */

struct digest {
	void *ctx;	/* a SHA256_CTX; OpenSSL stays inside digest.c */
};

/* Start a SHA-256; dies if libcrypto fails (it does not, short of no memory). */
void digest_init(struct digest *d);
/* Feed raw bytes. */
void digest_update(struct digest *d, const void *data, size_t len);
/* Feed a record field: tag (with its NUL), le64 length of s, then s. */
void digest_add_str(struct digest *d, const char *tag, const char *s);
/* Feed a record field: tag (with its NUL), then v as le64. */
void digest_add_u64(struct digest *d, const char *tag, uint64_t v);
/* Finish into lowercase hex and release the context. */
void digest_final_hex(struct digest *d, char hex[DIGEST_HEX_SIZE]);
/* Release the context without finishing (error paths). */
void digest_release(struct digest *d);
/* SHA-256 of a buffer, in hex. */
void digest_bytes_hex(const void *data, size_t len, char hex[DIGEST_HEX_SIZE]);
/* SHA-256 of path's content, streamed, and its size (size may be NULL);
 * 0 or -1 with errno set (no message). */
int digest_file_hex(const char *path, char hex[DIGEST_HEX_SIZE], uint64_t *size);
/* The same over what is left to read of the open file fd. */
int digest_fd_hex(int fd, char hex[DIGEST_HEX_SIZE], uint64_t *size);

#endif
