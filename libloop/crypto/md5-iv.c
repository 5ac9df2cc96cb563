/*
 * md5-iv.c - the IV of loop-AES multi-key mode (v2 and v3).
 *
 * IV = MD5 over plaintext[16..511] followed by the low 56 bits of the IV
 * sector number, little endian: 503 bytes, so the final MD5 block holds
 * the last 48 plaintext bytes, 7 sector bytes, the 0x80 pad byte and the
 * bit length 4024.  For v3 the MD5 state is first advanced over one
 * 64-byte block made of key 65's first 16 bytes and 48 zero bytes, but
 * the length field still says 4024 (loop-AES keeps that quirk for
 * compatibility), so v3 cannot be computed with a standard MD5 API: we
 * need the bare compression function, which libgcrypt does not export.
 * v2 equals standard MD5 and is tested against libgcrypt's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto/crypto-internal.h"

static inline uint32_t rol32(uint32_t x, unsigned int n)
{
	return (x << n) | (x >> (32 - n));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void loop_md5_init_state(uint32_t state[4])
{
	state[0] = 0x67452301;
	state[1] = 0xefcdab89;
	state[2] = 0x98badcfe;
	state[3] = 0x10325476;
}

#define F1(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define F2(x, y, z) F1(z, x, y)
#define F3(x, y, z) ((x) ^ (y) ^ (z))
#define F4(x, y, z) ((y) ^ ((x) | ~(z)))
#define STEP(f, a, b, c, d, w, k, s) \
	((a) = (b) + rol32((a) + f(b, c, d) + (w) + (k), s))

/* RFC 1321 compression function. */
void loop_md5_compress(uint32_t state[4], const uint8_t block[64])
{
	uint32_t w[16], a = state[0], b = state[1], c = state[2], d = state[3];
	int i;

	for (i = 0; i < 16; i++)
		w[i] = get_le32(block + 4 * i);

	STEP(F1, a, b, c, d, w[0], 0xd76aa478, 7);
	STEP(F1, d, a, b, c, w[1], 0xe8c7b756, 12);
	STEP(F1, c, d, a, b, w[2], 0x242070db, 17);
	STEP(F1, b, c, d, a, w[3], 0xc1bdceee, 22);
	STEP(F1, a, b, c, d, w[4], 0xf57c0faf, 7);
	STEP(F1, d, a, b, c, w[5], 0x4787c62a, 12);
	STEP(F1, c, d, a, b, w[6], 0xa8304613, 17);
	STEP(F1, b, c, d, a, w[7], 0xfd469501, 22);
	STEP(F1, a, b, c, d, w[8], 0x698098d8, 7);
	STEP(F1, d, a, b, c, w[9], 0x8b44f7af, 12);
	STEP(F1, c, d, a, b, w[10], 0xffff5bb1, 17);
	STEP(F1, b, c, d, a, w[11], 0x895cd7be, 22);
	STEP(F1, a, b, c, d, w[12], 0x6b901122, 7);
	STEP(F1, d, a, b, c, w[13], 0xfd987193, 12);
	STEP(F1, c, d, a, b, w[14], 0xa679438e, 17);
	STEP(F1, b, c, d, a, w[15], 0x49b40821, 22);

	STEP(F2, a, b, c, d, w[1], 0xf61e2562, 5);
	STEP(F2, d, a, b, c, w[6], 0xc040b340, 9);
	STEP(F2, c, d, a, b, w[11], 0x265e5a51, 14);
	STEP(F2, b, c, d, a, w[0], 0xe9b6c7aa, 20);
	STEP(F2, a, b, c, d, w[5], 0xd62f105d, 5);
	STEP(F2, d, a, b, c, w[10], 0x02441453, 9);
	STEP(F2, c, d, a, b, w[15], 0xd8a1e681, 14);
	STEP(F2, b, c, d, a, w[4], 0xe7d3fbc8, 20);
	STEP(F2, a, b, c, d, w[9], 0x21e1cde6, 5);
	STEP(F2, d, a, b, c, w[14], 0xc33707d6, 9);
	STEP(F2, c, d, a, b, w[3], 0xf4d50d87, 14);
	STEP(F2, b, c, d, a, w[8], 0x455a14ed, 20);
	STEP(F2, a, b, c, d, w[13], 0xa9e3e905, 5);
	STEP(F2, d, a, b, c, w[2], 0xfcefa3f8, 9);
	STEP(F2, c, d, a, b, w[7], 0x676f02d9, 14);
	STEP(F2, b, c, d, a, w[12], 0x8d2a4c8a, 20);

	STEP(F3, a, b, c, d, w[5], 0xfffa3942, 4);
	STEP(F3, d, a, b, c, w[8], 0x8771f681, 11);
	STEP(F3, c, d, a, b, w[11], 0x6d9d6122, 16);
	STEP(F3, b, c, d, a, w[14], 0xfde5380c, 23);
	STEP(F3, a, b, c, d, w[1], 0xa4beea44, 4);
	STEP(F3, d, a, b, c, w[4], 0x4bdecfa9, 11);
	STEP(F3, c, d, a, b, w[7], 0xf6bb4b60, 16);
	STEP(F3, b, c, d, a, w[10], 0xbebfbc70, 23);
	STEP(F3, a, b, c, d, w[13], 0x289b7ec6, 4);
	STEP(F3, d, a, b, c, w[0], 0xeaa127fa, 11);
	STEP(F3, c, d, a, b, w[3], 0xd4ef3085, 16);
	STEP(F3, b, c, d, a, w[6], 0x04881d05, 23);
	STEP(F3, a, b, c, d, w[9], 0xd9d4d039, 4);
	STEP(F3, d, a, b, c, w[12], 0xe6db99e5, 11);
	STEP(F3, c, d, a, b, w[15], 0x1fa27cf8, 16);
	STEP(F3, b, c, d, a, w[2], 0xc4ac5665, 23);

	STEP(F4, a, b, c, d, w[0], 0xf4292244, 6);
	STEP(F4, d, a, b, c, w[7], 0x432aff97, 10);
	STEP(F4, c, d, a, b, w[14], 0xab9423a7, 15);
	STEP(F4, b, c, d, a, w[5], 0xfc93a039, 21);
	STEP(F4, a, b, c, d, w[12], 0x655b59c3, 6);
	STEP(F4, d, a, b, c, w[3], 0x8f0ccc92, 10);
	STEP(F4, c, d, a, b, w[10], 0xffeff47d, 15);
	STEP(F4, b, c, d, a, w[1], 0x85845dd1, 21);
	STEP(F4, a, b, c, d, w[8], 0x6fa87e4f, 6);
	STEP(F4, d, a, b, c, w[15], 0xfe2ce6e0, 10);
	STEP(F4, c, d, a, b, w[6], 0xa3014314, 15);
	STEP(F4, b, c, d, a, w[13], 0x4e0811a1, 21);
	STEP(F4, a, b, c, d, w[4], 0xf7537e82, 6);
	STEP(F4, d, a, b, c, w[11], 0xbd3af235, 10);
	STEP(F4, c, d, a, b, w[2], 0x2ad7d2bb, 15);
	STEP(F4, b, c, d, a, w[9], 0xeb86d391, 21);

	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
}

void loop_lmk_iv(uint8_t iv[16], const uint32_t seed_state[4],
		 const uint8_t *plain_sector, uint64_t iv_sector)
{
	uint32_t st[4];
	uint8_t last[64];
	int i;

	memcpy(st, seed_state, sizeof(st));
	/* plaintext[16..463]: seven full blocks */
	for (i = 0; i < 7; i++)
		loop_md5_compress(st, plain_sector + 16 + 64 * i);
	memcpy(last, plain_sector + 16 + 448, 48);
	put_le32(last + 48, (uint32_t)iv_sector);
	/* 56 bits of sector number, then MD5's 0x80 pad byte */
	put_le32(last + 52, ((uint32_t)(iv_sector >> 32) & 0xFFFFFF) | 0x80000000u);
	put_le32(last + 56, 4024);
	put_le32(last + 60, 0);
	loop_md5_compress(st, last);
	for (i = 0; i < 4; i++)
		put_le32(iv + 4 * i, st[i]);
	explicit_bzero(last, sizeof(last));
	explicit_bzero(st, sizeof(st));
}
