/*
 * aesni-lmk-x32.c - loop-AES multi-key CBC with the MD5 IV hashed in the
 * gaps of the AES, on AVX-512: thirty-two sectors a batch.
 *
 * Why: with AVX-512 the MD5 of md5-x32.c waits on the latency of each
 * step's chain (ternlog, add, rotate, add), not on the vector ports: on
 * the Zen 5 it was tuned on, a chain of those four takes about 3.2 ns
 * while the ports could run four times the instructions.  The AES is the
 * opposite: many independent blocks, bound by the AES units' throughput.
 * One after the other the two add up; interleaved in one instruction
 * stream the AES runs in the hash's wait.  aesni-lmk.c does the same for
 * AVX2, but with its 16 lanes the hash would be the bound: one 16-lane
 * zmm stream hashes at half the speed of md5-x32.c's two.  So a batch
 * is 32 sectors, the hash is md5-avx512.h's two streams, and the AES is
 * on zmm, four blocks per instruction:
 *   - encryption: all 32 CBC chains at once in eight registers;
 *   - decryption: one sector at a time, half a sector (sixteen blocks)
 *     in four registers, all under the sector's one key.
 * Measured against the same 32-lane hash unfused (serial), and the
 * encryption on ymm, by tools/bench crypto (libloop/crypto/README.md).
 *
 * Checked byte for byte against libgcrypt's AES and MD5 and aespipe's
 * multi-key images (tests/unit/test-crypto-lmk.c,
 * tests/kat/run-lmk-lanes.sh).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto-internal.h"

#if defined(__x86_64__)
#include "crypto/aesni-lmk-run.h"
#include "crypto/md5-avx512.h"

#define LMK_TARGET __attribute__((target("avx512f,avx512vl,vaes,aes")))
#define SEC LOOP_SECTOR_SIZE

#define MD5_INIT(seed) do { \
	a0 = a1 = _mm512_set1_epi32((int)(seed)[0]); \
	b0 = b1 = _mm512_set1_epi32((int)(seed)[1]); \
	c0 = c1 = _mm512_set1_epi32((int)(seed)[2]); \
	d0 = d1 = _mm512_set1_epi32((int)(seed)[3]); \
} while (0)
#define MD5_SAVE \
	const v16 sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0; \
	const v16 sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1
#define Z5ADD _mm512_add_epi32
#define MD5_FEED do { \
	a0 = Z5ADD(a0, sa0); b0 = Z5ADD(b0, sb0); c0 = Z5ADD(c0, sc0); d0 = Z5ADD(d0, sd0); \
	a1 = Z5ADD(a1, sa1); b1 = Z5ADD(b1, sb1); c1 = Z5ADD(c1, sc1); d1 = Z5ADD(d1, sd1); \
} while (0)
#define MD5_LOAD(mb) do { \
	md5_load_x16(w0, h.blk[mb], 0); \
	md5_load_x16(w1, h.blk[mb] + 16, 0); \
} while (0)
#define MD5_STORE(hiv) do { \
	md5_store_word(hiv, 0, a0); md5_store_word(hiv, 1, b0); \
	md5_store_word(hiv, 2, c0); md5_store_word(hiv, 3, d0); \
	md5_store_word(hiv + 16, 0, a1); md5_store_word(hiv + 16, 1, b1); \
	md5_store_word(hiv + 16, 2, c1); md5_store_word(hiv + 16, 3, d1); \
} while (0)

/* ---- encrypt ---------------------------------------------------------- */

/*
 * Register j holds the chains of sectors j, j + 8, j + 16 and j + 24,
 * one in each 128-bit lane, so each round takes a different key per
 * lane: rkb[j][r] is round r of the four keys, laid out before the
 * batch.  The 16-byte blocks go into and out of the lanes one by one:
 * three inserts and three extracts per register and block, which cost
 * less than the AES instructions zmm saves over ymm: on the Zen 5 this
 * was tuned on, about 14% faster than the same loop on ymm, side by side.
 */
