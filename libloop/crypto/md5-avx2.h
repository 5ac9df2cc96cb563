/*
 * md5-avx2.h - MD5 on two streams of eight AVX2 lanes (sixteen sectors),
 * shared by md5-x16.c (hash only), aesni-lmk.c (hash between AES
 * rounds) and md5-x8.c (transpose, load, last block).  Include only
 * from files compiled with AVX2 target functions.
 *
 * The 64 steps are split in eight groups (MD5_OCT0..7) so a caller can
 * put other work between them.  They use locals a0..d0 (stream 0), a1..d1
 * (stream 1) and w0[16]/w1[16] (the block's words, transposed: w0[i] =
 * word i of sectors 0-7).
 */
#ifndef LIBLOOP_MD5_AVX2_H
#define LIBLOOP_MD5_AVX2_H

#include <immintrin.h>
#include <string.h>

typedef __m256i v8;

#define AVX2_TARGET __attribute__((target("avx2")))

#define M5ADD(x, y) _mm256_add_epi32(x, y)
#define M5ROL(x, s) _mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s)))
/*
 * Each step is a = b + rol(a + f(b, c, d) + w + k, s), b being the value
 * the step before just produced.  The round functions are written as
 * (part that waits for b) and (part that does not), added separately, so
 * only one or two instructions stand between b and the rotate:
 *   F1 = (b & c) | (~b & d)  = (b & c) + andnot(b, d)     (disjoint bits)
 *   F2 = (b & d) | (c & ~d)  = (b & d) + andnot(d, c)
 *   F3 = b ^ c ^ d           = b ^ (c ^ d)
 *   F4 = c ^ (b | ~d)        = ~(c ^ andnot(b, d)) = -(c ^ andnot(b, d)) - 1,
 *        the -1 folded into the constant k.
 */
#define STG1(a, b, c, d, wi, k, s, T) do { \
	a##T = M5ADD(a##T, M5ADD(w##T[wi], k_)); \
	a##T = M5ADD(a##T, _mm256_andnot_si256(b##T, d##T)); \
	a##T = M5ADD(a##T, _mm256_and_si256(b##T, c##T)); \
	a##T = M5ADD(b##T, M5ROL(a##T, s)); \
} while (0)
#define STG2(a, b, c, d, wi, k, s, T) do { \
	a##T = M5ADD(a##T, M5ADD(w##T[wi], k_)); \
	a##T = M5ADD(a##T, _mm256_andnot_si256(d##T, c##T)); \
	a##T = M5ADD(a##T, _mm256_and_si256(b##T, d##T)); \
	a##T = M5ADD(b##T, M5ROL(a##T, s)); \
} while (0)
#define STG3(a, b, c, d, wi, k, s, T) do { \
	a##T = M5ADD(a##T, M5ADD(w##T[wi], k_)); \
	a##T = M5ADD(a##T, _mm256_xor_si256(b##T, _mm256_xor_si256(c##T, d##T))); \
	a##T = M5ADD(b##T, M5ROL(a##T, s)); \
} while (0)
#define STG4(a, b, c, d, wi, k, s, T) do { \
	a##T = M5ADD(a##T, M5ADD(w##T[wi], k_)); \
	a##T = _mm256_sub_epi32(a##T, _mm256_xor_si256(c##T, _mm256_andnot_si256(b##T, d##T))); \
	a##T = M5ADD(b##T, M5ROL(a##T, s)); \
} while (0)
/* one step in both streams: independent, so each fills the other's
 * latency */
#define ST(f, a, b, c, d, wi, k, s) do { \
	const v8 k_ = _mm256_set1_epi32((int)(uint32_t)((k) - (f == 4))); \
	ST##f(a, b, c, d, wi, k, s, 0); \
	ST##f(a, b, c, d, wi, k, s, 1); \
} while (0)
#define G1 1
#define G2 2
#define G3 3
#define G4 4

