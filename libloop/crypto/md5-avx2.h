/*
 * md5-avx2.h - MD5 on two streams of eight AVX2 lanes (sixteen sectors),
 * shared by md5-x16.c (hash only), aesni-lmk.c (hash between AES
 * rounds) and md5-x8.c (transpose, load, last block).  Include only
 * from files compiled with AVX2 target functions.
 *
 * The 64 steps are macros of their own (MD5_S0..63, and in groups of
 * eight MD5_OCT0..7) so a caller can put other work between them.  They
 * use locals a0..d0 (stream 0), a1..d1 (stream 1), w0[16]/w1[16] (the
 * block's words, transposed: w0[i] = word i of sectors 0-7) and what
 * MD5_CONSTS declares.
 */
#ifndef LIBLOOP_MD5_AVX2_H
#define LIBLOOP_MD5_AVX2_H

#include <immintrin.h>
#include <string.h>

typedef __m256i v8;

#define AVX2_TARGET __attribute__((target("avx2")))

#define M5ADD(x, y) _mm256_add_epi32(x, y)
/* AVX2 has no rotate: shift, shift, or; by 16 it is one byte shuffle */
#define M5ROL(x, s) ((s) == 16 ? _mm256_shuffle_epi8(x, md5_rot16) : \
	_mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s))))

/*
 * The 64 step constants of RFC 1321, each in all eight lanes (round 4's
 * less one, see STG4).  Read from memory on purpose: written as
 * _mm256_set1_epi32(constant), gcc builds each one with mov, vmovd and
 * vpbroadcastd, three instructions per step on the vector ports MD5 is
 * short of; a memory operand of vpaddd costs none.
 */
#define MD5_K8(k) { k, k, k, k, k, k, k, k }
static const uint32_t md5_k8[64][8] __attribute__((aligned(32), unused)) = {
	MD5_K8(0xd76aa478u), 	MD5_K8(0xe8c7b756u),
	MD5_K8(0x242070dbu), 	MD5_K8(0xc1bdceeeu),
	MD5_K8(0xf57c0fafu), 	MD5_K8(0x4787c62au),
	MD5_K8(0xa8304613u), 	MD5_K8(0xfd469501u),
	MD5_K8(0x698098d8u), 	MD5_K8(0x8b44f7afu),
	MD5_K8(0xffff5bb1u), 	MD5_K8(0x895cd7beu),
	MD5_K8(0x6b901122u), 	MD5_K8(0xfd987193u),
	MD5_K8(0xa679438eu), 	MD5_K8(0x49b40821u),
	MD5_K8(0xf61e2562u), 	MD5_K8(0xc040b340u),
	MD5_K8(0x265e5a51u), 	MD5_K8(0xe9b6c7aau),
	MD5_K8(0xd62f105du), 	MD5_K8(0x02441453u),
	MD5_K8(0xd8a1e681u), 	MD5_K8(0xe7d3fbc8u),
	MD5_K8(0x21e1cde6u), 	MD5_K8(0xc33707d6u),
	MD5_K8(0xf4d50d87u), 	MD5_K8(0x455a14edu),
	MD5_K8(0xa9e3e905u), 	MD5_K8(0xfcefa3f8u),
	MD5_K8(0x676f02d9u), 	MD5_K8(0x8d2a4c8au),
	MD5_K8(0xfffa3942u), 	MD5_K8(0x8771f681u),
	MD5_K8(0x6d9d6122u), 	MD5_K8(0xfde5380cu),
	MD5_K8(0xa4beea44u), 	MD5_K8(0x4bdecfa9u),
	MD5_K8(0xf6bb4b60u), 	MD5_K8(0xbebfbc70u),
	MD5_K8(0x289b7ec6u), 	MD5_K8(0xeaa127fau),
	MD5_K8(0xd4ef3085u), 	MD5_K8(0x04881d05u),
	MD5_K8(0xd9d4d039u), 	MD5_K8(0xe6db99e5u),
	MD5_K8(0x1fa27cf8u), 	MD5_K8(0xc4ac5665u),
	MD5_K8(0xf4292243u), 	MD5_K8(0x432aff96u),
	MD5_K8(0xab9423a6u), 	MD5_K8(0xfc93a038u),
	MD5_K8(0x655b59c2u), 	MD5_K8(0x8f0ccc91u),
	MD5_K8(0xffeff47cu), 	MD5_K8(0x85845dd0u),
	MD5_K8(0x6fa87e4eu), 	MD5_K8(0xfe2ce6dfu),
	MD5_K8(0xa3014313u), 	MD5_K8(0x4e0811a0u),
	MD5_K8(0xf7537e81u), 	MD5_K8(0xbd3af234u),
	MD5_K8(0x2ad7d2bau), 	MD5_K8(0xeb86d390u),
};
#define MD5_K(i) _mm256_load_si256((const v8 *)md5_kp[i])
/* At the top of every function that runs steps: md5_kp is md5_k8 as far
 * as gcc knows nothing about it, so it cannot turn the loads back into
 * broadcasts of immediates. */
