/*
 * md5-avx512.h - MD5 on two streams of sixteen AVX-512 lanes (thirty-two
 * sectors), shared by md5-x32.c (hash only) and aesni-lmk-x32.c (hash
 * between AES rounds).  Include only from files compiled with AVX-512F
 * target functions.
 *
 * The steps use locals a0..d0 (stream 0, sectors 0-15), a1..d1 (stream
 * 1, sectors 16-31), w0[16]/w1[16] (the block's words, transposed) and
 * md5_kp (MD5_K_POINTER).
 */
#ifndef LIBLOOP_MD5_AVX512_H
#define LIBLOOP_MD5_AVX512_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define AVX512_TARGET __attribute__((target("avx512f")))

typedef __m512i v16;

/* vpternlogd truth tables over (b, c, d): bit (b << 2 | c << 1 | d) of
 * the immediate is the function's value */
#define TL_F 0xca       /* (b & c) | (~b & d) */
#define TL_G 0xe4       /* (b & d) | (c & ~d) */
#define TL_H 0x96       /* b ^ c ^ d */
#define TL_I 0x39       /* c ^ (b | ~d) */

/* RFC 1321's T[1..64] */
static const uint32_t md5_k[64] = {
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

/*
 * Read through md5_kp, which gcc knows nothing about: with the constants
 * in sight it builds each with mov and vpbroadcastd from a general
 * register, an extra uop on the vector ports MD5 is short of, where a
 * broadcast from memory costs only a load.
 */
#define MD5_K_POINTER \
	const uint32_t *md5_kp = md5_k; \
	__asm__("" : "+r"(md5_kp))

/*
 * One RFC 1321 step, a = b + rol(a + f(b, c, d) + w + k, s), in both
 * streams, instruction by instruction in lockstep: w + k and its add
 * to a do not wait for b, so only ternlog, add, rotate and add stand
 * on each stream's chain, and the other stream fills their latency.
 */
#define ZST(f, a, b, c, d, wi, i, s) do { \
	const v16 k_ = _mm512_set1_epi32((int)md5_kp[i]); \
	a##0 = _mm512_add_epi32(a##0, _mm512_add_epi32(w0[wi], k_)); \
	a##1 = _mm512_add_epi32(a##1, _mm512_add_epi32(w1[wi], k_)); \
	a##0 = _mm512_add_epi32(a##0, _mm512_ternarylogic_epi32(b##0, c##0, d##0, TL_##f)); \
	a##1 = _mm512_add_epi32(a##1, _mm512_ternarylogic_epi32(b##1, c##1, d##1, TL_##f)); \
	a##0 = _mm512_add_epi32(b##0, _mm512_rol_epi32(a##0, s)); \
	a##1 = _mm512_add_epi32(b##1, _mm512_rol_epi32(a##1, s)); \
} while (0)

/* RFC 1321 step i (0..63) of both streams as MD5Z_S<i>, so a caller can
 * put other work between any two steps */