#define LD16(p) _mm_loadu_si128((const __m128i *)(p))
/* the 16 bytes at p[j] + o, p[j + 8] + o, p[j + 16] + o, p[j + 24] + o */
#define LANES4(p, j, o) _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4( \
	_mm512_castsi128_si512(LD16((p)[j] + (o))), LD16((p)[(j) + 8] + (o)), 1), \
	LD16((p)[(j) + 16] + (o)), 2), LD16((p)[(j) + 24] + (o)), 3)
#define ENC_IN(j, o) _mm512_xor_si512(LANES4(s, j, o), RK(j, 0))
#define RK(j, r) _mm512_load_si512((const void *)rkb[j][r])
#define ENC_ROUND(r) do { \
	x0 = _mm512_aesenc_epi128(x0, RK(0, r)); x1 = _mm512_aesenc_epi128(x1, RK(1, r)); \
	x2 = _mm512_aesenc_epi128(x2, RK(2, r)); x3 = _mm512_aesenc_epi128(x3, RK(3, r)); \
	x4 = _mm512_aesenc_epi128(x4, RK(4, r)); x5 = _mm512_aesenc_epi128(x5, RK(5, r)); \
	x6 = _mm512_aesenc_epi128(x6, RK(6, r)); x7 = _mm512_aesenc_epi128(x7, RK(7, r)); \
} while (0)
#define ENC_BEGIN(o) do { \
	x0 = _mm512_xor_si512(x0, ENC_IN(0, o)); x1 = _mm512_xor_si512(x1, ENC_IN(1, o)); \
	x2 = _mm512_xor_si512(x2, ENC_IN(2, o)); x3 = _mm512_xor_si512(x3, ENC_IN(3, o)); \
	x4 = _mm512_xor_si512(x4, ENC_IN(4, o)); x5 = _mm512_xor_si512(x5, ENC_IN(5, o)); \
	x6 = _mm512_xor_si512(x6, ENC_IN(6, o)); x7 = _mm512_xor_si512(x7, ENC_IN(7, o)); \
} while (0)
#define ENC_LAST(x, j, o) do { \
	x = _mm512_aesenclast_epi128(x, RK(j, nr)); \
	_mm_storeu_si128((__m128i *)(d[j] + (o)), _mm512_castsi512_si128(x)); \
	_mm_storeu_si128((__m128i *)(d[j + 8] + (o)), _mm512_extracti32x4_epi32(x, 1)); \
	_mm_storeu_si128((__m128i *)(d[j + 16] + (o)), _mm512_extracti32x4_epi32(x, 2)); \
	_mm_storeu_si128((__m128i *)(d[j + 24] + (o)), _mm512_extracti32x4_epi32(x, 3)); \
} while (0)
#define ENC_END(o) do { \
	ENC_LAST(x0, 0, o); ENC_LAST(x1, 1, o); ENC_LAST(x2, 2, o); ENC_LAST(x3, 3, o); \
	ENC_LAST(x4, 4, o); ENC_LAST(x5, 5, o); ENC_LAST(x6, 6, o); ENC_LAST(x7, 7, o); \
} while (0)
/* one 16-byte block of the 32 chains with sixteen double MD5 steps
 * between its rounds (nr is a compile-time constant, see LMK_KERNELS) */
#define ENC_BLOCK_MIX(blk, S0, S1, S2, S3, S4, S5, S6, S7, S8, S9, S10, S11, S12, S13, S14, S15) do { \
	const size_t o_ = 16 * (size_t)(blk); \
	ENC_BEGIN(o_); ENC_ROUND(1); S0; ENC_ROUND(2); S1; ENC_ROUND(3); S2; \
	ENC_ROUND(4); S3; ENC_ROUND(5); S4; ENC_ROUND(6); S5; ENC_ROUND(7); S6; \
	ENC_ROUND(8); S7; ENC_ROUND(9); S8; \
	if (nr > 10) { ENC_ROUND(10); S9; ENC_ROUND(11); } else { S9; } \
	S10; \
	if (nr > 12) { ENC_ROUND(12); S11; ENC_ROUND(13); } else { S11; } \
	S12; ENC_END(o_); S13; S14; S15; \
} while (0)

