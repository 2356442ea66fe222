#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "rocm-resolve/sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress(struct rr_sha256 *h, const unsigned char *p)
{
	uint32_t w[64];
	uint32_t a, b, c, d, e, f, g, k;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h->state[0];
	b = h->state[1];
	c = h->state[2];
	d = h->state[3];
	e = h->state[4];
	f = h->state[5];
	g = h->state[6];
	k = h->state[7];
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = k + S1 + ch + K[i] + w[i];
		uint32_t S0 = ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22);
		uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + mj;
		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h->state[0] += a;
	h->state[1] += b;
	h->state[2] += c;
	h->state[3] += d;
	h->state[4] += e;
	h->state[5] += f;
	h->state[6] += g;
	h->state[7] += k;
}

void rr_sha256_init(struct rr_sha256 *h)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(h->state, iv, sizeof(iv));
	h->bytes = 0;
	h->fill = 0;
}

void rr_sha256_update(struct rr_sha256 *h, const void *data, size_t len)
{
	const unsigned char *p = data;

	h->bytes += len;
	if (h->fill) {
		size_t take = 64 - h->fill < len ? 64 - h->fill : len;
		memcpy(h->block + h->fill, p, take);
		h->fill += take;
		p += take;
		len -= take;
		if (h->fill < 64)
			return;
		compress(h, h->block);
		h->fill = 0;
	}
	while (len >= 64) {
		compress(h, p);
		p += 64;
		len -= 64;
	}
	memcpy(h->block, p, len);
	h->fill = len;
}

void rr_sha256_final(struct rr_sha256 *h, unsigned char digest[32])
{
	uint64_t bits = h->bytes * 8;

	h->block[h->fill++] = 0x80;
	if (h->fill > 56) {
		memset(h->block + h->fill, 0, 64 - h->fill);
		compress(h, h->block);
		h->fill = 0;
	}
	memset(h->block + h->fill, 0, 56 - h->fill);
	for (int i = 0; i < 8; i++)
		h->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	compress(h, h->block);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (unsigned char)(h->state[i] >> 24);
		digest[4 * i + 1] = (unsigned char)(h->state[i] >> 16);
		digest[4 * i + 2] = (unsigned char)(h->state[i] >> 8);
		digest[4 * i + 3] = (unsigned char)h->state[i];
	}
}

void rr_sha256_digest_to_hex(const unsigned char digest[32], char hex[65])
{
	static const char xd[] = "0123456789abcdef";

	for (int i = 0; i < 32; i++) {
		hex[2 * i] = xd[digest[i] >> 4];
		hex[2 * i + 1] = xd[digest[i] & 15];
	}
	hex[64] = '\0';
}

void rr_sha256_hex(const void *data, size_t len, char hex[65])
{
	struct rr_sha256 h;
	unsigned char d[32];

	rr_sha256_init(&h);
	rr_sha256_update(&h, data, len);
	rr_sha256_final(&h, d);
	rr_sha256_digest_to_hex(d, hex);
}

void rr_sha256_digest_to_b64url(const unsigned char digest[32], char out[44])
{
	static const char tbl[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t o = 0;
	int i;

	for (i = 0; i + 2 < 32; i += 3) {
		uint32_t v = (uint32_t)digest[i] << 16 | (uint32_t)digest[i + 1] << 8 | digest[i + 2];
		out[o++] = tbl[(v >> 18) & 63];
		out[o++] = tbl[(v >> 12) & 63];
		out[o++] = tbl[(v >> 6) & 63];
		out[o++] = tbl[v & 63];
	}
	/* 32 = 30 + 2 remaining bytes -> 3 chars, no padding */
	{
		uint32_t v = (uint32_t)digest[30] << 16 | (uint32_t)digest[31] << 8;
		out[o++] = tbl[(v >> 18) & 63];
		out[o++] = tbl[(v >> 12) & 63];
		out[o++] = tbl[(v >> 6) & 63];
	}
	out[o] = '\0';
}

bool rr_sha256_fd_b64url(int fd, char out[44])
{
	unsigned char buf[65536], digest[32];
	struct rr_sha256 h;
	ssize_t r;

	rr_sha256_init(&h);
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false;
		rr_sha256_update(&h, buf, (size_t)r);
	}
	rr_sha256_final(&h, digest);
	rr_sha256_digest_to_b64url(digest, out);
	return true;
}
