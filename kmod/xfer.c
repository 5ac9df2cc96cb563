// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sector transfer: the crypto of cryptoloop.
 *
 * Every 512-byte sector is encrypted on its own in CBC mode.  The sector
 * number that feeds the IV (and, in multi-key mode, picks the key) counts
 * 512-byte sectors from the start of the backing file, offset included,
 * plus the signed bias from lo_init[0].  The IV rules:
 *
 *   plain    le32(sector) then zeros       util-linux 2.12 + kernel
 *                                          cryptoloop; dm-crypt "plain"
 *   plain64  le64(sector) then zeros       dm-crypt "plain64"; loop-AES
 *                                          single-key
 *   lmk      MD5 chaining value over       loop-AES multi-key v2/v3;
 *            plaintext bytes 16..511 and   dm-crypt "lmk"
 *            the sector, key = sector & 63
 *
 * The lo_crypt_name we accept is "cipher[-cbc[-ivmode]]", ivmode one of
 * "plain" (the default, as kernel cryptoloop had no other) or "plain64".
 * Multi-key (lmk) is switched on only by loop-AES's multi-key ioctls.
 */
#include <crypto/algapi.h>
#include <crypto/skcipher.h>
#include <linux/crypto.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cryptoloop.h"

static void clo_xfer_free_tfms(struct clo_xfer *x)
{
	unsigned int i;

	/* crypto_free_skcipher() wipes the key schedule (kfree_sensitive). */
	for (i = 0; i < x->ntfms; i++) {
		if (!IS_ERR_OR_NULL(x->tfm[i]))
			crypto_free_skcipher(x->tfm[i]);
		x->tfm[i] = NULL;
	}
}

void clo_xfer_destroy(struct clo_xfer *x)
{
	if (!x)
		return;
	clo_xfer_free_tfms(x);
	mempool_destroy(x->req_pool);
	/* The MD5 seed state is derived from key material. */
	kfree_sensitive(x);
}

static struct clo_xfer *clo_xfer_alloc(const char *cipher,
				       enum clo_iv_mode iv_mode,
				       unsigned int key_size,
				       unsigned int ntfms)
{
	struct clo_xfer *x;
	char alg[CRYPTO_MAX_ALG_NAME];
	unsigned int i;
	int err;

	x = kzalloc_obj(*x, GFP_KERNEL);
	if (!x)
		return ERR_PTR(-ENOMEM);
	strscpy(x->cipher, cipher, sizeof(x->cipher));
	x->iv_mode = iv_mode;
	x->key_size = key_size;
	x->ntfms = ntfms;

	if (snprintf(alg, sizeof(alg), "cbc(%s)", cipher) >= sizeof(alg)) {
		err = -EINVAL;
		goto free_x;
	}
	/*
	 * Asynchronous implementations are allowed: on x86 the AES-NI CBC
	 * code is registered behind an async SIMD wrapper, and excluding it
	 * would leave us on the much slower generic template.
	 */
	for (i = 0; i < ntfms; i++) {
		x->tfm[i] = crypto_alloc_skcipher(alg, 0, 0);
		if (IS_ERR(x->tfm[i])) {
			err = PTR_ERR(x->tfm[i]);
			x->tfm[i] = NULL;
			/* An unknown cipher is a bad argument, not a missing file. */
			if (err == -ENOENT)
				err = -EINVAL;
			goto free_tfms;
		}
	}
	x->iv_size = crypto_skcipher_ivsize(x->tfm[0]);
	if (x->iv_size < 8 || x->iv_size > 16) {
		err = -EINVAL;
		goto free_tfms;
	}
	x->req_pool = mempool_create_kmalloc_pool(CLO_REQ_POOL_MIN,
						  sizeof(struct skcipher_request) +
						  crypto_skcipher_reqsize(x->tfm[0]));
	if (!x->req_pool) {
		err = -ENOMEM;
		goto free_tfms;
	}
	return x;

free_tfms:
	clo_xfer_free_tfms(x);
free_x:
	kfree(x);
	return ERR_PTR(err);
}

/*
 * Split "cipher[-mode[-ivmode]]".  The cipher must be a plain crypto API
 * name: no templates, so a caller cannot smuggle in a different mode.
 */
