/*
 * md5-x32.c - thirty-two loop-AES multi-key IVs at once with AVX-512.
 *
 * The lmk IV's MD5 bounds multi-key throughput: with AVX2 (md5-x16.c)
 * it hashes slower than VAES encrypts.  AVX-512F makes each MD5 step
 * much cheaper: vpternlogd computes any of F, G, H and I in one
 * instruction, vprold rotates in one (AVX2 needs two shifts and an or),
 * and each register carries sixteen sectors.  That is about a third of
 * the instructions per sector.  One 16-lane stream would wait on its own
 * add-rotate-add chain, so, as md5-x16.c does, two streams (sectors 0-15
 * and 16-31) run step by step side by side.
 *
 * Checked against the scalar loop_lmk_iv() and libgcrypt's MD5 by
 * tests/unit/test-crypto-lmk.c and tests/unit/test-crypto-sectors.c,
 * on an AVX-512 CPU or under tools/emulate-avx512.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto-internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "md5-avx2.h"   /* lmk_last_block() */

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

#define MD5_ROUND1 \
	ZST(F, a, b, c, d, 0, 0, 7); ZST(F, d, a, b, c, 1, 1, 12); ZST(F, c, d, a, b, 2, 2, 17); ZST(F, b, c, d, a, 3, 3, 22); \
	ZST(F, a, b, c, d, 4, 4, 7); ZST(F, d, a, b, c, 5, 5, 12); ZST(F, c, d, a, b, 6, 6, 17); ZST(F, b, c, d, a, 7, 7, 22); \
	ZST(F, a, b, c, d, 8, 8, 7); ZST(F, d, a, b, c, 9, 9, 12); ZST(F, c, d, a, b, 10, 10, 17); ZST(F, b, c, d, a, 11, 11, 22); \
	ZST(F, a, b, c, d, 12, 12, 7); ZST(F, d, a, b, c, 13, 13, 12); ZST(F, c, d, a, b, 14, 14, 17); ZST(F, b, c, d, a, 15, 15, 22)
#define MD5_ROUND2 \
	ZST(G, a, b, c, d, 1, 16, 5); ZST(G, d, a, b, c, 6, 17, 9); ZST(G, c, d, a, b, 11, 18, 14); ZST(G, b, c, d, a, 0, 19, 20); \
	ZST(G, a, b, c, d, 5, 20, 5); ZST(G, d, a, b, c, 10, 21, 9); ZST(G, c, d, a, b, 15, 22, 14); ZST(G, b, c, d, a, 4, 23, 20); \
	ZST(G, a, b, c, d, 9, 24, 5); ZST(G, d, a, b, c, 14, 25, 9); ZST(G, c, d, a, b, 3, 26, 14); ZST(G, b, c, d, a, 8, 27, 20); \
	ZST(G, a, b, c, d, 13, 28, 5); ZST(G, d, a, b, c, 2, 29, 9); ZST(G, c, d, a, b, 7, 30, 14); ZST(G, b, c, d, a, 12, 31, 20)
#define MD5_ROUND3 \
	ZST(H, a, b, c, d, 5, 32, 4); ZST(H, d, a, b, c, 8, 33, 11); ZST(H, c, d, a, b, 11, 34, 16); ZST(H, b, c, d, a, 14, 35, 23); \
	ZST(H, a, b, c, d, 1, 36, 4); ZST(H, d, a, b, c, 4, 37, 11); ZST(H, c, d, a, b, 7, 38, 16); ZST(H, b, c, d, a, 10, 39, 23); \
	ZST(H, a, b, c, d, 13, 40, 4); ZST(H, d, a, b, c, 0, 41, 11); ZST(H, c, d, a, b, 3, 42, 16); ZST(H, b, c, d, a, 6, 43, 23); \
	ZST(H, a, b, c, d, 9, 44, 4); ZST(H, d, a, b, c, 12, 45, 11); ZST(H, c, d, a, b, 15, 46, 16); ZST(H, b, c, d, a, 2, 47, 23)
#define MD5_ROUND4 \
	ZST(I, a, b, c, d, 0, 48, 6); ZST(I, d, a, b, c, 7, 49, 10); ZST(I, c, d, a, b, 14, 50, 15); ZST(I, b, c, d, a, 5, 51, 21); \
	ZST(I, a, b, c, d, 12, 52, 6); ZST(I, d, a, b, c, 3, 53, 10); ZST(I, c, d, a, b, 10, 54, 15); ZST(I, b, c, d, a, 1, 55, 21); \
	ZST(I, a, b, c, d, 8, 56, 6); ZST(I, d, a, b, c, 15, 57, 10); ZST(I, c, d, a, b, 6, 58, 15); ZST(I, b, c, d, a, 13, 59, 21); \
	ZST(I, a, b, c, d, 4, 60, 6); ZST(I, d, a, b, c, 11, 61, 10); ZST(I, c, d, a, b, 2, 62, 15); ZST(I, b, c, d, a, 9, 63, 21)

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

