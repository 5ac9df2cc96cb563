/*
 * aesni-lmk.c - loop-AES multi-key CBC with the MD5 IV hashed in the
 * gaps of the AES.
 *
 * Why: each sector's lmk IV is an MD5 over its plaintext, and hashing
 * alone (md5-x16.c) costs as much time as the AES.  But the two use
 * different parts of the core: CBC encryption is a chain of AESENCs
 * whose 4-cycle latency leaves the vector ALUs idle, and MD5 is adds,
 * logic and shifts.  So while one batch of 16 sectors is AES-encrypted,
 * the IVs of the next batch are hashed, one group of eight MD5 steps
 * after each AES block, in the same instruction stream; the out-of-order
 * core runs both at once.  Decryption is the mirror image: the next
 * batch is AES-decrypted (with a zero IV) while the batch before it,
 * now plaintext, is hashed and its first blocks fixed up.
 *
 * The AES of a batch runs as two groups of eight sectors, four ymm
 * registers each holding two sectors' CBC chains (VAES), so each group
 * has the 8 chains in flight that the single-key code (aesni-cbc.c)
 * uses; the 16 MD5 lanes are md5-avx2.h's two 8-lane streams.
 *
 * Checked byte for byte against libgcrypt's AES and MD5 and against
 * aespipe's multi-key images (tests/unit/test-crypto-lmk.c,
 * tests/kat/run-lmk-lanes.sh).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto-internal.h"

#if defined(__x86_64__)
#include "md5-avx2.h"

#define LMK_TARGET __attribute__((target("avx2,vaes,aes")))
#define SEC LOOP_SECTOR_SIZE

/* two 16-byte values as one ymm: lo in bits 0-127, hi in 128-255 */
#define LOAD2(hi, lo) _mm256_loadu2_m128i((const __m128i *)(hi), (const __m128i *)(lo))
#define STORE2(hi, lo, v) _mm256_storeu2_m128i((__m128i *)(hi), (__m128i *)(lo), v)

struct lmk_hash {
	const uint8_t *blk[8][16];	/* MD5 block b of sector l */
	uint8_t last[16][64];
};

static void hash_blocks(struct lmk_hash *h, const uint8_t *const plain[16],
			const uint64_t sector[16])
{
	int l, b;

	for (l = 0; l < 16; l++) {
		lmk_last_block(h->last[l], plain[l], sector[l]);
		for (b = 0; b < 7; b++)
			h->blk[b][l] = plain[l] + 16 + 64 * b;
		h->blk[7][l] = h->last[l];
	}
}

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
#define AES_ENC_BLOCK(blk) do { \
	size_t o_ = 16 * (size_t)(blk); \
	x0 = _mm256_xor_si256(x0, ENC_IN(0, o_)); \
	x1 = _mm256_xor_si256(x1, ENC_IN(1, o_)); \
	x2 = _mm256_xor_si256(x2, ENC_IN(2, o_)); \
	x3 = _mm256_xor_si256(x3, ENC_IN(3, o_)); \
	ENC_ROUND(1); ENC_ROUND(2); ENC_ROUND(3); ENC_ROUND(4); ENC_ROUND(5); \
	ENC_ROUND(6); ENC_ROUND(7); ENC_ROUND(8); ENC_ROUND(9); \
	if (nr > 10) { ENC_ROUND(10); ENC_ROUND(11); } \
	if (nr > 12) { ENC_ROUND(12); ENC_ROUND(13); } \
	x0 = _mm256_aesenclast_epi128(x0, rk[0][nr]); \
	x1 = _mm256_aesenclast_epi128(x1, rk[1][nr]); \
	x2 = _mm256_aesenclast_epi128(x2, rk[2][nr]); \
	x3 = _mm256_aesenclast_epi128(x3, rk[3][nr]); \
	STORE2(d[4] + o_, d[0] + o_, x0); \
	STORE2(d[5] + o_, d[1] + o_, x1); \
	STORE2(d[6] + o_, d[2] + o_, x2); \
	STORE2(d[7] + o_, d[3] + o_, x3); \
} while (0)

/*
 * Encrypt sectors esrc[0..15] into edst[] with the IVs eiv[] and keys
 * ekey[], and meanwhile compute the lmk IVs of the sectors hplain[] into
 * hiv[].  The two sets must not overlap.
 */