static int clo_parse_name(const char *name, char *cipher, size_t len,
			  enum clo_iv_mode *iv_mode)
{
	char buf[LO_NAME_SIZE];
	char *rest, *c, *mode, *iv;

	strscpy(buf, name, sizeof(buf));
	rest = strim(buf);
	c = strsep(&rest, "-");
	mode = strsep(&rest, "-");
	iv = rest;

	if (!*c || strpbrk(c, "()") || strlen(c) >= len)
		return -EINVAL;
	if (mode && strcmp(mode, "cbc"))
		return -EINVAL;
	if (!iv || !strcmp(iv, "plain"))
		*iv_mode = CLO_IV_PLAIN;
	else if (!strcmp(iv, "plain64"))
		*iv_mode = CLO_IV_PLAIN64;
	else
		return -EINVAL;
	strscpy(cipher, c, len);
	return 0;
}

/**
 * clo_loopaes_cipher() - crypto API cipher for a loop-AES cipher number
 * @encrypt_type: lo_encrypt_type
 *
 * Return: the cipher name, or NULL if @encrypt_type is not one of them.
 */
const char *clo_loopaes_cipher(u32 encrypt_type)
{
	switch (encrypt_type) {
	case CLO_CRYPT_LOOPAES_AES:
		return "aes";
	case CLO_CRYPT_LOOPAES_TWOFISH:
		return "twofish";
	case CLO_CRYPT_LOOPAES_SERPENT:
		return "serpent";
	case CLO_CRYPT_LOOPAES_BLOWFISH:
		return "blowfish";
	}
	return NULL;
}

/**
 * clo_xfer_create() - build the transfer for a LOOP_SET_STATUS64 request
 * @encrypt_type: LO_CRYPT_CRYPTOAPI, or one of loop-AES's cipher numbers
 * @name: lo_crypt_name (ignored with a loop-AES number)
 * @key: lo_encrypt_key
 * @key_size: lo_encrypt_key_size
 *
 * Return: the transfer, or an ERR_PTR: -EINVAL for a name, mode or key
 * length the crypto API does not accept.
 */
struct clo_xfer *clo_xfer_create(u32 encrypt_type, const char *name,
				 const u8 *key, unsigned int key_size)
{
	char cipher[LO_NAME_SIZE];
	enum clo_iv_mode iv_mode;
	struct clo_xfer *x;
	int err;

	if (clo_loopaes_cipher(encrypt_type)) {
		/*
		 * loop-AES's own losetup: the cipher is in the number, the
		 * IV is 64-bit, and key lengths may be given in bits.
		 */
		strscpy(cipher, clo_loopaes_cipher(encrypt_type),
			sizeof(cipher));
		iv_mode = CLO_IV_PLAIN64;
		if (key_size == 128 || key_size == 192 || key_size == 256)
			key_size /= 8;
	} else {
		err = clo_parse_name(name, cipher, sizeof(cipher), &iv_mode);
		if (err)
			return ERR_PTR(err);
	}
	if (!key_size || key_size > LO_KEY_SIZE)
		return ERR_PTR(-EINVAL);

	x = clo_xfer_alloc(cipher, iv_mode, key_size, 1);
	if (IS_ERR(x))
		return x;
	err = crypto_skcipher_setkey(x->tfm[0], key, key_size);
	if (err) {
		clo_xfer_destroy(x);
		return ERR_PTR(-EINVAL);
	}
	return x;
}

/**
 * clo_xfer_multi_key() - derive a loop-AES multi-key transfer
 * @old: the single-key transfer set up by LOOP_SET_STATUS64
 * @keys: 64 slots of 32 bytes, then for v3 the 16-byte IV seed
 * @v3: 65-key format: seed the MD5 IV with the 65th key
 * @out: the new transfer
 *
 * Return: 0, -EINVAL if @old cannot take a multi-key mode, or -ENOMEM.
 */
int clo_xfer_multi_key(struct clo_xfer *old, const u8 *keys, bool v3,
		       struct clo_xfer **out)
{
	static const u32 md5_init[4] = CLO_MD5_INIT;
	struct clo_xfer *x;
	unsigned int i;
	int err;