AVX512_TARGET void loop_lmk_iv_x32(uint8_t iv[32][16], const uint32_t seed_state[4],
				   const uint8_t *const plain[32], const uint64_t iv_sector[32])
{
	v16 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	uint8_t last[32][64];
	const uint8_t *body[32], *tail[32];
	int i, l;
	MD5_K_POINTER;

	a0 = a1 = _mm512_set1_epi32((int)seed_state[0]);
	b0 = b1 = _mm512_set1_epi32((int)seed_state[1]);
	c0 = c1 = _mm512_set1_epi32((int)seed_state[2]);
	d0 = d1 = _mm512_set1_epi32((int)seed_state[3]);
	for (l = 0; l < 32; l++) {
		lmk_last_block(last[l], plain[l], iv_sector[l]);
		body[l] = plain[l] + 16;
		tail[l] = last[l];
	}
	for (i = 0; i < 8; i++) {
		const v16 sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0;
		const v16 sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1;

		/* plaintext[16..463] in seven blocks, then the last one */
		const uint8_t *const *blk = i < 7 ? body : tail;
		const size_t off = i < 7 ? 64 * (size_t)i : 0;

		md5_load_x16(w0, blk, off);
		md5_load_x16(w1, blk + 16, off);
		MD5_ROUND1; MD5_ROUND2; MD5_ROUND3; MD5_ROUND4;
		a0 = _mm512_add_epi32(a0, sa0); b0 = _mm512_add_epi32(b0, sb0);
		c0 = _mm512_add_epi32(c0, sc0); d0 = _mm512_add_epi32(d0, sd0);
		a1 = _mm512_add_epi32(a1, sa1); b1 = _mm512_add_epi32(b1, sb1);
		c1 = _mm512_add_epi32(c1, sc1); d1 = _mm512_add_epi32(d1, sd1);
	}
	md5_store_word(iv, 0, a0); md5_store_word(iv, 1, b0);
	md5_store_word(iv, 2, c0); md5_store_word(iv, 3, d0);
	md5_store_word(iv + 16, 0, a1); md5_store_word(iv + 16, 1, b1);
	md5_store_word(iv + 16, 2, c1); md5_store_word(iv + 16, 3, d1);
	/* the IV is derived from plaintext: wipe the copies, in memory and
	 * in zmm0-31 (vzeroall would leave zmm16-31) */
	explicit_bzero(last, sizeof(last));
	explicit_bzero(w0, sizeof(w0));
	explicit_bzero(w1, sizeof(w1));
	loop_vector_regs_clear();
}

/*
 * An emulator or hypervisor that says AVX-512 may still get it wrong
 * (QEMU's VAES did, aesni-cbc.c): 32 IVs over sectors that all differ
 * are checked against the scalar code before this path is used.
 */
static int x32_selftest(void)
{
	uint8_t buf[16 * 31 + LOOP_SECTOR_SIZE], wide[32][16], narrow[16];
	const uint8_t *plain[32];
	uint64_t sector[32];
	uint32_t seed[4];
	int l, ok = 1;

	for (l = 0; l < (int)sizeof(buf); l++)
		buf[l] = (uint8_t)(l * 151 + (l >> 8) * 7 + 3);
	loop_md5_init_state(seed);
	for (l = 0; l < 32; l++) {
		plain[l] = buf + 16 * l;
		sector[l] = 0x0123456789abcdull * (uint64_t)(l + 1);
	}
	loop_lmk_iv_x32(wide, seed, plain, sector);
	for (l = 0; l < 32; l++) {
		loop_lmk_iv(narrow, seed, plain[l], sector[l]);
		ok = ok && !memcmp(narrow, wide[l], 16);
	}
	return ok;
}

/* 1 usable, 2 not; 0 not known yet (every thread computes the same) */
static int x32_state;

int loop_md5_x32_available(void)
{
	int st = __atomic_load_n(&x32_state, __ATOMIC_RELAXED);

	if (!st) {
		st = loop_cpu_has(LOOP_CPU_AVX512F) && x32_selftest() ? 1 : 2;
		__atomic_store_n(&x32_state, st, __ATOMIC_RELAXED);
	}
	return st == 1;
}

#else

int loop_md5_x32_available(void) { return 0; }

/* never chosen (loop_md5_lanes() stays at 1), but defined: the halves
 * go to md5-x16.c's portable version */
void loop_lmk_iv_x32(uint8_t iv[32][16], const uint32_t seed_state[4],
		     const uint8_t *const plain[32], const uint64_t iv_sector[32])
{
	loop_lmk_iv_x16(iv, seed_state, plain, iv_sector);
	loop_lmk_iv_x16(iv + 16, seed_state, plain + 16, iv_sector + 16);
}

#endif