LMK_TARGET static void enc16_hash16(const struct loop_aesni_key *const ekey[16],
				    const uint8_t eiv[16][16], uint8_t *const edst[16],
				    const uint8_t *const esrc[16], uint8_t hiv[16][16],
				    const uint32_t seed[4], const uint8_t *const hplain[16],
				    const uint64_t hsector[16])
{
	v8 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	__m256i rk[4][15], x0, x1, x2, x3;
	struct lmk_hash h;
	const int nr = ekey[0]->rounds;
	int g, q, j, r;

	hash_blocks(&h, hplain, hsector);
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
			AES_ENC_BLOCK(8 * q + 0); MD5_OCT0;
			AES_ENC_BLOCK(8 * q + 1); MD5_OCT1;
			AES_ENC_BLOCK(8 * q + 2); MD5_OCT2;
			AES_ENC_BLOCK(8 * q + 3); MD5_OCT3;
			AES_ENC_BLOCK(8 * q + 4); MD5_OCT4;
			AES_ENC_BLOCK(8 * q + 5); MD5_OCT5;
			AES_ENC_BLOCK(8 * q + 6); MD5_OCT6;
			AES_ENC_BLOCK(8 * q + 7); MD5_OCT7;
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

/* CBC-decrypt half @hf (blocks 16hf..16hf+15) of sector @sec with a zero
 * IV: eight ymm of two blocks, in named registers.  The previous half's
 * last ciphertext block is kept in carry, since dst may equal src. */
#define DEC_OUT(x, p, j) _mm256_storeu_si256((__m256i *)(d_ + 32 * (j)), \
	_mm256_xor_si256(_mm256_aesdeclast_epi128(x, rk[nr]), p))
#define DEC_ROUND8(r) do { \
	x0 = _mm256_aesdec_epi128(x0, rk[r]); x1 = _mm256_aesdec_epi128(x1, rk[r]); \
	x2 = _mm256_aesdec_epi128(x2, rk[r]); x3 = _mm256_aesdec_epi128(x3, rk[r]); \
	x4 = _mm256_aesdec_epi128(x4, rk[r]); x5 = _mm256_aesdec_epi128(x5, rk[r]); \
	x6 = _mm256_aesdec_epi128(x6, rk[r]); x7 = _mm256_aesdec_epi128(x7, rk[r]); \
} while (0)
#define DEC_LD(j) _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(s_ + 32 * (j))), rk[0])
#define DEC_PV(j) _mm256_loadu_si256((const __m256i *)(s_ + 32 * (j) - 16))
#define AES_DEC_HALF(sec, hf) do { \
	const uint8_t *s_ = dsrc[sec] + 256 * (hf); \
	uint8_t *d_ = ddst[sec] + 256 * (hf); \
	__m256i p0_, p1_, p2_, p3_, p4_, p5_, p6_, p7_, c7_; \
	int r_; \
	if ((hf) == 0) { \
		for (r_ = 0; r_ <= nr; r_++) \
			rk[r_] = _mm256_broadcastsi128_si256( \
				_mm_load_si128((const __m128i *)dkey[sec]->dec[r_])); \
		carry = _mm_setzero_si128(); \
	} \
	p0_ = _mm256_inserti128_si256(_mm256_castsi128_si256(carry), \
				      _mm_loadu_si128((const __m128i *)s_), 1); \
	p1_ = DEC_PV(1); p2_ = DEC_PV(2); p3_ = DEC_PV(3); \
	p4_ = DEC_PV(4); p5_ = DEC_PV(5); p6_ = DEC_PV(6); p7_ = DEC_PV(7); \
	c7_ = _mm256_loadu_si256((const __m256i *)(s_ + 224)); \
	carry = _mm256_extracti128_si256(c7_, 1); \
	x0 = DEC_LD(0); x1 = DEC_LD(1); x2 = DEC_LD(2); x3 = DEC_LD(3); \
	x4 = DEC_LD(4); x5 = DEC_LD(5); x6 = DEC_LD(6); x7 = _mm256_xor_si256(c7_, rk[0]); \
	DEC_ROUND8(1); DEC_ROUND8(2); DEC_ROUND8(3); DEC_ROUND8(4); DEC_ROUND8(5); \
	DEC_ROUND8(6); DEC_ROUND8(7); DEC_ROUND8(8); DEC_ROUND8(9); \
	if (nr > 10) { DEC_ROUND8(10); DEC_ROUND8(11); } \
	if (nr > 12) { DEC_ROUND8(12); DEC_ROUND8(13); } \
	DEC_OUT(x0, p0_, 0); DEC_OUT(x1, p1_, 1); DEC_OUT(x2, p2_, 2); DEC_OUT(x3, p3_, 3); \
	DEC_OUT(x4, p4_, 4); DEC_OUT(x5, p5_, 5); DEC_OUT(x6, p6_, 6); DEC_OUT(x7, p7_, 7); \
} while (0)

/*
 * Decrypt sectors dsrc[0..15] into ddst[] with a zero IV (their first
 * blocks still need their IV XORed in), and meanwhile compute the lmk
 * IVs of the sectors hplain[] (already decrypted) into hiv[].  The two
 * sets must not overlap.
 */