#define MD5Z_S0 ZST(F, a, b, c, d, 0, 0, 7)
#define MD5Z_S1 ZST(F, d, a, b, c, 1, 1, 12)
#define MD5Z_S2 ZST(F, c, d, a, b, 2, 2, 17)
#define MD5Z_S3 ZST(F, b, c, d, a, 3, 3, 22)
#define MD5Z_S4 ZST(F, a, b, c, d, 4, 4, 7)
#define MD5Z_S5 ZST(F, d, a, b, c, 5, 5, 12)
#define MD5Z_S6 ZST(F, c, d, a, b, 6, 6, 17)
#define MD5Z_S7 ZST(F, b, c, d, a, 7, 7, 22)
#define MD5Z_S8 ZST(F, a, b, c, d, 8, 8, 7)
#define MD5Z_S9 ZST(F, d, a, b, c, 9, 9, 12)
#define MD5Z_S10 ZST(F, c, d, a, b, 10, 10, 17)
#define MD5Z_S11 ZST(F, b, c, d, a, 11, 11, 22)
#define MD5Z_S12 ZST(F, a, b, c, d, 12, 12, 7)
#define MD5Z_S13 ZST(F, d, a, b, c, 13, 13, 12)
#define MD5Z_S14 ZST(F, c, d, a, b, 14, 14, 17)
#define MD5Z_S15 ZST(F, b, c, d, a, 15, 15, 22)
#define MD5Z_S16 ZST(G, a, b, c, d, 1, 16, 5)
#define MD5Z_S17 ZST(G, d, a, b, c, 6, 17, 9)
#define MD5Z_S18 ZST(G, c, d, a, b, 11, 18, 14)
#define MD5Z_S19 ZST(G, b, c, d, a, 0, 19, 20)
#define MD5Z_S20 ZST(G, a, b, c, d, 5, 20, 5)
#define MD5Z_S21 ZST(G, d, a, b, c, 10, 21, 9)
#define MD5Z_S22 ZST(G, c, d, a, b, 15, 22, 14)
#define MD5Z_S23 ZST(G, b, c, d, a, 4, 23, 20)
#define MD5Z_S24 ZST(G, a, b, c, d, 9, 24, 5)
#define MD5Z_S25 ZST(G, d, a, b, c, 14, 25, 9)
#define MD5Z_S26 ZST(G, c, d, a, b, 3, 26, 14)
#define MD5Z_S27 ZST(G, b, c, d, a, 8, 27, 20)
#define MD5Z_S28 ZST(G, a, b, c, d, 13, 28, 5)
#define MD5Z_S29 ZST(G, d, a, b, c, 2, 29, 9)
#define MD5Z_S30 ZST(G, c, d, a, b, 7, 30, 14)
#define MD5Z_S31 ZST(G, b, c, d, a, 12, 31, 20)
#define MD5Z_S32 ZST(H, a, b, c, d, 5, 32, 4)
#define MD5Z_S33 ZST(H, d, a, b, c, 8, 33, 11)
#define MD5Z_S34 ZST(H, c, d, a, b, 11, 34, 16)
#define MD5Z_S35 ZST(H, b, c, d, a, 14, 35, 23)
#define MD5Z_S36 ZST(H, a, b, c, d, 1, 36, 4)
#define MD5Z_S37 ZST(H, d, a, b, c, 4, 37, 11)
#define MD5Z_S38 ZST(H, c, d, a, b, 7, 38, 16)
#define MD5Z_S39 ZST(H, b, c, d, a, 10, 39, 23)
#define MD5Z_S40 ZST(H, a, b, c, d, 13, 40, 4)
#define MD5Z_S41 ZST(H, d, a, b, c, 0, 41, 11)
#define MD5Z_S42 ZST(H, c, d, a, b, 3, 42, 16)
#define MD5Z_S43 ZST(H, b, c, d, a, 6, 43, 23)
#define MD5Z_S44 ZST(H, a, b, c, d, 9, 44, 4)
#define MD5Z_S45 ZST(H, d, a, b, c, 12, 45, 11)
#define MD5Z_S46 ZST(H, c, d, a, b, 15, 46, 16)
#define MD5Z_S47 ZST(H, b, c, d, a, 2, 47, 23)
#define MD5Z_S48 ZST(I, a, b, c, d, 0, 48, 6)
#define MD5Z_S49 ZST(I, d, a, b, c, 7, 49, 10)
#define MD5Z_S50 ZST(I, c, d, a, b, 14, 50, 15)
#define MD5Z_S51 ZST(I, b, c, d, a, 5, 51, 21)
#define MD5Z_S52 ZST(I, a, b, c, d, 12, 52, 6)
#define MD5Z_S53 ZST(I, d, a, b, c, 3, 53, 10)
#define MD5Z_S54 ZST(I, c, d, a, b, 10, 54, 15)
#define MD5Z_S55 ZST(I, b, c, d, a, 1, 55, 21)
#define MD5Z_S56 ZST(I, a, b, c, d, 8, 56, 6)
#define MD5Z_S57 ZST(I, d, a, b, c, 15, 57, 10)
#define MD5Z_S58 ZST(I, c, d, a, b, 6, 58, 15)
#define MD5Z_S59 ZST(I, b, c, d, a, 13, 59, 21)
#define MD5Z_S60 ZST(I, a, b, c, d, 4, 60, 6)
#define MD5Z_S61 ZST(I, d, a, b, c, 11, 61, 10)
#define MD5Z_S62 ZST(I, c, d, a, b, 2, 62, 15)
#define MD5Z_S63 ZST(I, b, c, d, a, 9, 63, 21)

