// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sector crypto: cipher names, keys and IVs of every format, one 512-byte
 * sector at a time (the IV rules are in clo_format.h).
 *
 * lo_crypt_name, with LO_CRYPT_CRYPTOAPI, is "cipher[-cbc[-ivmode]]":
 * cipher a bare crypto API name, ivmode "plain" (the default: kernel
 * cryptoloop had no other) or "plain64".  Exactly as kernel cryptoloop
 * took it, names are case-sensitive: the crypto API's are lower case, so
 * "AES" or "aes-CBC" are refused, as they were there.  libloop sends
 * canonical lower-case names.  Multi-key (lmk) is switched on only by
 * loop-AES's multi-key ioctls.
 */
#include <crypto/algapi.h>
#include <crypto/skcipher.h>
#include <linux/build_bug.h>
#include <linux/crypto.h>
#include <linux/err.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "clo_format.h"

static void clo_crypt_free_tfms(struct clo_crypt *c)
{
	unsigned int i;

	/* crypto_free_skcipher() wipes the key schedule (kfree_sensitive). */
	for (i = 0; i < c->ntfms; i++) {
		if (!IS_ERR_OR_NULL(c->tfm[i]))
			crypto_free_skcipher(c->tfm[i]);
		c->tfm[i] = NULL;
	}
}

void clo_crypt_destroy(struct clo_crypt *c)
{
	if (!c)
		return;
	clo_crypt_free_tfms(c);
	mempool_destroy(c->req_pool);
	/* The MD5 seed state is derived from key material. */
	kfree_sensitive(c);
}