/* RFC 1321 steps 1-64, eight at a time */
#define MD5_OCT0 \
	ST(G1, a, b, c, d, 0, 0xd76aa478, 7);  ST(G1, d, a, b, c, 1, 0xe8c7b756, 12); \
	ST(G1, c, d, a, b, 2, 0x242070db, 17); ST(G1, b, c, d, a, 3, 0xc1bdceee, 22); \
	ST(G1, a, b, c, d, 4, 0xf57c0faf, 7);  ST(G1, d, a, b, c, 5, 0x4787c62a, 12); \
	ST(G1, c, d, a, b, 6, 0xa8304613, 17); ST(G1, b, c, d, a, 7, 0xfd469501, 22)
#define MD5_OCT1 \
	ST(G1, a, b, c, d, 8, 0x698098d8, 7);  ST(G1, d, a, b, c, 9, 0x8b44f7af, 12); \
	ST(G1, c, d, a, b, 10, 0xffff5bb1, 17); ST(G1, b, c, d, a, 11, 0x895cd7be, 22); \
	ST(G1, a, b, c, d, 12, 0x6b901122, 7); ST(G1, d, a, b, c, 13, 0xfd987193, 12); \
	ST(G1, c, d, a, b, 14, 0xa679438e, 17); ST(G1, b, c, d, a, 15, 0x49b40821, 22)
#define MD5_OCT2 \
	ST(G2, a, b, c, d, 1, 0xf61e2562, 5);  ST(G2, d, a, b, c, 6, 0xc040b340, 9); \
	ST(G2, c, d, a, b, 11, 0x265e5a51, 14); ST(G2, b, c, d, a, 0, 0xe9b6c7aa, 20); \
	ST(G2, a, b, c, d, 5, 0xd62f105d, 5);  ST(G2, d, a, b, c, 10, 0x02441453, 9); \
	ST(G2, c, d, a, b, 15, 0xd8a1e681, 14); ST(G2, b, c, d, a, 4, 0xe7d3fbc8, 20)
#define MD5_OCT3 \
	ST(G2, a, b, c, d, 9, 0x21e1cde6, 5);  ST(G2, d, a, b, c, 14, 0xc33707d6, 9); \
	ST(G2, c, d, a, b, 3, 0xf4d50d87, 14); ST(G2, b, c, d, a, 8, 0x455a14ed, 20); \
	ST(G2, a, b, c, d, 13, 0xa9e3e905, 5); ST(G2, d, a, b, c, 2, 0xfcefa3f8, 9); \
	ST(G2, c, d, a, b, 7, 0x676f02d9, 14); ST(G2, b, c, d, a, 12, 0x8d2a4c8a, 20)
#define MD5_OCT4 \
	ST(G3, a, b, c, d, 5, 0xfffa3942, 4);  ST(G3, d, a, b, c, 8, 0x8771f681, 11); \
	ST(G3, c, d, a, b, 11, 0x6d9d6122, 16); ST(G3, b, c, d, a, 14, 0xfde5380c, 23); \
	ST(G3, a, b, c, d, 1, 0xa4beea44, 4);  ST(G3, d, a, b, c, 4, 0x4bdecfa9, 11); \
	ST(G3, c, d, a, b, 7, 0xf6bb4b60, 16); ST(G3, b, c, d, a, 10, 0xbebfbc70, 23)
#define MD5_OCT5 \
	ST(G3, a, b, c, d, 13, 0x289b7ec6, 4); ST(G3, d, a, b, c, 0, 0xeaa127fa, 11); \
	ST(G3, c, d, a, b, 3, 0xd4ef3085, 16); ST(G3, b, c, d, a, 6, 0x04881d05, 23); \
	ST(G3, a, b, c, d, 9, 0xd9d4d039, 4);  ST(G3, d, a, b, c, 12, 0xe6db99e5, 11); \
	ST(G3, c, d, a, b, 15, 0x1fa27cf8, 16); ST(G3, b, c, d, a, 2, 0xc4ac5665, 23)