#define MD5_CONSTS \
	const uint32_t (*md5_kp)[8] = md5_k8; \
	const v8 md5_rot16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, \
					      2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13); \
	__asm__("" : "+r"(md5_kp))

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
#define STG1(a, b, c, d, wi, s, T) do { \
	a##T = M5ADD(a##T, M5ADD(w##T[wi], k_)); \
	a##T = M5ADD(a##T, _mm256_andnot_si256(b##T, d##T)); \
	a##T = M5ADD(a##T, _mm256_and_si256(b##T, c##T)); \
	a##T = M5ADD(b##T, M5ROL(a##T, s)); \
} while (0)
#define STG2(a, b, c, d, wi, s, T) do { \
	a##T = M5ADD(a##T, M5ADD(w##T[wi], k_)); \
	a##T = M5ADD(a##T, _mm256_andnot_si256(d##T, c##T)); \
	a##T = M5ADD(a##T, _mm256_and_si256(b##T, d##T)); \
	a##T = M5ADD(b##T, M5ROL(a##T, s)); \
} while (0)
#define STG3(a, b, c, d, wi, s, T) do { \
	a##T = M5ADD(a##T, M5ADD(w##T[wi], k_)); \
	a##T = M5ADD(a##T, _mm256_xor_si256(b##T, _mm256_xor_si256(c##T, d##T))); \
	a##T = M5ADD(b##T, M5ROL(a##T, s)); \
} while (0)
#define STG4(a, b, c, d, wi, s, T) do { \
	a##T = M5ADD(a##T, M5ADD(w##T[wi], k_)); \
	a##T = _mm256_sub_epi32(a##T, _mm256_xor_si256(c##T, _mm256_andnot_si256(b##T, d##T))); \
	a##T = M5ADD(b##T, M5ROL(a##T, s)); \
} while (0)
/*
 * Step i in both streams, instruction by instruction in lockstep: the
 * streams are independent, so each fills the other's latency, and close
 * together they do so within the few dozen instructions the scheduler
 * sees at a time.
 */