	/* The MD5 IV is 16 bytes: only 128-bit block ciphers can use it. */
	if (!old || old->iv_size != 16)
		return -EINVAL;

	x = clo_xfer_alloc(old->cipher, CLO_IV_LMK, old->key_size,
			   CLO_MULTI_KEYS);
	if (IS_ERR(x))
		return PTR_ERR(x);
	for (i = 0; i < CLO_MULTI_KEYS; i++) {
		err = crypto_skcipher_setkey(x->tfm[i], keys + i * CLO_KEY_SLOT,
					     x->key_size);
		if (err) {
			clo_xfer_destroy(x);
			return -EINVAL;
		}
	}

	memcpy(x->lmk_state, md5_init, sizeof(x->lmk_state));
	x->lmk_v3 = v3;
	if (v3) {
		u8 block[64] = { };

		/* The seed block is the 16 key bytes then 48 zero bytes. */
		memcpy(block, keys + CLO_MULTI_KEYS * CLO_KEY_SLOT,
		       CLO_LMK_SEED_BYTES);
		clo_md5_block(x->lmk_state, block);
		memzero_explicit(block, sizeof(block));
	}
	*out = x;
	return 0;
}

/* The name GET_STATUS64 and sysfs report; parses back with the same IV. */
void clo_xfer_spec(const struct clo_xfer *x, char *buf, size_t len)
{
	static const char * const iv_names[] = {
		[CLO_IV_PLAIN] = "plain",
		[CLO_IV_PLAIN64] = "plain64",
		[CLO_IV_LMK] = "lmk",
	};

	snprintf(buf, len, "%s-cbc-%s", x->cipher, iv_names[x->iv_mode]);
}

struct skcipher_request *clo_xfer_req_get(struct clo_xfer *x)
{
	/* GFP_NOIO: we run under block I/O; the pool guarantees progress. */
	return mempool_alloc(x->req_pool, GFP_NOIO);
}

void clo_xfer_req_put(struct clo_xfer *x, struct skcipher_request *req)
{
	mempool_free(req, x->req_pool);
}

/*
 * The loop-AES multi-key IV: the MD5 chaining value after the seed state
 * has absorbed plaintext bytes 16..511 of the sector, then the sector
 * number cut to 56 bits with the top bit of its last byte set, and a bit
 * count of 4024.  It is not a finished MD5: there is no padding block, and
 * the bit count stays 4024 even when a v3 seed block came first.  @data is
 * the sector's plaintext.
 */
static void clo_lmk_iv(const struct clo_xfer *x, u64 sector, const u8 *data,
		       u8 *iv)
{
	u32 st[4];
	u8 tail[64];
	int i;

	memcpy(st, x->lmk_state, sizeof(st));
	for (i = 0; i < 7; i++)
		clo_md5_block(st, data + 16 + 64 * i);
	memcpy(tail, data + 16 + 7 * 64, 48);
	put_unaligned_le32(lower_32_bits(sector), tail + 48);
	put_unaligned_le32((upper_32_bits(sector) & 0x00ffffff) | 0x80000000,
			   tail + 52);
	put_unaligned_le32(4024, tail + 56);
	put_unaligned_le32(0, tail + 60);
	clo_md5_block(st, tail);
	for (i = 0; i < 4; i++)
		put_unaligned_le32(st[i], iv + 4 * i);
	memzero_explicit(tail, sizeof(tail));
}

static void clo_sector_iv(const struct clo_xfer *x, u64 sector, u8 *iv)
{
	memset(iv, 0, x->iv_size);
	if (x->iv_mode == CLO_IV_PLAIN)
		put_unaligned_le32(lower_32_bits(sector), iv);
	else
		put_unaligned_le64(sector, iv);
}

static struct crypto_skcipher *clo_sector_tfm(const struct clo_xfer *x,
					      u64 sector)
{
	return x->tfm[x->ntfms == 1 ? 0 : (sector & (CLO_MULTI_KEYS - 1))];
}

