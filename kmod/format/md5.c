// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MD5 compression function alone (RFC 1321, section 3.4).
 *
 * loop-AES multi-key IVs are MD5 chaining values taken after a fixed
 * number of blocks, without MD5's padding or final length block, so the
 * crypto API's "md5" (which only hands out finished digests portably)
 * does not fit.  Running the compression function here also keeps the
 * per-sector IV free of allocations.
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "clo_format.h"

/* T[i] = floor(abs(sin(i + 1)) * 2^32) */
static const u32 md5_t[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee,
	0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa,
	0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
	0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05,
	0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039,
	0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/* Left-rotation amounts, four per round. */
static const u8 md5_s[4][4] = {
	{ 7, 12, 17, 22 },
	{ 5, 9, 14, 20 },
	{ 4, 11, 16, 23 },
	{ 6, 10, 15, 21 },
};

/**
 * clo_md5_block() - run one block through MD5's compression
 * @state: chaining value, updated in place (CPU byte order words)
 * @block: CLO_MD5_BLOCK message bytes, read as little-endian words as MD5
 *	requires
 */
void clo_md5_block(u32 state[4], const u8 block[CLO_MD5_BLOCK])
{
	u32 x[CLO_MD5_BLOCK / sizeof(u32)];
	u32 a = state[0], b = state[1], c = state[2], d = state[3];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(x); i++)
		x[i] = get_unaligned_le32(block + sizeof(u32) * i);

	/* Four rounds of sixteen steps, one constant each. */
	for (i = 0; i < ARRAY_SIZE(md5_t); i++) {
		u32 f, tmp;
		unsigned int g;

		switch (i >> 4) {
		case 0:
			f = (b & c) | (~b & d);
			g = i;
			break;
		case 1:
			f = (d & b) | (~d & c);
			g = (5 * i + 1) & 15;
			break;
		case 2:
			f = b ^ c ^ d;
			g = (3 * i + 5) & 15;
			break;
		default:
			f = c ^ (b | ~d);
			g = (7 * i) & 15;
			break;
		}
		tmp = d;
		d = c;
		c = b;
		b = b + rol32(a + f + md5_t[i] + x[g], md5_s[i >> 4][i & 3]);
		a = tmp;
	}

	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
	memzero_explicit(x, sizeof(x));
}