#define MD5_OCT6 \
	ST(G4, a, b, c, d, 0, 0xf4292244, 6);  ST(G4, d, a, b, c, 7, 0x432aff97, 10); \
	ST(G4, c, d, a, b, 14, 0xab9423a7, 15); ST(G4, b, c, d, a, 5, 0xfc93a039, 21); \
	ST(G4, a, b, c, d, 12, 0x655b59c3, 6); ST(G4, d, a, b, c, 3, 0x8f0ccc92, 10); \
	ST(G4, c, d, a, b, 10, 0xffeff47d, 15); ST(G4, b, c, d, a, 1, 0x85845dd1, 21)
#define MD5_OCT7 \
	ST(G4, a, b, c, d, 8, 0x6fa87e4f, 6);  ST(G4, d, a, b, c, 15, 0xfe2ce6e0, 10); \
	ST(G4, c, d, a, b, 6, 0xa3014314, 15); ST(G4, b, c, d, a, 13, 0x4e0811a1, 21); \
	ST(G4, a, b, c, d, 4, 0xf7537e82, 6);  ST(G4, d, a, b, c, 11, 0xbd3af235, 10); \
	ST(G4, c, d, a, b, 2, 0x2ad7d2bb, 15); ST(G4, b, c, d, a, 9, 0xeb86d391, 21)

/* 8x8 transpose of 32-bit words: r[l] = 8 words of lane l in, w[i] =
 * word i of every lane out. */
AVX2_TARGET static inline void md5_transpose8(v8 *w, const v8 r[8])
{
	v8 t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
	v8 t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
	v8 t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
	v8 t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
	v8 u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
	v8 u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
	v8 u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
	v8 u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);

	w[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
	w[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
	w[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
	w[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
	w[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
	w[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
	w[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
	w[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* the 64-byte blocks at blk[0..7] + off, transposed into w[16] (x86 is
 * little endian, as MD5 wants) */
AVX2_TARGET static inline void md5_load_x8(v8 w[16], const uint8_t *const blk[8], size_t off)
{
	v8 r[8];
	int l, half;

	for (half = 0; half < 2; half++) {
		for (l = 0; l < 8; l++)
			r[l] = _mm256_loadu_si256((const v8 *)(blk[l] + off + 32 * half));
		md5_transpose8(w + 8 * half, r);
	}
}

/* The lmk message is plaintext[16..511] ‖ le56(sector): seven whole
 * blocks from the sector, then this last one: 48 plaintext bytes, the
 * 56-bit sector, MD5's 0x80 pad byte and the bit length 4024. */
static inline void lmk_last_block(uint8_t last[64], const uint8_t *plain, uint64_t sector)
{
	uint32_t tail[4] = {
		(uint32_t)sector,
		((uint32_t)(sector >> 32) & 0xFFFFFF) | 0x80000000u,
		4024, 0
	};

	memcpy(last, plain + 16 + 448, 48);
	memcpy(last + 48, tail, 16);
}

/* the two streams' states out as sixteen IVs; the copy is wiped (the IV
 * is derived from plaintext) */
AVX2_TARGET static inline void md5_store_ivs16(uint8_t iv[16][16], v8 a0, v8 b0, v8 c0, v8 d0,
						v8 a1, v8 b1, v8 c1, v8 d1)
{
	uint32_t out[8][8] __attribute__((aligned(32)));
	int l, i;

	_mm256_store_si256((v8 *)out[0], a0); _mm256_store_si256((v8 *)out[1], b0);
	_mm256_store_si256((v8 *)out[2], c0); _mm256_store_si256((v8 *)out[3], d0);
	_mm256_store_si256((v8 *)out[4], a1); _mm256_store_si256((v8 *)out[5], b1);
	_mm256_store_si256((v8 *)out[6], c1); _mm256_store_si256((v8 *)out[7], d1);
	for (l = 0; l < 16; l++)
		for (i = 0; i < 4; i++)
			memcpy(iv[l] + 4 * i, &out[4 * (l / 8) + i][l % 8], 4);
	explicit_bzero(out, sizeof(out));
}

#endif