#define MD5Z_ROUND1 MD5Z_S0; MD5Z_S1; MD5Z_S2; MD5Z_S3; MD5Z_S4; MD5Z_S5; MD5Z_S6; MD5Z_S7; MD5Z_S8; MD5Z_S9; MD5Z_S10; MD5Z_S11; MD5Z_S12; MD5Z_S13; MD5Z_S14; MD5Z_S15
#define MD5Z_ROUND2 MD5Z_S16; MD5Z_S17; MD5Z_S18; MD5Z_S19; MD5Z_S20; MD5Z_S21; MD5Z_S22; MD5Z_S23; MD5Z_S24; MD5Z_S25; MD5Z_S26; MD5Z_S27; MD5Z_S28; MD5Z_S29; MD5Z_S30; MD5Z_S31
#define MD5Z_ROUND3 MD5Z_S32; MD5Z_S33; MD5Z_S34; MD5Z_S35; MD5Z_S36; MD5Z_S37; MD5Z_S38; MD5Z_S39; MD5Z_S40; MD5Z_S41; MD5Z_S42; MD5Z_S43; MD5Z_S44; MD5Z_S45; MD5Z_S46; MD5Z_S47
#define MD5Z_ROUND4 MD5Z_S48; MD5Z_S49; MD5Z_S50; MD5Z_S51; MD5Z_S52; MD5Z_S53; MD5Z_S54; MD5Z_S55; MD5Z_S56; MD5Z_S57; MD5Z_S58; MD5Z_S59; MD5Z_S60; MD5Z_S61; MD5Z_S62; MD5Z_S63

/*
 * 16x16 transpose of 32-bit words: r[l] = the 64-byte block of lane l
 * in, w[i] = word i of every lane out.  4x4 transposes inside each
 * 128-bit chunk (unpack by 32, then 64 bits) leave chunk j of v[g][m]
 * = word 4j+m of lanes 4g..4g+3; two rounds of 128-bit shuffles then
 * gather chunk j of v[0..3][m] into w[4j+m].
 */
AVX512_TARGET static inline void md5_transpose16(v16 w[16], const v16 r[16])
{
	v16 v[4][4], lo[4], hi[4];
	int g, m;

	#pragma GCC unroll 4
	for (g = 0; g < 4; g++) {
		v16 t0 = _mm512_unpacklo_epi32(r[4 * g], r[4 * g + 1]);
		v16 t1 = _mm512_unpackhi_epi32(r[4 * g], r[4 * g + 1]);
		v16 t2 = _mm512_unpacklo_epi32(r[4 * g + 2], r[4 * g + 3]);
		v16 t3 = _mm512_unpackhi_epi32(r[4 * g + 2], r[4 * g + 3]);

		v[g][0] = _mm512_unpacklo_epi64(t0, t2);
		v[g][1] = _mm512_unpackhi_epi64(t0, t2);
		v[g][2] = _mm512_unpacklo_epi64(t1, t3);
		v[g][3] = _mm512_unpackhi_epi64(t1, t3);
	}
	#pragma GCC unroll 4
	for (m = 0; m < 4; m++) {
		/* chunks 0,1 of lanes 0-3 and 4-7, then of 8-11 and 12-15;
		 * hi[] the same with chunks 2,3 */
		lo[0] = _mm512_shuffle_i32x4(v[0][m], v[1][m], 0x44);
		lo[1] = _mm512_shuffle_i32x4(v[2][m], v[3][m], 0x44);
		hi[0] = _mm512_shuffle_i32x4(v[0][m], v[1][m], 0xee);
		hi[1] = _mm512_shuffle_i32x4(v[2][m], v[3][m], 0xee);
		w[m] = _mm512_shuffle_i32x4(lo[0], lo[1], 0x88);
		w[4 + m] = _mm512_shuffle_i32x4(lo[0], lo[1], 0xdd);
		w[8 + m] = _mm512_shuffle_i32x4(hi[0], hi[1], 0x88);
		w[12 + m] = _mm512_shuffle_i32x4(hi[0], hi[1], 0xdd);
	}
}

/* the 64-byte blocks at blk[0..15] + off, transposed into w[16] */
AVX512_TARGET static inline void md5_load_x16(v16 w[16], const uint8_t *const blk[16],
					      size_t off)
{
	v16 r[16];
	int l;

	#pragma GCC unroll 16
	for (l = 0; l < 16; l++)
		r[l] = _mm512_loadu_si512((const void *)(blk[l] + off));
	md5_transpose16(w, r);
}

/* a state vector's sixteen lanes into word i of iv[0..15] */
AVX512_TARGET static inline void md5_store_word(uint8_t iv[][16], int i, v16 x)
{
	uint32_t out[16] __attribute__((aligned(64)));
	int l;

	_mm512_store_si512((void *)out, x);
	for (l = 0; l < 16; l++)
		memcpy(iv[l] + 4 * i, &out[l], 4);
	explicit_bzero(out, sizeof(out));
}

#endif