static struct clo_crypt *clo_crypt_alloc(const char *cipher,
					 enum clo_iv_mode iv_mode,
					 unsigned int key_size,
					 unsigned int ntfms)
{
	struct clo_crypt *c;
	char alg[CRYPTO_MAX_ALG_NAME];
	unsigned int i;
	int err;

	c = kzalloc_obj(*c, GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	strscpy(c->cipher, cipher, sizeof(c->cipher));
	c->iv_mode = iv_mode;
	c->key_size = key_size;
	c->ntfms = ntfms;

	if (snprintf(alg, sizeof(alg), "cbc(%s)", cipher) >= sizeof(alg)) {
		err = -EINVAL;
		goto free_c;
	}
	/*
	 * Asynchronous implementations are allowed: on x86 the AES-NI CBC
	 * code is registered behind an async SIMD wrapper, and excluding it
	 * would leave us on the much slower generic template.
	 */
	for (i = 0; i < ntfms; i++) {
		c->tfm[i] = crypto_alloc_skcipher(alg, 0, 0);
		if (IS_ERR(c->tfm[i])) {
			err = PTR_ERR(c->tfm[i]);
			c->tfm[i] = NULL;
			/* An unknown cipher is a bad argument, not a missing file. */
			if (err == -ENOENT)
				err = -EINVAL;
			goto free_tfms;
		}
	}
	/* CBC over a sector needs whole blocks, and an IV that we can fill. */
	c->iv_size = crypto_skcipher_ivsize(c->tfm[0]);
	if (c->iv_size < CLO_MIN_IV_SIZE || c->iv_size > CLO_MAX_IV_SIZE ||
	    CLO_SECTOR_SIZE % crypto_skcipher_blocksize(c->tfm[0])) {
		err = -EINVAL;
		goto free_tfms;
	}
	c->req_size = sizeof(struct skcipher_request) +
		      crypto_skcipher_reqsize(c->tfm[0]);
	c->req_pool = mempool_create_kmalloc_pool(CLO_REQ_POOL_MIN,
						  c->req_size);
	if (!c->req_pool) {
		err = -ENOMEM;
		goto free_tfms;
	}
	return c;

free_tfms:
	clo_crypt_free_tfms(c);
free_c:
	kfree(c);
	return ERR_PTR(err);
}

/*
 * Split "cipher[-mode[-ivmode]]".  The cipher must be a bare crypto API
 * name (lower case letters, digits, '_'): no templates, so a caller
 * cannot smuggle in another mode, and no driver names.
 */
static int clo_parse_name(const char *name, char *cipher, size_t len,
			  enum clo_iv_mode *iv_mode)
{
	char buf[LO_NAME_SIZE];
	char *rest = buf, *c, *mode;

	strscpy(buf, name, sizeof(buf));
	c = strsep(&rest, "-");
	mode = strsep(&rest, "-");

	if (!*c || strlen(c) >= len ||
	    strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(c))
		return -EINVAL;
	if (mode && strcmp(mode, "cbc"))
		return -EINVAL;
	if (!rest || !strcmp(rest, "plain"))
		*iv_mode = CLO_IV_PLAIN;
	else if (!strcmp(rest, "plain64"))
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
 * clo_crypt_create() - build the crypto for a LOOP_SET_STATUS64 request
 * @encrypt_type: LO_CRYPT_CRYPTOAPI, or one of loop-AES's cipher numbers
 * @name: lo_crypt_name (ignored with a loop-AES number)
 * @key: lo_encrypt_key
 * @key_size: lo_encrypt_key_size
 *
 * Return: the crypto, or an ERR_PTR: -EINVAL for a type, name, mode or
 * key length the crypto API does not accept.
 */
struct clo_crypt *clo_crypt_create(u32 encrypt_type, const char *name,
				   const u8 *key, unsigned int key_size)
{
	char cipher[LO_NAME_SIZE];
	enum clo_iv_mode iv_mode;
	struct clo_crypt *c;
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
			key_size /= BITS_PER_BYTE;
	} else if (encrypt_type == LO_CRYPT_CRYPTOAPI) {
		err = clo_parse_name(name, cipher, sizeof(cipher), &iv_mode);
		if (err)
			return ERR_PTR(err);
	} else {
		return ERR_PTR(-EINVAL);
	}
	if (!key_size || key_size > LO_KEY_SIZE)
		return ERR_PTR(-EINVAL);

	c = clo_crypt_alloc(cipher, iv_mode, key_size, 1);
	if (IS_ERR(c))
		return c;
	err = crypto_skcipher_setkey(c->tfm[0], key, key_size);
	if (err) {
		clo_crypt_destroy(c);
		return ERR_PTR(-EINVAL);
	}
	return c;
}

/**
 * clo_crypt_multi_key() - derive loop-AES multi-key crypto
 * @old: the single-key crypto set up by LOOP_SET_STATUS64
 * @keys: CLO_MULTI_KEY_BYTES(@v3): 64 slots, then for v3 the IV seed
 * @v3: 65-key format: seed the MD5 IV with the 65th key
 * @out: the new crypto
 *
 * Return: 0, -EINVAL if @old cannot take a multi-key mode, or -ENOMEM.
 */
int clo_crypt_multi_key(const struct clo_crypt *old, const u8 *keys, bool v3,
			struct clo_crypt **out)
{
	static const u32 md5_init[4] = CLO_MD5_INIT;
	struct clo_crypt *c;
	unsigned int i;
	int err;

	/* The key is picked by masking the sector number. */
	BUILD_BUG_ON(CLO_MULTI_KEYS & (CLO_MULTI_KEYS - 1));
	/* The v3 seed is hashed as the start of one MD5 block. */
	BUILD_BUG_ON(CLO_LMK_SEED_BYTES > CLO_MD5_BLOCK);
	/* A slot holds any key LOOP_SET_STATUS64 can set. */
	BUILD_BUG_ON(LO_KEY_SIZE > CLO_KEY_SLOT);

	/* The MD5 IV fills exactly one block of a 128-bit block cipher. */
	if (!old || old->iv_size != CLO_LMK_IV_SIZE)
		return -EINVAL;

	c = clo_crypt_alloc(old->cipher, CLO_IV_LMK, old->key_size,
			    CLO_MULTI_KEYS);
	if (IS_ERR(c))
		return PTR_ERR(c);
	for (i = 0; i < CLO_MULTI_KEYS; i++) {
		err = crypto_skcipher_setkey(c->tfm[i], keys + i * CLO_KEY_SLOT,
					     c->key_size);
		if (err) {
			clo_crypt_destroy(c);
			return -EINVAL;
		}
	}

	memcpy(c->lmk_state, md5_init, sizeof(c->lmk_state));
	c->lmk_v3 = v3;
	if (v3) {
		u8 block[CLO_MD5_BLOCK] = { };

		/* The seed block is the 16 key bytes, then zeros. */
		memcpy(block, keys + CLO_MULTI_KEYS * CLO_KEY_SLOT,
		       CLO_LMK_SEED_BYTES);
		clo_md5_block(c->lmk_state, block);
		memzero_explicit(block, sizeof(block));
	}
	*out = c;
	return 0;
}

/* The name GET_STATUS64 and sysfs report; parses back with the same IV. */
void clo_crypt_spec(const struct clo_crypt *c, char *buf, size_t len)
{
	static const char * const iv_names[] = {
		[CLO_IV_PLAIN] = "plain",
		[CLO_IV_PLAIN64] = "plain64",
		[CLO_IV_LMK] = "lmk",
	};

	snprintf(buf, len, "%s-cbc-%s", c->cipher, iv_names[c->iv_mode]);
}

struct skcipher_request *clo_crypt_req_get(struct clo_crypt *c)
{
	/* GFP_NOIO: we run under block I/O; the pool guarantees progress. */
	return mempool_alloc(c->req_pool, GFP_NOIO);
}

void clo_crypt_req_put(struct clo_crypt *c, struct skcipher_request *req)
{
	/* The request context of a CBC implementation holds chaining state. */
	memzero_explicit(req, c->req_size);
	mempool_free(req, c->req_pool);
}

/*
 * The loop-AES multi-key IV: the MD5 chaining value after the seed state
 * has absorbed plaintext bytes 16..511 of the sector (the first cipher
 * block is left out: its IV is what we compute), then the sector number
 * cut to 56 bits with the top bit of its last byte set, and a bit count
 * of 4024 (the 496 plaintext bytes and 7 sector bytes).  That fills
 * exactly eight blocks.  It is not a finished MD5: there is no padding
 * block, and the bit count stays 4024 even when a v3 seed block came
 * first.  @data is the sector's plaintext.
 */
#define CLO_LMK_DATA		(CLO_SECTOR_SIZE - CLO_LMK_IV_SIZE)
#define CLO_LMK_FULL_BLOCKS	(CLO_LMK_DATA / CLO_MD5_BLOCK)
#define CLO_LMK_TAIL		(CLO_LMK_DATA % CLO_MD5_BLOCK)
#define CLO_LMK_SECTOR_BYTES	7

static void clo_lmk_iv(const struct clo_crypt *c, u64 sector, const u8 *data,
		       u8 *iv)
{
	u32 st[4];
	u8 tail[CLO_MD5_BLOCK];
	unsigned int i;

	/* After the plaintext's tail: the sector and the bit count, u64s. */
	BUILD_BUG_ON(CLO_LMK_TAIL + 2 * sizeof(u64) != CLO_MD5_BLOCK);
	BUILD_BUG_ON(sizeof(st) != CLO_LMK_IV_SIZE);
	BUILD_BUG_ON(CLO_LMK_IV_SIZE > CLO_MAX_IV_SIZE);

	memcpy(st, c->lmk_state, sizeof(st));
	for (i = 0; i < CLO_LMK_FULL_BLOCKS; i++)
		clo_md5_block(st, data + CLO_LMK_IV_SIZE + CLO_MD5_BLOCK * i);
	memcpy(tail, data + CLO_LMK_IV_SIZE + CLO_MD5_BLOCK * i,
	       CLO_LMK_TAIL);
	put_unaligned_le32(lower_32_bits(sector), tail + CLO_LMK_TAIL);
	put_unaligned_le32((upper_32_bits(sector) & 0x00ffffff) | 0x80000000,
			   tail + CLO_LMK_TAIL + sizeof(u32));
	put_unaligned_le64((CLO_LMK_DATA + CLO_LMK_SECTOR_BYTES) *
			   BITS_PER_BYTE, tail + CLO_LMK_TAIL + sizeof(u64));
	clo_md5_block(st, tail);
	for (i = 0; i < ARRAY_SIZE(st); i++)
		put_unaligned_le32(st[i], iv + sizeof(u32) * i);
	memzero_explicit(tail, sizeof(tail));
	memzero_explicit(st, sizeof(st));
}

static void clo_sector_iv(const struct clo_crypt *c, u64 sector, u8 *iv)
{
	/* Every IV we accept has room for a 64-bit sector number. */
	BUILD_BUG_ON(sizeof(u64) > CLO_MIN_IV_SIZE);
	memset(iv, 0, c->iv_size);
	if (c->iv_mode == CLO_IV_PLAIN)
		put_unaligned_le32(lower_32_bits(sector), iv);
	else
		put_unaligned_le64(sector, iv);
}

static struct crypto_skcipher *clo_sector_tfm(const struct clo_crypt *c,
					      u64 sector)
{
	return c->tfm[c->ntfms == 1 ? 0 : (sector & (CLO_MULTI_KEYS - 1))];
}

static int clo_crypt_one(struct clo_crypt *c, struct skcipher_request *req,
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

	skcipher_request_set_tfm(req, clo_sector_tfm(c, sector));
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
 * clo_crypt_encrypt() - encrypt one 512-byte sector out of place
 * @c: crypto
 * @req: request from clo_crypt_req_get()
 * @src: plaintext page (may be a page cache page: never written)
 * @src_off: byte offset of the sector in @src
 * @dst: ciphertext page
 * @dst_off: byte offset in @dst
 * @sector: IV sector
 *
 * Return: 0 or the crypto API's negative errno.
 */
int clo_crypt_encrypt(struct clo_crypt *c, struct skcipher_request *req,
		      struct page *src, unsigned int src_off,
		      struct page *dst, unsigned int dst_off, u64 sector)
{
	u8 iv[CLO_MAX_IV_SIZE];
	int err;

	if (c->iv_mode == CLO_IV_LMK) {
		u8 *s, *d;

		/*
		 * The IV depends on the plaintext, and a page cache page can
		 * change under us while it is written back.  Take a stable
		 * copy first, and derive the IV from and encrypt that copy.
		 */
		s = clo_kmap(src);
		d = clo_kmap(dst);
		memcpy(d + dst_off, s + src_off, CLO_SECTOR_SIZE);
		clo_lmk_iv(c, sector, d + dst_off, iv);
		clo_kunmap(d);
		clo_kunmap(s);
		src = dst;
		src_off = dst_off;
	} else {
		clo_sector_iv(c, sector, iv);
	}
	err = clo_crypt_one(c, req, src, src_off, dst, dst_off, sector, iv,
			    true);
	memzero_explicit(iv, sizeof(iv));
	return err;
}

/**
 * clo_crypt_decrypt() - decrypt one 512-byte sector
 * @c: crypto
 * @req: request from clo_crypt_req_get()
 * @src: ciphertext page
 * @src_off: byte offset of the sector in @src
 * @dst: plaintext page (may be @src, at the same offset)
 * @dst_off: byte offset in @dst
 * @sector: IV sector
 *
 * Return: 0 or the crypto API's negative errno.
 */
int clo_crypt_decrypt(struct clo_crypt *c, struct skcipher_request *req,
		      struct page *src, unsigned int src_off,
		      struct page *dst, unsigned int dst_off, u64 sector)
{
	u8 iv[CLO_MAX_IV_SIZE];
	u8 *p;
	int err;

	if (c->iv_mode != CLO_IV_LMK) {
		clo_sector_iv(c, sector, iv);
		err = clo_crypt_one(c, req, src, src_off, dst, dst_off, sector,
				    iv, false);
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
	err = clo_crypt_one(c, req, src, src_off, dst, dst_off, sector, iv,
			    false);
	if (err)
		return err;
	p = clo_kmap(dst);
	clo_lmk_iv(c, sector, p + dst_off, iv);
	crypto_xor(p + dst_off, iv, CLO_LMK_IV_SIZE);
	clo_kunmap(p);
	memzero_explicit(iv, sizeof(iv));
	return 0;
}