/*
 * Encrypt sectors esrc[0..31] into edst[] with the IVs eiv[] and keys
 * ekey[], and meanwhile compute the lmk IVs of the sectors hplain[] into
 * hiv[].  The two sets must not overlap.
 */
LMK_TARGET static inline __attribute__((always_inline)) void
enc32_hash32(const struct loop_aesni_key *const ekey[32], const uint8_t eiv[32][16],
	     uint8_t *const edst[32], const uint8_t *const esrc[32], uint8_t hiv[32][16],
	     const uint32_t seed[4], const uint8_t *const hplain[32], const uint64_t hsector[32],
	     const int nr)
{
	v16 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	uint8_t rkb[8][15][64] __attribute__((aligned(64)));
	__m512i x0, x1, x2, x3, x4, x5, x6, x7;
	uint8_t *const *d = edst;
	const uint8_t *const *s = esrc;
	struct lmk_hash h;
	int mb, j, r, i;
	MD5_K_POINTER;

	for (j = 0; j < 8; j++)
		for (r = 0; r <= nr; r++)
			for (i = 0; i < 4; i++)
				memcpy(rkb[j][r] + 16 * i, ekey[j + 8 * i]->enc[r], 16);
	loop_lmk_hash_blocks(&h, hplain, hsector, 32);
	MD5_INIT(seed);
	x0 = LANES4(eiv, 0, 0); x1 = LANES4(eiv, 1, 0); x2 = LANES4(eiv, 2, 0);
	x3 = LANES4(eiv, 3, 0); x4 = LANES4(eiv, 4, 0); x5 = LANES4(eiv, 5, 0);
	x6 = LANES4(eiv, 6, 0); x7 = LANES4(eiv, 7, 0);
	/* one MD5 block (64 steps) per four AES blocks */
	for (mb = 0; mb < 8; mb++) {
		MD5_SAVE;

		MD5_LOAD(mb);
		ENC_BLOCK_MIX(4 * mb + 0, MD5Z_S0, MD5Z_S1, MD5Z_S2, MD5Z_S3, MD5Z_S4, MD5Z_S5,
			       MD5Z_S6, MD5Z_S7, MD5Z_S8, MD5Z_S9, MD5Z_S10, MD5Z_S11, MD5Z_S12,
			       MD5Z_S13, MD5Z_S14, MD5Z_S15);
		ENC_BLOCK_MIX(4 * mb + 1, MD5Z_S16, MD5Z_S17, MD5Z_S18, MD5Z_S19, MD5Z_S20,
			       MD5Z_S21, MD5Z_S22, MD5Z_S23, MD5Z_S24, MD5Z_S25, MD5Z_S26,
			       MD5Z_S27, MD5Z_S28, MD5Z_S29, MD5Z_S30, MD5Z_S31);
		ENC_BLOCK_MIX(4 * mb + 2, MD5Z_S32, MD5Z_S33, MD5Z_S34, MD5Z_S35, MD5Z_S36,
			       MD5Z_S37, MD5Z_S38, MD5Z_S39, MD5Z_S40, MD5Z_S41, MD5Z_S42,
			       MD5Z_S43, MD5Z_S44, MD5Z_S45, MD5Z_S46, MD5Z_S47);
		ENC_BLOCK_MIX(4 * mb + 3, MD5Z_S48, MD5Z_S49, MD5Z_S50, MD5Z_S51, MD5Z_S52,
			       MD5Z_S53, MD5Z_S54, MD5Z_S55, MD5Z_S56, MD5Z_S57, MD5Z_S58,
			       MD5Z_S59, MD5Z_S60, MD5Z_S61, MD5Z_S62, MD5Z_S63);
		MD5_FEED;
	}
	MD5_STORE(hiv);
	explicit_bzero(&h, sizeof(h));
	explicit_bzero(w0, sizeof(w0));
	explicit_bzero(w1, sizeof(w1));
	explicit_bzero(rkb, sizeof(rkb));
}

