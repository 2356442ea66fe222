/*
 * sha256.h - FIPS 180-4 SHA-256, used for RECORD and --hash checks and cache keys.
 *
 * struct rr_sha256 h; rr_sha256_init(&h); rr_sha256_update(&h, p, n)...;
 * rr_sha256_final(&h, digest). No allocation.
 */
#ifndef RR_SHA256_H
#define RR_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rr_sha256 {
	uint32_t state[8];
	uint64_t bytes;
	unsigned char block[64];
	size_t fill;
};

void rr_sha256_init(struct rr_sha256 *h);
void rr_sha256_update(struct rr_sha256 *h, const void *data, size_t len);
void rr_sha256_final(struct rr_sha256 *h, unsigned char digest[32]);
/* the digest of everything left to read on fd, in RECORD's form (urlsafe base64);
 * false on a read error. The caller opens and closes fd. */
bool rr_sha256_fd_b64url(int fd, char out[44]);
/* writes 64 lowercase hex digits and a NUL to hex */
void rr_sha256_hex(const void *data, size_t len, char hex[65]);
void rr_sha256_digest_to_hex(const unsigned char digest[32], char hex[65]);
/* urlsafe base64 without padding, as in wheel RECORD files ("sha256=<this>") */
void rr_sha256_digest_to_b64url(const unsigned char digest[32], char out[44]);

#endif
