/*
 * aesni-lmk-run.h - what the fused multi-key loops share: aesni-lmk.c
 * (AVX2, 16 sectors a batch) and aesni-lmk-x32.c (AVX-512, 32).  Each
 * has a kernel that AES-encrypts (or -decrypts) one batch while it
 * hashes the lmk IVs of another; aesni-lmk-run.c runs the batches of a
 * request through it, and lays out the MD5 blocks of a batch.
 */
#ifndef LIBLOOP_AESNI_LMK_RUN_H
#define LIBLOOP_AESNI_LMK_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto-internal.h"

#define LMK_BATCH_MAX 32

/* the eight MD5 blocks of each sector's IV: seven in the plaintext, the
 * last one here (lmk_last_block()) */
struct lmk_hash {
	const uint8_t *blk[8][LMK_BATCH_MAX];	/* MD5 block b of sector l */
	uint8_t last[LMK_BATCH_MAX][64];
};

void loop_lmk_hash_blocks(struct lmk_hash *h, const uint8_t *const *plain,
			  const uint64_t *sector, unsigned int n);

/* Encrypt a batch esrc[] into edst[] with the IVs eiv[] and keys ekey[],
 * and meanwhile compute the lmk IVs of the batch hplain[] into hiv[]. */
typedef void lmk_enc_hash_fn(const struct loop_aesni_key *const *ekey,
			     const uint8_t (*eiv)[16], uint8_t *const *edst,
			     const uint8_t *const *esrc, uint8_t (*hiv)[16],
			     const uint32_t *seed, const uint8_t *const *hplain,
			     const uint64_t *hsector);
/* Decrypt a batch dsrc[] into ddst[] with a zero IV, and meanwhile
 * compute the lmk IVs of the batch hplain[] (decrypted) into hiv[]. */
typedef void lmk_dec_hash_fn(const struct loop_aesni_key *const *dkey,
			     uint8_t *const *ddst, const uint8_t *const *dsrc,
			     uint8_t (*hiv)[16], const uint32_t *seed,
			     const uint8_t *const *hplain, const uint64_t *hsector);
/* the lmk IVs of one batch alone (loop_lmk_iv_x16, loop_lmk_iv_x32) */
typedef void lmk_ivs_fn(uint8_t (*iv)[16], const uint32_t *seed,
			const uint8_t *const *plain, const uint64_t *sector);

/*
 * In a kernel's file: one copy of its encrypt and decrypt kernels per
 * AES key size, so that the round count is a compile-time constant in
 * each, and enc_kernel()/dec_kernel() to pick one by the key's rounds.
 * ENC and DEC are the kernels (always_inline, the round count last),
 * TARGET their target attribute.
 */
#define LMK_KERNEL_PER_NR(TARGET, ENC, DEC, nr) \
TARGET static void ENC##_##nr(const struct loop_aesni_key *const *ekey, \
	const uint8_t (*eiv)[16], uint8_t *const *edst, const uint8_t *const *esrc, \
	uint8_t (*hiv)[16], const uint32_t *seed, const uint8_t *const *hplain, \
	const uint64_t *hsector) \
{ \
	ENC(ekey, eiv, edst, esrc, hiv, seed, hplain, hsector, nr); \
} \
TARGET static void DEC##_##nr(const struct loop_aesni_key *const *dkey, \
	uint8_t *const *ddst, const uint8_t *const *dsrc, uint8_t (*hiv)[16], \
	const uint32_t *seed, const uint8_t *const *hplain, const uint64_t *hsector) \
{ \
	DEC(dkey, ddst, dsrc, hiv, seed, hplain, hsector, nr); \
}
#define LMK_KERNELS(TARGET, ENC, DEC) \
LMK_KERNEL_PER_NR(TARGET, ENC, DEC, 10) \
LMK_KERNEL_PER_NR(TARGET, ENC, DEC, 12) \
LMK_KERNEL_PER_NR(TARGET, ENC, DEC, 14) \
static lmk_enc_hash_fn *enc_kernel(int rounds) \
{ \
	return rounds == 10 ? ENC##_10 : rounds == 12 ? ENC##_12 : ENC##_14; \
} \
static lmk_dec_hash_fn *dec_kernel(int rounds) \
{ \
	return rounds == 10 ? DEC##_10 : rounds == 12 ? DEC##_12 : DEC##_14; \
}

/*
 * Whole batches of @batch sectors (16 or 32) of a run of @n from IV
 * sector @first: each batch's hash is fused with the AES of the batch
 * before (encrypt) or after (decrypt); the first or last hash and AES
 * run alone.  At least two batches, else nothing; returns the sectors
 * done.  Needs VAES.
 */
size_t loop_lmk_run_encrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			    uint64_t first, uint8_t *dst, const uint8_t *src, size_t n,
			    unsigned int batch, lmk_enc_hash_fn *fused, lmk_ivs_fn *ivs);
size_t loop_lmk_run_decrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			    uint64_t first, uint8_t *dst, const uint8_t *src, size_t n,
			    unsigned int batch, lmk_dec_hash_fn *fused, lmk_ivs_fn *ivs);

#endif