/* ---- decrypt ---------------------------------------------------------- */

/*
 * CBC-decrypt half @hf (blocks 16hf..16hf+15) of sector @sec with a zero
 * IV: four zmm of four blocks.  The ciphertext each output is XORed with
 * is loaded only at the end, highest register first, so that with
 * dst == src a store overwrites only blocks already read; the first
 * register's takes the block before the half from carry (zero for the
 * sector's first half) and the rest with a masked load, which reads
 * nothing before the sector.
 */
#define DEC_ROUND(r) do { \
	x0 = _mm512_aesdec_epi128(x0, rk[r]); x1 = _mm512_aesdec_epi128(x1, rk[r]); \
	x2 = _mm512_aesdec_epi128(x2, rk[r]); x3 = _mm512_aesdec_epi128(x3, rk[r]); \
} while (0)
#define DEC_LD(j) _mm512_xor_si512(_mm512_loadu_si512((const void *)(s_ + 64 * (j))), rk[0])
#define DEC_OUT(x, j) _mm512_storeu_si512((void *)(d_ + 64 * (j)), _mm512_xor_si512(x, \
	_mm512_loadu_si512((const void *)(s_ + 64 * (j) - 16))))
#define DEC_BEGIN(sec, hf) do { \
	int r_; \
	s_ = dsrc[sec] + 256 * (hf); \
	d_ = ddst[sec] + 256 * (hf); \
	if ((hf) == 0) { \
		for (r_ = 0; r_ <= nr; r_++) \
			rk[r_] = _mm512_broadcast_i32x4( \
				_mm_load_si128((const __m128i *)dkey[sec]->dec[r_])); \
		carry = _mm_setzero_si128(); \
	} \
	x0 = DEC_LD(0); x1 = DEC_LD(1); x2 = DEC_LD(2); x3 = DEC_LD(3); \
} while (0)
#define DEC_END do { \
	const __m128i next_ = _mm_loadu_si128((const __m128i *)(s_ + 240)); \
	x0 = _mm512_aesdeclast_epi128(x0, rk[nr]); x1 = _mm512_aesdeclast_epi128(x1, rk[nr]); \
	x2 = _mm512_aesdeclast_epi128(x2, rk[nr]); x3 = _mm512_aesdeclast_epi128(x3, rk[nr]); \
	DEC_OUT(x3, 3); DEC_OUT(x2, 2); DEC_OUT(x1, 1); \
	_mm512_storeu_si512((void *)d_, _mm512_xor_si512(x0, _mm512_mask_loadu_epi32( \
		_mm512_zextsi128_si512(carry), 0xfff0, s_ - 16))); \
	carry = next_; \
} while (0)
#define DEC_HALF_MIX(sec, hf, S0, S1, S2, S3, S4, S5, S6, S7) do { \
	DEC_BEGIN(sec, hf); DEC_ROUND(1); S0; \
	DEC_ROUND(2); DEC_ROUND(3); S1; DEC_ROUND(4); DEC_ROUND(5); S2; \
	DEC_ROUND(6); DEC_ROUND(7); S3; DEC_ROUND(8); DEC_ROUND(9); S4; \
	if (nr > 10) { DEC_ROUND(10); DEC_ROUND(11); } \
	S5; \
	if (nr > 12) { DEC_ROUND(12); DEC_ROUND(13); } \
	S6; DEC_END; S7; \
} while (0)

