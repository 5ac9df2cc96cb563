/*
 * aesni-lmk.c - loop-AES multi-key CBC with the MD5 IV hashed in the
 * gaps of the AES.
 *
 * Why: each sector's lmk IV is an MD5 over its plaintext, and hashing
 * alone (md5-x16.c) costs as much time as the AES.  But the two use
 * different parts of the core: CBC encryption is a chain of AESENCs
 * whose 4-cycle latency leaves the vector ALUs idle, and MD5 is adds,
 * logic and shifts.  So while one batch of 16 sectors is AES-encrypted,
 * the IVs of the next batch are hashed in the same instruction stream,
 * one MD5 step after every two AES rounds, and the out-of-order core
 * runs both at once.  Decryption is the mirror image: the next batch is
 * AES-decrypted (with a zero IV) while the batch before it, now
 * plaintext, is hashed and its first blocks fixed up.
 *
 * The AES of a batch runs as two groups of eight sectors, four ymm
 * registers each holding two sectors' CBC chains (VAES); decryption
 * takes a quarter sector (four ymm of two blocks) at a time.  Four AES
 * registers and the 16 MD5 lanes (md5-avx2.h's two 8-lane streams, eight
 * registers) fit the sixteen ymm registers without spilling.
 *
 * Checked byte for byte against libgcrypt's AES and MD5 and against
 * aespipe's multi-key images (tests/unit/test-crypto-lmk.c,
 * tests/kat/run-lmk-lanes.sh).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto/crypto-internal.h"

#if defined(__x86_64__)
#include "crypto/aesni-lmk-run.h"
#include "crypto/md5-avx2.h"

#define LMK_TARGET __attribute__((target("avx2,vaes,aes")))

/* two 16-byte values as one ymm: lo in bits 0-127, hi in 128-255 */
#define LOAD2(hi, lo) _mm256_loadu2_m128i((const __m128i *)(hi), (const __m128i *)(lo))
#define STORE2(hi, lo, v) _mm256_storeu2_m128i((__m128i *)(hi), (__m128i *)(lo), v)

#define MD5_INIT(seed) do { \
	a0 = a1 = _mm256_set1_epi32((int)(seed)[0]); \
	b0 = b1 = _mm256_set1_epi32((int)(seed)[1]); \
	c0 = c1 = _mm256_set1_epi32((int)(seed)[2]); \
	d0 = d1 = _mm256_set1_epi32((int)(seed)[3]); \
} while (0)
#define MD5_SAVE \
	const v8 sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0; \
	const v8 sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1
#define MD5_FEED do { \
	a0 = M5ADD(a0, sa0); b0 = M5ADD(b0, sb0); c0 = M5ADD(c0, sc0); d0 = M5ADD(d0, sd0); \
	a1 = M5ADD(a1, sa1); b1 = M5ADD(b1, sb1); c1 = M5ADD(c1, sc1); d1 = M5ADD(d1, sd1); \
} while (0)

/* ---- encrypt ---------------------------------------------------------- */

/* CBC-encrypt 16-byte block @blk of the group's 8 sectors: chain j holds
 * sector j (low half) and j + 4 (high half).  Written out in named
 * registers: in an array they would go through memory every round. */
#define ENC_ROUND(r) do { \
	x0 = _mm256_aesenc_epi128(x0, rk[0][r]); \
	x1 = _mm256_aesenc_epi128(x1, rk[1][r]); \
	x2 = _mm256_aesenc_epi128(x2, rk[2][r]); \
	x3 = _mm256_aesenc_epi128(x3, rk[3][r]); \
} while (0)
#define ENC_IN(j, o) _mm256_xor_si256(LOAD2(s[j + 4] + (o), s[j] + (o)), rk[j][0])
#define ENC_BEGIN(o) do { \
	x0 = _mm256_xor_si256(x0, ENC_IN(0, o)); \
	x1 = _mm256_xor_si256(x1, ENC_IN(1, o)); \
	x2 = _mm256_xor_si256(x2, ENC_IN(2, o)); \
	x3 = _mm256_xor_si256(x3, ENC_IN(3, o)); \
} while (0)
#define ENC_END(o) do { \
	x0 = _mm256_aesenclast_epi128(x0, rk[0][nr]); \
	x1 = _mm256_aesenclast_epi128(x1, rk[1][nr]); \
	x2 = _mm256_aesenclast_epi128(x2, rk[2][nr]); \
	x3 = _mm256_aesenclast_epi128(x3, rk[3][nr]); \
	STORE2(d[4] + (o), d[0] + (o), x0); \
	STORE2(d[5] + (o), d[1] + (o), x1); \
	STORE2(d[6] + (o), d[2] + (o), x2); \
	STORE2(d[7] + (o), d[3] + (o), x3); \
} while (0)
/*
 * One 16-byte block of the group's 8 chains with eight MD5 steps threaded
 * through its rounds, a step after every two rounds.  Why so fine: the
 * AES rounds of a block wait on each other (4 cycles each); issued as one
 * run of 60 instructions they fill the scheduler with waiting AESENCs and
 * the MD5 behind them cannot start, so the two ran one after the other.
 * nr is a compile-time constant (enc16_hash16 is inlined per key size),
 * so the ifs cost nothing.
 */