#define ST(f, a, b, c, d, wi, i, s) do { \
	const v8 k_ = MD5_K(i); \
	v8 t0_, t1_; \
	ST##f##_2(a, b, c, d, wi, s); \
} while (0)
#define STW(a, wi, T) a##T = M5ADD(a##T, M5ADD(w##T[wi], k_))
#define STR(a, b, s, T) a##T = M5ADD(b##T, M5ROL(a##T, s))
#define ST1_2(a, b, c, d, wi, s) do { \
	STW(a, wi, 0); STW(a, wi, 1); \
	t0_ = _mm256_andnot_si256(b##0, d##0); t1_ = _mm256_andnot_si256(b##1, d##1); \
	a##0 = M5ADD(a##0, t0_); a##1 = M5ADD(a##1, t1_); \
	t0_ = _mm256_and_si256(b##0, c##0); t1_ = _mm256_and_si256(b##1, c##1); \
	a##0 = M5ADD(a##0, t0_); a##1 = M5ADD(a##1, t1_); \
	STR(a, b, s, 0); STR(a, b, s, 1); \
} while (0)
#define ST2_2(a, b, c, d, wi, s) do { \
	STW(a, wi, 0); STW(a, wi, 1); \
	t0_ = _mm256_andnot_si256(d##0, c##0); t1_ = _mm256_andnot_si256(d##1, c##1); \
	a##0 = M5ADD(a##0, t0_); a##1 = M5ADD(a##1, t1_); \
	t0_ = _mm256_and_si256(b##0, d##0); t1_ = _mm256_and_si256(b##1, d##1); \
	a##0 = M5ADD(a##0, t0_); a##1 = M5ADD(a##1, t1_); \
	STR(a, b, s, 0); STR(a, b, s, 1); \
} while (0)
#define ST3_2(a, b, c, d, wi, s) do { \
	STW(a, wi, 0); STW(a, wi, 1); \
	t0_ = _mm256_xor_si256(c##0, d##0); t1_ = _mm256_xor_si256(c##1, d##1); \
	t0_ = _mm256_xor_si256(b##0, t0_); t1_ = _mm256_xor_si256(b##1, t1_); \
	a##0 = M5ADD(a##0, t0_); a##1 = M5ADD(a##1, t1_); \
	STR(a, b, s, 0); STR(a, b, s, 1); \
} while (0)
#define ST4_2(a, b, c, d, wi, s) do { \
	STW(a, wi, 0); STW(a, wi, 1); \
	t0_ = _mm256_andnot_si256(b##0, d##0); t1_ = _mm256_andnot_si256(b##1, d##1); \
	t0_ = _mm256_xor_si256(c##0, t0_); t1_ = _mm256_xor_si256(c##1, t1_); \
	a##0 = _mm256_sub_epi32(a##0, t0_); a##1 = _mm256_sub_epi32(a##1, t1_); \
	STR(a, b, s, 0); STR(a, b, s, 1); \
} while (0)

/* RFC 1321 step i (0..63) as MD5_S<i>, so a caller can put other work
 * between any two steps */
#define MD5_S0 ST(1, a, b, c, d, 0, 0, 7)
#define MD5_S1 ST(1, d, a, b, c, 1, 1, 12)
#define MD5_S2 ST(1, c, d, a, b, 2, 2, 17)
#define MD5_S3 ST(1, b, c, d, a, 3, 3, 22)
#define MD5_S4 ST(1, a, b, c, d, 4, 4, 7)
#define MD5_S5 ST(1, d, a, b, c, 5, 5, 12)
#define MD5_S6 ST(1, c, d, a, b, 6, 6, 17)
#define MD5_S7 ST(1, b, c, d, a, 7, 7, 22)
#define MD5_S8 ST(1, a, b, c, d, 8, 8, 7)
#define MD5_S9 ST(1, d, a, b, c, 9, 9, 12)
#define MD5_S10 ST(1, c, d, a, b, 10, 10, 17)
#define MD5_S11 ST(1, b, c, d, a, 11, 11, 22)
#define MD5_S12 ST(1, a, b, c, d, 12, 12, 7)
#define MD5_S13 ST(1, d, a, b, c, 13, 13, 12)
#define MD5_S14 ST(1, c, d, a, b, 14, 14, 17)
#define MD5_S15 ST(1, b, c, d, a, 15, 15, 22)
#define MD5_S16 ST(2, a, b, c, d, 1, 16, 5)
#define MD5_S17 ST(2, d, a, b, c, 6, 17, 9)
#define MD5_S18 ST(2, c, d, a, b, 11, 18, 14)
#define MD5_S19 ST(2, b, c, d, a, 0, 19, 20)
#define MD5_S20 ST(2, a, b, c, d, 5, 20, 5)
#define MD5_S21 ST(2, d, a, b, c, 10, 21, 9)
#define MD5_S22 ST(2, c, d, a, b, 15, 22, 14)
#define MD5_S23 ST(2, b, c, d, a, 4, 23, 20)
#define MD5_S24 ST(2, a, b, c, d, 9, 24, 5)
#define MD5_S25 ST(2, d, a, b, c, 14, 25, 9)
#define MD5_S26 ST(2, c, d, a, b, 3, 26, 14)
#define MD5_S27 ST(2, b, c, d, a, 8, 27, 20)
#define MD5_S28 ST(2, a, b, c, d, 13, 28, 5)
#define MD5_S29 ST(2, d, a, b, c, 2, 29, 9)
#define MD5_S30 ST(2, c, d, a, b, 7, 30, 14)
#define MD5_S31 ST(2, b, c, d, a, 12, 31, 20)
#define MD5_S32 ST(3, a, b, c, d, 5, 32, 4)
#define MD5_S33 ST(3, d, a, b, c, 8, 33, 11)
#define MD5_S34 ST(3, c, d, a, b, 11, 34, 16)
#define MD5_S35 ST(3, b, c, d, a, 14, 35, 23)
#define MD5_S36 ST(3, a, b, c, d, 1, 36, 4)
#define MD5_S37 ST(3, d, a, b, c, 4, 37, 11)
#define MD5_S38 ST(3, c, d, a, b, 7, 38, 16)
#define MD5_S39 ST(3, b, c, d, a, 10, 39, 23)
#define MD5_S40 ST(3, a, b, c, d, 13, 40, 4)
#define MD5_S41 ST(3, d, a, b, c, 0, 41, 11)
#define MD5_S42 ST(3, c, d, a, b, 3, 42, 16)
#define MD5_S43 ST(3, b, c, d, a, 6, 43, 23)
#define MD5_S44 ST(3, a, b, c, d, 9, 44, 4)
#define MD5_S45 ST(3, d, a, b, c, 12, 45, 11)
#define MD5_S46 ST(3, c, d, a, b, 15, 46, 16)
#define MD5_S47 ST(3, b, c, d, a, 2, 47, 23)
#define MD5_S48 ST(4, a, b, c, d, 0, 48, 6)
#define MD5_S49 ST(4, d, a, b, c, 7, 49, 10)
#define MD5_S50 ST(4, c, d, a, b, 14, 50, 15)
#define MD5_S51 ST(4, b, c, d, a, 5, 51, 21)
#define MD5_S52 ST(4, a, b, c, d, 12, 52, 6)
#define MD5_S53 ST(4, d, a, b, c, 3, 53, 10)
#define MD5_S54 ST(4, c, d, a, b, 10, 54, 15)
#define MD5_S55 ST(4, b, c, d, a, 1, 55, 21)
#define MD5_S56 ST(4, a, b, c, d, 8, 56, 6)
#define MD5_S57 ST(4, d, a, b, c, 15, 57, 10)
#define MD5_S58 ST(4, c, d, a, b, 6, 58, 15)
#define MD5_S59 ST(4, b, c, d, a, 13, 59, 21)
#define MD5_S60 ST(4, a, b, c, d, 4, 60, 6)
#define MD5_S61 ST(4, d, a, b, c, 11, 61, 10)
#define MD5_S62 ST(4, c, d, a, b, 2, 62, 15)
#define MD5_S63 ST(4, b, c, d, a, 9, 63, 21)

/* eight steps at a time */
#define MD5_OCT0 MD5_S0; MD5_S1; MD5_S2; MD5_S3; MD5_S4; MD5_S5; MD5_S6; MD5_S7
#define MD5_OCT1 MD5_S8; MD5_S9; MD5_S10; MD5_S11; MD5_S12; MD5_S13; MD5_S14; MD5_S15
#define MD5_OCT2 MD5_S16; MD5_S17; MD5_S18; MD5_S19; MD5_S20; MD5_S21; MD5_S22; MD5_S23
#define MD5_OCT3 MD5_S24; MD5_S25; MD5_S26; MD5_S27; MD5_S28; MD5_S29; MD5_S30; MD5_S31
#define MD5_OCT4 MD5_S32; MD5_S33; MD5_S34; MD5_S35; MD5_S36; MD5_S37; MD5_S38; MD5_S39
#define MD5_OCT5 MD5_S40; MD5_S41; MD5_S42; MD5_S43; MD5_S44; MD5_S45; MD5_S46; MD5_S47
#define MD5_OCT6 MD5_S48; MD5_S49; MD5_S50; MD5_S51; MD5_S52; MD5_S53; MD5_S54; MD5_S55
#define MD5_OCT7 MD5_S56; MD5_S57; MD5_S58; MD5_S59; MD5_S60; MD5_S61; MD5_S62; MD5_S63

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
 * little endian, as MD5 wants).  Written out: as loops over an array,
 * gcc -O2 copies the rows through the stack (store, then reload) before
 * the shuffles, which costs the hash a fifth of its speed. */
#define MD5_ROW(l, h) _mm256_loadu_si256((const v8 *)(blk[l] + off + 32 * (h)))
AVX2_TARGET static inline void md5_load_x8(v8 w[16], const uint8_t *const blk[8], size_t off)
{
	v8 r[8];

	r[0] = MD5_ROW(0, 0); r[1] = MD5_ROW(1, 0); r[2] = MD5_ROW(2, 0); r[3] = MD5_ROW(3, 0);
	r[4] = MD5_ROW(4, 0); r[5] = MD5_ROW(5, 0); r[6] = MD5_ROW(6, 0); r[7] = MD5_ROW(7, 0);
	md5_transpose8(w, r);
	r[0] = MD5_ROW(0, 1); r[1] = MD5_ROW(1, 1); r[2] = MD5_ROW(2, 1); r[3] = MD5_ROW(3, 1);
	r[4] = MD5_ROW(4, 1); r[5] = MD5_ROW(5, 1); r[6] = MD5_ROW(6, 1); r[7] = MD5_ROW(7, 1);
	md5_transpose8(w + 8, r);
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