/*
 * Decrypt sectors dsrc[0..31] into ddst[] with a zero IV (their first
 * blocks still need their IV XORed in), and meanwhile compute the lmk
 * IVs of the sectors hplain[] (already decrypted) into hiv[].  The two
 * sets must not overlap.
 */
LMK_TARGET static inline __attribute__((always_inline)) void
dec32_hash32(const struct loop_aesni_key *const dkey[32], uint8_t *const ddst[32],
	     const uint8_t *const dsrc[32], uint8_t hiv[32][16], const uint32_t seed[4],
	     const uint8_t *const hplain[32], const uint64_t hsector[32], const int nr)
{
	v16 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	__m512i rk[15], x0, x1, x2, x3;
	__m128i carry = _mm_setzero_si128();
	const uint8_t *s_;
	uint8_t *d_;
	struct lmk_hash h;
	int mb;
	MD5_K_POINTER;

	loop_lmk_hash_blocks(&h, hplain, hsector, 32);
	MD5_INIT(seed);
	/* one MD5 block (64 steps) per four sectors (8 halves) */
	for (mb = 0; mb < 8; mb++) {
		MD5_SAVE;

		MD5_LOAD(mb);
		DEC_HALF_MIX(4 * mb, 0, MD5Z_S0, MD5Z_S1, MD5Z_S2, MD5Z_S3,
			     MD5Z_S4, MD5Z_S5, MD5Z_S6, MD5Z_S7);
		DEC_HALF_MIX(4 * mb, 1, MD5Z_S8, MD5Z_S9, MD5Z_S10, MD5Z_S11,
			     MD5Z_S12, MD5Z_S13, MD5Z_S14, MD5Z_S15);
		DEC_HALF_MIX(4 * mb + 1, 0, MD5Z_S16, MD5Z_S17, MD5Z_S18, MD5Z_S19,
			     MD5Z_S20, MD5Z_S21, MD5Z_S22, MD5Z_S23);
		DEC_HALF_MIX(4 * mb + 1, 1, MD5Z_S24, MD5Z_S25, MD5Z_S26, MD5Z_S27,
			     MD5Z_S28, MD5Z_S29, MD5Z_S30, MD5Z_S31);
		DEC_HALF_MIX(4 * mb + 2, 0, MD5Z_S32, MD5Z_S33, MD5Z_S34, MD5Z_S35,
			     MD5Z_S36, MD5Z_S37, MD5Z_S38, MD5Z_S39);
		DEC_HALF_MIX(4 * mb + 2, 1, MD5Z_S40, MD5Z_S41, MD5Z_S42, MD5Z_S43,
			     MD5Z_S44, MD5Z_S45, MD5Z_S46, MD5Z_S47);
		DEC_HALF_MIX(4 * mb + 3, 0, MD5Z_S48, MD5Z_S49, MD5Z_S50, MD5Z_S51,
			     MD5Z_S52, MD5Z_S53, MD5Z_S54, MD5Z_S55);
		DEC_HALF_MIX(4 * mb + 3, 1, MD5Z_S56, MD5Z_S57, MD5Z_S58, MD5Z_S59,
			     MD5Z_S60, MD5Z_S61, MD5Z_S62, MD5Z_S63);
		MD5_FEED;
	}
	MD5_STORE(hiv);
	explicit_bzero(&h, sizeof(h));
	explicit_bzero(w0, sizeof(w0));
	explicit_bzero(w1, sizeof(w1));
	explicit_bzero(rk, sizeof(rk));
}

LMK_KERNELS(LMK_TARGET, enc32_hash32, dec32_hash32)

/* ---- runs ------------------------------------------------------------- */