#define ENC_BLOCK_MIX(blk, S0, S1, S2, S3, S4, S5, S6, S7) do { \
	const size_t o_ = 16 * (size_t)(blk); \
	ENC_BEGIN(o_); ENC_ROUND(1); S0; \
	ENC_ROUND(2); ENC_ROUND(3); S1; ENC_ROUND(4); ENC_ROUND(5); S2; \
	ENC_ROUND(6); ENC_ROUND(7); S3; ENC_ROUND(8); ENC_ROUND(9); S4; \
	if (nr > 10) { ENC_ROUND(10); ENC_ROUND(11); } \
	S5; \
	if (nr > 12) { ENC_ROUND(12); ENC_ROUND(13); } \
	S6; ENC_END(o_); S7; \
} while (0)

/*
 * Encrypt sectors esrc[0..15] into edst[] with the IVs eiv[] and keys
 * ekey[], and meanwhile compute the lmk IVs of the sectors hplain[] into
 * hiv[].  The two sets must not overlap.
 */
LMK_TARGET static inline __attribute__((always_inline)) void
enc16_hash16(const struct loop_aesni_key *const ekey[16], const uint8_t eiv[16][16],
	     uint8_t *const edst[16], const uint8_t *const esrc[16], uint8_t hiv[16][16],
	     const uint32_t seed[4], const uint8_t *const hplain[16], const uint64_t hsector[16],
	     const int nr)
{
	v8 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	__m256i rk[4][15], x0, x1, x2, x3;
	struct lmk_hash h;
	int g, q, j, r;
	MD5_CONSTS;

	loop_lmk_hash_blocks(&h, hplain, hsector, 16);
	MD5_INIT(seed);
	for (g = 0; g < 2; g++) {
		const struct loop_aesni_key *const *k = ekey + 8 * g;
		uint8_t *const *d = edst + 8 * g;
		const uint8_t *const *s = esrc + 8 * g;

		for (j = 0; j < 4; j++)
			for (r = 0; r <= nr; r++)
				rk[j][r] = LOAD2(k[j + 4]->enc[r], k[j]->enc[r]);
		x0 = LOAD2(eiv[8 * g + 4], eiv[8 * g + 0]);
		x1 = LOAD2(eiv[8 * g + 5], eiv[8 * g + 1]);
		x2 = LOAD2(eiv[8 * g + 6], eiv[8 * g + 2]);
		x3 = LOAD2(eiv[8 * g + 7], eiv[8 * g + 3]);
		/* four MD5 blocks per group: 8 groups of steps per 8 AES blocks */
		for (q = 0; q < 4; q++) {
			MD5_SAVE;

			md5_load_x8(w0, h.blk[4 * g + q], 0);
			md5_load_x8(w1, h.blk[4 * g + q] + 8, 0);
			ENC_BLOCK_MIX(8 * q + 0, MD5_S0, MD5_S1, MD5_S2, MD5_S3,
				      MD5_S4, MD5_S5, MD5_S6, MD5_S7);
			ENC_BLOCK_MIX(8 * q + 1, MD5_S8, MD5_S9, MD5_S10, MD5_S11,
				      MD5_S12, MD5_S13, MD5_S14, MD5_S15);
			ENC_BLOCK_MIX(8 * q + 2, MD5_S16, MD5_S17, MD5_S18, MD5_S19,
				      MD5_S20, MD5_S21, MD5_S22, MD5_S23);
			ENC_BLOCK_MIX(8 * q + 3, MD5_S24, MD5_S25, MD5_S26, MD5_S27,
				      MD5_S28, MD5_S29, MD5_S30, MD5_S31);
			ENC_BLOCK_MIX(8 * q + 4, MD5_S32, MD5_S33, MD5_S34, MD5_S35,
				      MD5_S36, MD5_S37, MD5_S38, MD5_S39);
			ENC_BLOCK_MIX(8 * q + 5, MD5_S40, MD5_S41, MD5_S42, MD5_S43,
				      MD5_S44, MD5_S45, MD5_S46, MD5_S47);
			ENC_BLOCK_MIX(8 * q + 6, MD5_S48, MD5_S49, MD5_S50, MD5_S51,
				      MD5_S52, MD5_S53, MD5_S54, MD5_S55);
			ENC_BLOCK_MIX(8 * q + 7, MD5_S56, MD5_S57, MD5_S58, MD5_S59,
				      MD5_S60, MD5_S61, MD5_S62, MD5_S63);
			MD5_FEED;
		}
	}
	md5_store_ivs16(hiv, a0, b0, c0, d0, a1, b1, c1, d1);
	explicit_bzero(&h, sizeof(h));
	explicit_bzero(w0, sizeof(w0));
	explicit_bzero(w1, sizeof(w1));
	explicit_bzero(rk, sizeof(rk));
	_mm256_zeroall();
}