LMK_TARGET static void dec16_hash16(const struct loop_aesni_key *const dkey[16],
				    uint8_t *const ddst[16], const uint8_t *const dsrc[16],
				    uint8_t hiv[16][16], const uint32_t seed[4],
				    const uint8_t *const hplain[16], const uint64_t hsector[16])
{
	v8 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	__m256i rk[15], x0, x1, x2, x3, x4, x5, x6, x7;
	__m128i carry = _mm_setzero_si128();
	struct lmk_hash h;
	const int nr = dkey[0]->rounds;
	int mb;

	hash_blocks(&h, hplain, hsector);
	MD5_INIT(seed);
	/* one MD5 block (8 groups of steps) per two sectors (4 halves) */
	for (mb = 0; mb < 8; mb++) {
		MD5_SAVE;

		md5_load_x8(w0, h.blk[mb], 0);
		md5_load_x8(w1, h.blk[mb] + 8, 0);
		AES_DEC_HALF(2 * mb, 0); MD5_OCT0; MD5_OCT1;
		AES_DEC_HALF(2 * mb, 1); MD5_OCT2; MD5_OCT3;
		AES_DEC_HALF(2 * mb + 1, 0); MD5_OCT4; MD5_OCT5;
		AES_DEC_HALF(2 * mb + 1, 1); MD5_OCT6; MD5_OCT7;
		MD5_FEED;
	}
	md5_store_ivs16(hiv, a0, b0, c0, d0, a1, b1, c1, d1);
	explicit_bzero(&h, sizeof(h));
	explicit_bzero(w0, sizeof(w0));
	explicit_bzero(w1, sizeof(w1));
	explicit_bzero(rk, sizeof(rk));
	_mm256_zeroall();
}

/* ---- runs ------------------------------------------------------------- */

struct lmk_batch {
	const struct loop_aesni_key *key[16];
	const uint8_t *src[16];
	uint8_t *dst[16];
	uint64_t sector[16];
	uint8_t iv[16][16];
};

static void batch_at(struct lmk_batch *b, const struct loop_aesni_key *keys,
		     uint64_t first, uint8_t *dst, const uint8_t *src, size_t i)
{
	int l;

	for (l = 0; l < 16; l++) {
		b->sector[l] = first + i + (uint64_t)l;
		b->key[l] = &keys[b->sector[l] & 63];
		b->src[l] = src + (i + (size_t)l) * SEC;
		b->dst[l] = dst + (i + (size_t)l) * SEC;
	}
}

static void fix_first_blocks(struct lmk_batch *b)
{
	int l, i;

	for (l = 0; l < 16; l++)
		for (i = 0; i < 16; i++)
			b->dst[l][i] ^= b->iv[l][i];
}

size_t loop_aesni_lmk_encrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{
	struct lmk_batch b[2];
	size_t i, batches = n / 16;
	int cur = 0;

	if (batches < 2)
		return 0;
	batch_at(&b[0], keys, first, dst, src, 0);
	loop_lmk_iv_x16(b[0].iv, seed, b[0].src, b[0].sector);
	for (i = 1; i < batches; i++) {
		struct lmk_batch *e = &b[cur], *nx = &b[cur ^ 1];

		batch_at(nx, keys, first, dst, src, 16 * i);
		enc16_hash16(e->key, (const uint8_t (*)[16])e->iv, e->dst, e->src,
			     nx->iv, seed, nx->src, nx->sector);
		cur ^= 1;
	}
	loop_aesni_cbc_encrypt_sectors(b[cur].key, (const uint8_t (*)[16])b[cur].iv,
				       b[cur].dst, b[cur].src, 8);
	loop_aesni_cbc_encrypt_sectors(b[cur].key + 8, (const uint8_t (*)[16])b[cur].iv + 8,
				       b[cur].dst + 8, b[cur].src + 8, 8);
	explicit_bzero(b, sizeof(b));
	return 16 * batches;
}

size_t loop_aesni_lmk_decrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{
	static const uint8_t zero[16] __attribute__((aligned(16)));
	struct lmk_batch b[2];
	size_t i, batches = n / 16;
	int cur = 0, l;

	if (batches < 2)
		return 0;
	batch_at(&b[0], keys, first, dst, src, 0);
	for (l = 0; l < 16; l++)
		loop_aesni_cbc_decrypt_sector(b[0].key[l], zero, b[0].dst[l], b[0].src[l]);
	for (i = 1; i < batches; i++) {
		struct lmk_batch *hb = &b[cur], *d = &b[cur ^ 1];

		batch_at(d, keys, first, dst, src, 16 * i);
		dec16_hash16(d->key, d->dst, d->src, hb->iv, seed,
			     (const uint8_t *const *)hb->dst, hb->sector);
		fix_first_blocks(hb);
		cur ^= 1;
	}
	loop_lmk_iv_x16(b[cur].iv, seed, (const uint8_t *const *)b[cur].dst, b[cur].sector);
	fix_first_blocks(&b[cur]);
	explicit_bzero(b, sizeof(b));
	return 16 * batches;
}

#else

size_t loop_aesni_lmk_encrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{ (void)keys; (void)seed; (void)first; (void)dst; (void)src; (void)n; return 0; }
size_t loop_aesni_lmk_decrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n)
{ (void)keys; (void)seed; (void)first; (void)dst; (void)src; (void)n; return 0; }

#endif
