/*
 * aesni-lmk-run.c - the batches of a multi-key run around a fused
 * kernel (aesni-lmk-run.h): the pipeline, with nothing of its own that
 * needs a vector instruction set.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto/aesni-lmk-run.h"

/* only the x86-64 fused loops run batches */
#if defined(__x86_64__)
#include "crypto/md5-avx2.h"		/* lmk_last_block() */

#define SEC LOOP_SECTOR_SIZE

void loop_lmk_hash_blocks(struct lmk_hash *h, const uint8_t *const *plain,
			  const uint64_t *sector, unsigned int n)
{
	unsigned int l, b;

	for (l = 0; l < n; l++) {
		lmk_last_block(h->last[l], plain[l], sector[l]);
		for (b = 0; b < 7; b++)
			h->blk[b][l] = plain[l] + 16 + 64 * b;
		h->blk[7][l] = h->last[l];
	}
}

struct lmk_batch {
	const struct loop_aesni_key *key[LMK_BATCH_MAX];
	const uint8_t *src[LMK_BATCH_MAX];
	uint8_t *dst[LMK_BATCH_MAX];
	uint64_t sector[LMK_BATCH_MAX];
	uint8_t iv[LMK_BATCH_MAX][16];
};

/* batch of @n sectors from sector @i of the run */
static void batch_at(struct lmk_batch *b, const struct loop_aesni_key *keys, uint64_t first,
		     uint8_t *dst, const uint8_t *src, size_t i, unsigned int n)
{
	unsigned int l;

	for (l = 0; l < n; l++) {
		b->sector[l] = first + i + l;
		b->key[l] = &keys[b->sector[l] & 63];
		b->src[l] = src + (i + l) * SEC;
		b->dst[l] = dst + (i + l) * SEC;
	}
}

static void fix_first_blocks(struct lmk_batch *b, unsigned int n)
{
	unsigned int l, i;

	for (l = 0; l < n; l++)
		for (i = 0; i < 16; i++)
			b->dst[l][i] ^= b->iv[l][i];
}

size_t loop_lmk_run_encrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			    uint64_t first, uint8_t *dst, const uint8_t *src, size_t n,
			    unsigned int batch, lmk_enc_hash_fn *fused, lmk_ivs_fn *ivs)
{
	struct lmk_batch b[2];
	size_t i, batches = n / batch;
	unsigned int h;
	int cur = 0;

	if (batches < 2)
		return 0;
	batch_at(&b[0], keys, first, dst, src, 0, batch);
	ivs(b[0].iv, seed, b[0].src, b[0].sector);
	for (i = 1; i < batches; i++) {
		struct lmk_batch *e = &b[cur], *nx = &b[cur ^ 1];

		batch_at(nx, keys, first, dst, src, batch * i, batch);
		fused(e->key, (const uint8_t (*)[16])e->iv, e->dst, e->src, nx->iv, seed,
		      nx->src, nx->sector);
		cur ^= 1;
	}
	for (h = 0; h < batch; h += 16)
		loop_aesni_cbc_encrypt_sectors(b[cur].key + h, (const uint8_t (*)[16])b[cur].iv + h,
					       b[cur].dst + h, b[cur].src + h, 16);
	explicit_bzero(b, sizeof(b));
	return batch * batches;
}

size_t loop_lmk_run_decrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			    uint64_t first, uint8_t *dst, const uint8_t *src, size_t n,
			    unsigned int batch, lmk_dec_hash_fn *fused, lmk_ivs_fn *ivs)
{
	static const uint8_t zero[16] __attribute__((aligned(16)));
	struct lmk_batch b[2];
	size_t i, batches = n / batch;
	unsigned int l;
	int cur = 0;

	if (batches < 2)
		return 0;
	batch_at(&b[0], keys, first, dst, src, 0, batch);
	for (l = 0; l < batch; l++)
		loop_aesni_cbc_decrypt_sector_vaes(b[0].key[l], zero, b[0].dst[l], b[0].src[l]);
	for (i = 1; i < batches; i++) {
		struct lmk_batch *hb = &b[cur], *d = &b[cur ^ 1];

		batch_at(d, keys, first, dst, src, batch * i, batch);
		fused(d->key, d->dst, d->src, hb->iv, seed, (const uint8_t *const *)hb->dst,
		      hb->sector);
		fix_first_blocks(hb, batch);
		cur ^= 1;
	}
	ivs(b[cur].iv, seed, (const uint8_t *const *)b[cur].dst, b[cur].sector);
	fix_first_blocks(&b[cur], batch);
	explicit_bzero(b, sizeof(b));
	return batch * batches;
}

#endif