/* ---- decrypt ---------------------------------------------------------- */

/*
 * CBC-decrypt quarter @qt (blocks 8qt..8qt+7) of sector @sec with a zero
 * IV: four ymm of two blocks, in named registers, with eight MD5 steps
 * threaded through the rounds (see ENC_BLOCK_MIX for why so fine; nr is
 * a compile-time constant here too).  Four chains, not eight: with the
 * 16 MD5 state registers, eight AES ones would spill.  The ciphertext
 * each block's output is XORed with is loaded only at the end (so it
 * does not hold registers through the rounds), highest pair first: with
 * dst == src a store then overwrites only blocks already read.  The last
 * ciphertext block of the quarter before is kept in carry.
 */
#define DEC_ROUND4(r) do { \
	x0 = _mm256_aesdec_epi128(x0, rk[r]); x1 = _mm256_aesdec_epi128(x1, rk[r]); \
	x2 = _mm256_aesdec_epi128(x2, rk[r]); x3 = _mm256_aesdec_epi128(x3, rk[r]); \
} while (0)
#define DEC_LD(j) _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(s_ + 32 * (j))), rk[0])
#define DEC_OUT(x, j) _mm256_storeu_si256((__m256i *)(d_ + 32 * (j)), _mm256_xor_si256(x, \
	_mm256_loadu_si256((const __m256i *)(s_ + 32 * (j) - 16))))
#define DEC_BEGIN(sec, qt) do { \
	int r_; \
	s_ = dsrc[sec] + 128 * (qt); \
	d_ = ddst[sec] + 128 * (qt); \
	if ((qt) == 0) { \
		for (r_ = 0; r_ <= nr; r_++) \
			rk[r_] = _mm256_broadcastsi128_si256( \
				_mm_load_si128((const __m128i *)dkey[sec]->dec[r_])); \
		carry = _mm_setzero_si128(); \
	} \
	x0 = DEC_LD(0); x1 = DEC_LD(1); x2 = DEC_LD(2); x3 = DEC_LD(3); \
} while (0)
#define DEC_END do { \
	const __m128i next_ = _mm_loadu_si128((const __m128i *)(s_ + 112)); \
	x0 = _mm256_aesdeclast_epi128(x0, rk[nr]); x1 = _mm256_aesdeclast_epi128(x1, rk[nr]); \
	x2 = _mm256_aesdeclast_epi128(x2, rk[nr]); x3 = _mm256_aesdeclast_epi128(x3, rk[nr]); \
	DEC_OUT(x3, 3); DEC_OUT(x2, 2); DEC_OUT(x1, 1); \
	_mm256_storeu_si256((__m256i *)d_, _mm256_xor_si256(x0, _mm256_inserti128_si256( \
		_mm256_castsi128_si256(carry), _mm_loadu_si128((const __m128i *)s_), 1))); \
	carry = next_; \
} while (0)
#define DEC_QUARTER_MIX(sec, qt, S0, S1, S2, S3, S4, S5, S6, S7) do { \
	DEC_BEGIN(sec, qt); DEC_ROUND4(1); S0; \
	DEC_ROUND4(2); DEC_ROUND4(3); S1; DEC_ROUND4(4); DEC_ROUND4(5); S2; \
	DEC_ROUND4(6); DEC_ROUND4(7); S3; DEC_ROUND4(8); DEC_ROUND4(9); S4; \
	if (nr > 10) { DEC_ROUND4(10); DEC_ROUND4(11); } \
	S5; \
	if (nr > 12) { DEC_ROUND4(12); DEC_ROUND4(13); } \
	S6; DEC_END; S7; \
} while (0)