static int clo_crypt_one(struct clo_xfer *x, struct skcipher_request *req,
			 struct page *src, unsigned int src_off,
			 struct page *dst, unsigned int dst_off,
			 u64 sector, u8 *iv, bool enc)
{
	struct scatterlist sg_src, sg_dst;
	DECLARE_CRYPTO_WAIT(wait);
	int err;

	sg_init_table(&sg_src, 1);
	sg_set_page(&sg_src, src, CLO_SECTOR_SIZE, src_off);
	sg_init_table(&sg_dst, 1);
	sg_set_page(&sg_dst, dst, CLO_SECTOR_SIZE, dst_off);

	skcipher_request_set_tfm(req, clo_sector_tfm(x, sector));
	skcipher_request_set_callback(req, CRYPTO_TFM_REQ_MAY_SLEEP |
				      CRYPTO_TFM_REQ_MAY_BACKLOG,
				      crypto_req_done, &wait);
	skcipher_request_set_crypt(req, &sg_src, &sg_dst, CLO_SECTOR_SIZE, iv);
	if (enc)
		err = crypto_wait_req(crypto_skcipher_encrypt(req), &wait);
	else
		err = crypto_wait_req(crypto_skcipher_decrypt(req), &wait);
	return err;
}

/**
 * clo_xfer_encrypt() - encrypt one 512-byte sector out of place
 * @x: transfer
 * @req: request from clo_xfer_req_get()
 * @src: plaintext page (may be a page cache page: never written)
 * @src_off: byte offset of the sector in @src
 * @dst: ciphertext page
 * @dst_off: byte offset in @dst
 * @sector: IV sector
 *
 * Return: 0 or the crypto API's negative errno.
 */
int clo_xfer_encrypt(struct clo_xfer *x, struct skcipher_request *req,
		     struct page *src, unsigned int src_off,
		     struct page *dst, unsigned int dst_off, u64 sector)
{
	u8 iv[16];
	int err;

	if (x->iv_mode == CLO_IV_LMK) {
		u8 *s, *d;

		/*
		 * The IV depends on the plaintext, and a page cache page can
		 * change under us while it is written back.  Take a stable
		 * copy first, and derive the IV from and encrypt that copy.
		 */
		s = kmap_local_page(src);
		d = kmap_local_page(dst);
		memcpy(d + dst_off, s + src_off, CLO_SECTOR_SIZE);
		clo_lmk_iv(x, sector, d + dst_off, iv);
		kunmap_local(d);
		kunmap_local(s);
		src = dst;
		src_off = dst_off;
	} else {
		clo_sector_iv(x, sector, iv);
	}
	err = clo_crypt_one(x, req, src, src_off, dst, dst_off, sector, iv,
			    true);
	memzero_explicit(iv, sizeof(iv));
	return err;
}

/**
 * clo_xfer_decrypt() - decrypt one 512-byte sector in place
 * @x: transfer
 * @req: request from clo_xfer_req_get()
 * @page: page holding the ciphertext, receives the plaintext
 * @off: byte offset of the sector in @page
 * @sector: IV sector
 *
 * Return: 0 or the crypto API's negative errno.
 */
int clo_xfer_decrypt(struct clo_xfer *x, struct skcipher_request *req,
		     struct page *page, unsigned int off, u64 sector)
{
	u8 iv[16];
	u8 *p;
	int err;

	if (x->iv_mode != CLO_IV_LMK) {
		clo_sector_iv(x, sector, iv);
		err = clo_crypt_one(x, req, page, off, page, off, sector, iv,
				    false);
		memzero_explicit(iv, sizeof(iv));
		return err;
	}

	/*
	 * The lmk IV needs plaintext we do not have yet.  CBC decryption of
	 * blocks 1..31 does not depend on the IV, so decrypt with a zero IV,
	 * compute the real IV from the now-correct bytes 16..511 and fix up
	 * block 0 by XOR.
	 */
	memset(iv, 0, sizeof(iv));
	err = clo_crypt_one(x, req, page, off, page, off, sector, iv, false);
	if (err)
		return err;
	p = kmap_local_page(page);
	clo_lmk_iv(x, sector, p + off, iv);
	crypto_xor(p + off, iv, 16);
	kunmap_local(p);
	memzero_explicit(iv, sizeof(iv));
	return 0;
}