size_t loop_aesni_lmk_encrypt_x32(const struct loop_aesni_key keys[64], const uint32_t seed[4],
				  uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{
	return loop_lmk_run_encrypt(keys, seed, first, dst, src, n, 32,
				    enc_kernel(keys[0].rounds), loop_lmk_iv_x32);
}

size_t loop_aesni_lmk_decrypt_x32(const struct loop_aesni_key keys[64], const uint32_t seed[4],
				  uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{
	return loop_lmk_run_decrypt(keys, seed, first, dst, src, n, 32,
				    dec_kernel(keys[0].rounds), loop_lmk_iv_x32);
}

/*
 * An emulator or hypervisor that says AVX-512 and VAES may still get zmm
 * VAES, a masked load or a lane insert wrong (QEMU's ymm VAES was wrong,
 * aesni-cbc.c): before this path is used, a run of 64 sectors both ways
 * (one fused batch each way) is checked against the xmm AES-NI and the
 * scalar MD5.  Keys and data are made up, nothing secret.
 */
static int x32_selftest(void)
{
	const uint64_t first = 0x0123456789abull;
	struct loop_aesni_key *keys = malloc(64 * sizeof(*keys));
	uint8_t *pt = malloc(64 * SEC), *ct = malloc(64 * SEC), *ref = malloc(64 * SEC);
	uint8_t kb[32], iv[1][16];
	uint32_t seed[4];
	int ok = 0, l, i;

	if (!keys || !pt || !ct || !ref)
		goto out;
	for (l = 0; l < 64; l++) {
		for (i = 0; i < 32; i++)
			kb[i] = (uint8_t)(l * 37 + i * 11 + 1);
		loop_aesni_expand_key(&keys[l], kb, sizeof(kb));
	}
	for (i = 0; i < 64 * SEC; i++)
		pt[i] = (uint8_t)(i * 151 + (i >> 9) * 7 + 3);
	loop_md5_init_state(seed);
	for (l = 0; l < 64; l++) {
		const struct loop_aesni_key *k = &keys[(first + (uint64_t)l) & 63];
		const uint8_t *s = pt + (size_t)l * SEC;
		uint8_t *d = ref + (size_t)l * SEC;

		loop_lmk_iv(iv[0], seed, s, first + (uint64_t)l);
		loop_aesni_cbc_encrypt_sectors(&k, (const uint8_t (*)[16])iv, &d, &s, 1);
	}
	ok = loop_aesni_lmk_encrypt_x32(keys, seed, first, ct, pt, 64) == 64 &&
	     !memcmp(ct, ref, 64 * SEC) &&
	     loop_aesni_lmk_decrypt_x32(keys, seed, first, ct, ct, 64) == 64 &&
	     !memcmp(ct, pt, 64 * SEC);
out:
	free(keys);
	free(pt);
	free(ct);
	free(ref);
	return ok;
}

/* 1 usable, 2 not; 0 not known yet (every thread computes the same) */
static int x32_state;

int loop_aesni_lmk_x32_available(void)
{
	int st = __atomic_load_n(&x32_state, __ATOMIC_RELAXED);

	if (!st) {
		st = loop_cpu_has(LOOP_CPU_AVX512F | LOOP_CPU_AVX512VL | LOOP_CPU_VAES) &&
		     loop_md5_x32_available() && loop_aesni_vaes_available() &&
		     x32_selftest() ? 1 : 2;
		__atomic_store_n(&x32_state, st, __ATOMIC_RELAXED);
	}
	return st == 1;
}

#else

int loop_aesni_lmk_x32_available(void) { return 0; }
size_t loop_aesni_lmk_encrypt_x32(const struct loop_aesni_key keys[64], const uint32_t seed[4],
				  uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{ (void)keys; (void)seed; (void)first; (void)dst; (void)src; (void)n; return 0; }
size_t loop_aesni_lmk_decrypt_x32(const struct loop_aesni_key keys[64], const uint32_t seed[4],
				  uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{ (void)keys; (void)seed; (void)first; (void)dst; (void)src; (void)n; return 0; }

#endif