/*
 * Decrypt sectors dsrc[0..15] into ddst[] with a zero IV (their first
 * blocks still need their IV XORed in), and meanwhile compute the lmk
 * IVs of the sectors hplain[] (already decrypted) into hiv[].  The two
 * sets must not overlap.
 */
LMK_TARGET static inline __attribute__((always_inline)) void
dec16_hash16(const struct loop_aesni_key *const dkey[16], uint8_t *const ddst[16],
	     const uint8_t *const dsrc[16], uint8_t hiv[16][16], const uint32_t seed[4],
	     const uint8_t *const hplain[16], const uint64_t hsector[16], const int nr)
{
	v8 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	__m256i rk[15], x0, x1, x2, x3;
	__m128i carry = _mm_setzero_si128();
	const uint8_t *s_;
	uint8_t *d_;
	struct lmk_hash h;
	int mb;
	MD5_CONSTS;

	loop_lmk_hash_blocks(&h, hplain, hsector, 16);
	MD5_INIT(seed);
	/* one MD5 block (64 steps) per two sectors (8 quarters) */
	for (mb = 0; mb < 8; mb++) {
		MD5_SAVE;

		md5_load_x8(w0, h.blk[mb], 0);
		md5_load_x8(w1, h.blk[mb] + 8, 0);
		DEC_QUARTER_MIX(2 * mb, 0, MD5_S0, MD5_S1, MD5_S2, MD5_S3, MD5_S4, MD5_S5, MD5_S6, MD5_S7);
		DEC_QUARTER_MIX(2 * mb, 1, MD5_S8, MD5_S9, MD5_S10, MD5_S11, MD5_S12, MD5_S13, MD5_S14, MD5_S15);
		DEC_QUARTER_MIX(2 * mb, 2, MD5_S16, MD5_S17, MD5_S18, MD5_S19, MD5_S20, MD5_S21, MD5_S22, MD5_S23);
		DEC_QUARTER_MIX(2 * mb, 3, MD5_S24, MD5_S25, MD5_S26, MD5_S27, MD5_S28, MD5_S29, MD5_S30, MD5_S31);
		DEC_QUARTER_MIX(2 * mb + 1, 0, MD5_S32, MD5_S33, MD5_S34, MD5_S35, MD5_S36, MD5_S37, MD5_S38, MD5_S39);
		DEC_QUARTER_MIX(2 * mb + 1, 1, MD5_S40, MD5_S41, MD5_S42, MD5_S43, MD5_S44, MD5_S45, MD5_S46, MD5_S47);
		DEC_QUARTER_MIX(2 * mb + 1, 2, MD5_S48, MD5_S49, MD5_S50, MD5_S51, MD5_S52, MD5_S53, MD5_S54, MD5_S55);
		DEC_QUARTER_MIX(2 * mb + 1, 3, MD5_S56, MD5_S57, MD5_S58, MD5_S59, MD5_S60, MD5_S61, MD5_S62, MD5_S63);
		MD5_FEED;
	}
	md5_store_ivs16(hiv, a0, b0, c0, d0, a1, b1, c1, d1);
	explicit_bzero(&h, sizeof(h));
	explicit_bzero(w0, sizeof(w0));
	explicit_bzero(w1, sizeof(w1));
	explicit_bzero(rk, sizeof(rk));
	_mm256_zeroall();
}

LMK_KERNELS(LMK_TARGET, enc16_hash16, dec16_hash16)

/* ---- runs ------------------------------------------------------------- */

size_t loop_aesni_lmk_encrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{
	return loop_lmk_run_encrypt(keys, seed, first, dst, src, n, 16,
				    enc_kernel(keys[0].rounds), loop_lmk_iv_x16);
}

size_t loop_aesni_lmk_decrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{
	return loop_lmk_run_decrypt(keys, seed, first, dst, src, n, 16,
				    dec_kernel(keys[0].rounds), loop_lmk_iv_x16);
}

#else

size_t loop_aesni_lmk_encrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{ (void)keys; (void)seed; (void)first; (void)dst; (void)src; (void)n; return 0; }
size_t loop_aesni_lmk_decrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{ (void)keys; (void)seed; (void)first; (void)dst; (void)src; (void)n; return 0; }

#endif
