// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoloop_xfer: crypto API transfers for the in-kernel loop driver of
 * kernels 5.15 and older, which still have loop_register_transfer().
 *
 * This is the 2003 design: loop.c hands every request to a "transfer"
 * together with the 512-byte sector number of its first byte in the
 * backing file (lo_offset included), and we CBC-encrypt each 512-byte
 * sector on its own, whatever the block size of the loop device.  That
 * makes images byte-identical to util-linux 2.12 + the old cryptoloop.ko,
 * to dm-crypt "cbc-plain" and to our 5.16+ cryptoloop driver.
 *
 * Registered transfers:
 *   LO_CRYPT_CRYPTOAPI (18)  what util-linux 2.12 and our losetup send.
 *                            lo_crypt_name = "cipher[-cbc[-plain|-plain64]]"
 *                            ("aes", "aes-cbc", "twofish-cbc-plain64", ...)
 *   16, 3, 7, 4              loop-AES's numbers for AES, twofish, serpent
 *                            and blowfish: CBC with the 64-bit IV, no name.
 *
 * IV of sector s (s counts 512-byte sectors from the start of the backing
 * file, plus the signed bias lo_init[0], as our 5.16+ driver does):
 *   plain    le32(s), zero padded to the cipher block
 *   plain64  le64(s), zero padded
 *   lmk      loop-AES multi-key (after LOOP_MULTI_KEY_SETUP[_V3]): key
 *            number s & 63, IV = MD5 chaining value over plaintext bytes
 *            16..511 and s; see clx_lmk_iv().
 *
 * The module is not called cryptoloop: that name belongs to the in-tree
 * drivers/block/cryptoloop.ko (which registers the same number, so only
 * one of the two can be loaded) and to our own 5.16+ block driver.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/skcipher.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/crypto.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "loop_abi.h"

#define CLX_SECTOR_SIZE		512
#define CLX_REQ_POOL_MIN	2

/* loop-AES's transfer numbers (its losetup's lo_encrypt_type) and ioctls. */
#define CLX_CRYPT_LOOPAES_TWOFISH	3
#define CLX_CRYPT_LOOPAES_BLOWFISH	4
#define CLX_CRYPT_LOOPAES_SERPENT	7
#define CLX_CRYPT_LOOPAES_AES		16
#define CLX_MULTI_KEY_SETUP	0x4C4D
#define CLX_MULTI_KEY_SETUP_V3	0x4C4E
#define CLX_MULTI_KEYS		64
#define CLX_KEY_SLOT		32
#define CLX_LMK_SEED_BYTES	16

enum clx_iv_mode {
	CLX_IV_PLAIN,
	CLX_IV_PLAIN64,
	CLX_IV_LMK,
};

/* Everything one bound loop device needs for its transfer; lo->key_data. */
struct clx_ctx {
	char cipher[LO_NAME_SIZE];
	enum clx_iv_mode iv_mode;
	unsigned int key_size;
	unsigned int iv_size;
	u64 bias;			/* lo_init[0], added to every sector */
	u32 lmk_seed[4];		/* MD5 state the lmk IV starts from */
	mempool_t *req_pool;
	unsigned int req_size;
	unsigned int ntfms;		/* 1, or 64 in multi-key mode */
	struct crypto_skcipher *tfm[CLX_MULTI_KEYS];
};

/* MD5 (RFC 1321) compression function, for the loop-AES multi-key IV. */

static const u32 clx_md5_k[64] = {
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

/* Left rotations: four per round, repeated for each group of 4 steps. */
static const u8 clx_md5_r[4][4] = {
	{ 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 },
};

static void clx_md5_block(u32 st[4], const u8 *block)
{
	u32 m[16], a = st[0], b = st[1], c = st[2], d = st[3], f, t;
	unsigned int i, g;

	for (i = 0; i < 16; i++)
		m[i] = get_unaligned_le32(block + 4 * i);
	for (i = 0; i < 64; i++) {
		switch (i / 16) {
		case 0:
			f = (b & c) | (~b & d);
			g = i;
			break;
		case 1:
			f = (b & d) | (c & ~d);
			g = (5 * i + 1) % 16;
			break;
		case 2:
			f = b ^ c ^ d;
			g = (3 * i + 5) % 16;
			break;
		default:
			f = c ^ (b | ~d);
			g = (7 * i) % 16;
			break;
		}
		t = d;
		d = c;
		c = b;
		b += rol32(a + f + clx_md5_k[i] + m[g], clx_md5_r[i / 16][i % 4]);
		a = t;
	}
	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
	memzero_explicit(m, sizeof(m));
}

/*
 * The loop-AES multi-key IV of one sector: start from the seed state
 * (MD5's initial value, or for v3 the state after one block of the 65th
 * key), absorb plaintext bytes 16..511, then one more 16-byte group: the
 * sector number cut to 56 bits with bit 63 set, and 4024 (the bit count
 * of 503 bytes) as a 64-bit number.  That fills exactly eight blocks; the
 * IV is the chaining value, with no MD5 padding or finalisation.  dm-crypt
 * "lmk" and aespipe compute the same.
 */
static void clx_lmk_iv(const struct clx_ctx *ctx, u64 sector, const u8 *plain,
		       u8 *iv)
{
	u32 st[4];
	u8 last[64];
	unsigned int i;

	memcpy(st, ctx->lmk_seed, sizeof(st));
	for (i = 0; i < 7; i++)
		clx_md5_block(st, plain + 16 + 64 * i);
	memcpy(last, plain + 16 + 7 * 64, 48);
	put_unaligned_le32(lower_32_bits(sector), last + 48);
	put_unaligned_le32((upper_32_bits(sector) & 0xffffff) | 0x80000000,
			   last + 52);
	put_unaligned_le64(4024, last + 56);
	clx_md5_block(st, last);
	for (i = 0; i < 4; i++)
		put_unaligned_le32(st[i], iv + 4 * i);
	memzero_explicit(last, sizeof(last));
	memzero_explicit(st, sizeof(st));
}

static void clx_ctx_free(struct clx_ctx *ctx)
{
	unsigned int i;

	if (!ctx)
		return;
	/* crypto_free_skcipher() wipes each key schedule on the way out. */
	for (i = 0; i < ctx->ntfms; i++)
		if (!IS_ERR_OR_NULL(ctx->tfm[i]))
			crypto_free_skcipher(ctx->tfm[i]);
	mempool_destroy(ctx->req_pool);
	/* lmk_seed is derived from key material. */
	memzero_explicit(ctx, sizeof(*ctx));
	kfree(ctx);
}

static struct clx_ctx *clx_ctx_alloc(const char *cipher,
				     enum clx_iv_mode iv_mode,
				     unsigned int key_size, unsigned int ntfms)
{
	char alg[CRYPTO_MAX_ALG_NAME];
	struct clx_ctx *ctx;
	unsigned int i;
	int err;

	if (snprintf(alg, sizeof(alg), "cbc(%s)", cipher) >= sizeof(alg))
		return ERR_PTR(-EINVAL);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	strscpy(ctx->cipher, cipher, sizeof(ctx->cipher));
	ctx->iv_mode = iv_mode;
	ctx->key_size = key_size;
	ctx->ntfms = ntfms;

	/*
	 * Not crypto_alloc_sync_skcipher(): on x86 the AES-NI CBC code sits
	 * behind an async SIMD wrapper, and a sync-only request would get
	 * the generic cbc template around single-block AES instead.
	 */
	for (i = 0; i < ntfms; i++) {
		ctx->tfm[i] = crypto_alloc_skcipher(alg, 0, 0);
		if (IS_ERR(ctx->tfm[i])) {
			err = PTR_ERR(ctx->tfm[i]);
			ctx->tfm[i] = NULL;
			/* loop.c users expect EINVAL for an unknown cipher. */
			if (err == -ENOENT)
				err = -EINVAL;
			goto free_ctx;
		}
	}
	ctx->iv_size = crypto_skcipher_ivsize(ctx->tfm[0]);
	if (ctx->iv_size < 8 || ctx->iv_size > 16 ||
	    CLX_SECTOR_SIZE % crypto_skcipher_blocksize(ctx->tfm[0])) {
		err = -EINVAL;
		goto free_ctx;
	}
	/*
	 * The transfer runs in loop's I/O worker, where a failed allocation
	 * is an I/O error: a small pool guarantees forward progress.
	 */
	ctx->req_size = sizeof(struct skcipher_request) +
			crypto_skcipher_reqsize(ctx->tfm[0]);
	ctx->req_pool = mempool_create_kmalloc_pool(CLX_REQ_POOL_MIN,
						    ctx->req_size);
	if (!ctx->req_pool) {
		err = -ENOMEM;
		goto free_ctx;
	}
	return ctx;

free_ctx:
	clx_ctx_free(ctx);
	return ERR_PTR(err);
}

/*
 * Split lo_crypt_name "cipher[-mode[-ivmode]]".  The cipher must be a bare
 * crypto API name (no templates, so no other mode can be smuggled in);
 * the mode can only be cbc.  Crypto API names are lower case, and
 * util-linux users wrote "AES" as often as "aes".
 */
static int clx_parse_name(const char *name, char *cipher, size_t len,
			  enum clx_iv_mode *iv_mode)
{
	char buf[LO_NAME_SIZE];
	char *rest, *c, *mode;
	size_t i;

	strscpy(buf, name, sizeof(buf));
	rest = strim(buf);
	c = strsep(&rest, "-");
	mode = strsep(&rest, "-");

	if (!*c || strlen(c) >= len)
		return -EINVAL;
	for (i = 0; c[i]; i++) {
		if (!isalnum(c[i]) && c[i] != '_')
			return -EINVAL;
		c[i] = tolower(c[i]);
	}
	if (mode && strcasecmp(mode, "cbc"))
		return -EINVAL;
	if (!rest || !strcmp(rest, "plain"))
		*iv_mode = CLX_IV_PLAIN;
	else if (!strcmp(rest, "plain64"))
		*iv_mode = CLX_IV_PLAIN64;
	else
		return -EINVAL;
	strscpy(cipher, c, len);
	return 0;
}

static int clx_setup(struct loop_device *lo, const struct loop_info64 *info,
		     const char *cipher, enum clx_iv_mode iv_mode)
{
	unsigned int key_size = info->lo_encrypt_key_size;
	struct clx_ctx *ctx;
	int err;

	/*
	 * loop.c checks these for overflow only after ->init succeeded, and
	 * in LOOP_CONFIGURE it then fails without releasing us: the device
	 * would keep our context and a module reference until it is set up
	 * again.  Refuse them here first.
	 */
	if (info->lo_offset > LLONG_MAX || info->lo_sizelimit > LLONG_MAX)
		return -EOVERFLOW;
	/* The IV counts 512-byte sectors of the backing file. */
	if (info->lo_offset % CLX_SECTOR_SIZE)
		return -EINVAL;
	/* lo_init[1] is reserved, as in our 5.16+ driver. */
	if (info->lo_init[1])
		return -EINVAL;
	if (!key_size || key_size > LO_KEY_SIZE)
		return -EINVAL;

	ctx = clx_ctx_alloc(cipher, iv_mode, key_size, 1);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ctx->bias = info->lo_init[0];
	err = crypto_skcipher_setkey(ctx->tfm[0], info->lo_encrypt_key,
				     key_size);
	if (err) {
		clx_ctx_free(ctx);
		return -EINVAL;
	}
	lo->key_data = ctx;
	return 0;
}

/*
 * ->init of LO_CRYPT_CRYPTOAPI.  loop.c calls ->init, ->release and ->ioctl
 * under its control lock (loop_ctl_mutex; the device's lo_mutex from
 * 5.14), and ->init and ->release with the queue frozen.
 */
static int clx_init_cryptoapi(struct loop_device *lo,
			      const struct loop_info64 *info)
{
	char cipher[LO_NAME_SIZE];
	enum clx_iv_mode iv_mode;
	int err;

	err = clx_parse_name((const char *)info->lo_crypt_name, cipher,
			     sizeof(cipher), &iv_mode);
	if (err)
		return err;
	return clx_setup(lo, info, cipher, iv_mode);
}

/*
 * loop-AES's own losetup names the cipher by transfer number alone; the IV
 * is always the 64-bit one.  Its key sizes in bits (128, ...) never get
 * here: 5.10's loop.c refuses any lo_encrypt_key_size above 32 first.
 */
static const struct {
	int number;
	const char *cipher;
} clx_loopaes_ciphers[] = {
	{ CLX_CRYPT_LOOPAES_AES, "aes" },
	{ CLX_CRYPT_LOOPAES_TWOFISH, "twofish" },
	{ CLX_CRYPT_LOOPAES_SERPENT, "serpent" },
	{ CLX_CRYPT_LOOPAES_BLOWFISH, "blowfish" },
};

/* ->init of loop-AES's numbers. */
static int clx_init_loopaes(struct loop_device *lo,
			    const struct loop_info64 *info)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(clx_loopaes_ciphers); i++)
		if (clx_loopaes_ciphers[i].number == info->lo_encrypt_type)
			return clx_setup(lo, info, clx_loopaes_ciphers[i].cipher,
					 CLX_IV_PLAIN64);
	return -EINVAL;
}

/*
 * ->release: loop.c calls it with I/O frozen (set status, clear fd), or
 * from loop_unregister_transfer() for devices still using us, which cannot
 * exist then because each holds a module reference.
 */
static int clx_release(struct loop_device *lo)
{
	clx_ctx_free(lo->key_data);
	lo->key_data = NULL;
	/*
	 * loop.c installs our ioctl hook in lo->ioctl but never clears it
	 * when the transfer goes away and a following LOOP_SET_STATUS fails;
	 * the module reference is dropped all the same.  Clear it here so an
	 * ioctl can never call into this module after it is unloaded.  A
	 * successful LOOP_SET_STATUS sets it again after ->init.
	 */
	lo->ioctl = NULL;
	return 0;
}

static void clx_sector_iv(const struct clx_ctx *ctx, u64 sector, u8 *iv)
{
	memset(iv, 0, ctx->iv_size);
	if (ctx->iv_mode == CLX_IV_PLAIN)
		put_unaligned_le32(lower_32_bits(sector), iv);
	else
		put_unaligned_le64(sector, iv);
}

static int clx_crypt(struct clx_ctx *ctx, struct skcipher_request *req,
		     u64 sector, bool encrypt,
		     struct page *src, unsigned int src_off,
		     struct page *dst, unsigned int dst_off,
		     unsigned int len, u8 *iv)
{
	struct crypto_skcipher *tfm;
	struct scatterlist sg_src, sg_dst;
	DECLARE_CRYPTO_WAIT(wait);
	int err;

	tfm = ctx->tfm[ctx->ntfms == 1 ? 0 : sector % CLX_MULTI_KEYS];
	sg_init_table(&sg_src, 1);
	sg_set_page(&sg_src, src, len, src_off);
	sg_init_table(&sg_dst, 1);
	sg_set_page(&sg_dst, dst, len, dst_off);
	skcipher_request_set_tfm(req, tfm);
	skcipher_request_set_callback(req, CRYPTO_TFM_REQ_MAY_SLEEP |
				      CRYPTO_TFM_REQ_MAY_BACKLOG,
				      crypto_req_done, &wait);
	skcipher_request_set_crypt(req, &sg_src, &sg_dst, len, iv);
	if (encrypt)
		err = crypto_wait_req(crypto_skcipher_encrypt(req), &wait);
	else
		err = crypto_wait_req(crypto_skcipher_decrypt(req), &wait);
	return err;
}

/* One 512-byte sector, plaintext in @lp at @loff to ciphertext in @rp. */
static int clx_encrypt_sector(struct clx_ctx *ctx, struct skcipher_request *req,
			      u64 sector, struct page *lp, unsigned int loff,
			      struct page *rp, unsigned int roff)
{
	u8 iv[16];
	u8 *src, *dst;
	int err;

	if (ctx->iv_mode == CLX_IV_LMK) {
		/*
		 * The IV depends on the plaintext, and a page under writeback
		 * may still change.  Copy it first, then derive the IV from
		 * and encrypt the copy, so the two always agree.
		 */
		src = kmap(lp);
		dst = kmap(rp);
		memcpy(dst + roff, src + loff, CLX_SECTOR_SIZE);
		clx_lmk_iv(ctx, sector, dst + roff, iv);
		kunmap(rp);
		kunmap(lp);
		lp = rp;
		loff = roff;
	} else {
		clx_sector_iv(ctx, sector, iv);
	}
	err = clx_crypt(ctx, req, sector, true, lp, loff, rp, roff,
			CLX_SECTOR_SIZE, iv);
	memzero_explicit(iv, sizeof(iv));
	return err;
}

/* One 512-byte sector, ciphertext in @rp at @roff to plaintext in @lp. */
static int clx_decrypt_sector(struct clx_ctx *ctx, struct skcipher_request *req,
			      u64 sector, struct page *rp, unsigned int roff,
			      struct page *lp, unsigned int loff)
{
	u8 iv[16];
	u8 *p;
	int err;

	if (ctx->iv_mode != CLX_IV_LMK) {
		clx_sector_iv(ctx, sector, iv);
		err = clx_crypt(ctx, req, sector, false, rp, roff, lp, loff,
				CLX_SECTOR_SIZE, iv);
		goto out;
	}
	/*
	 * Multi-key: the IV is made from plaintext bytes 16..511, which do
	 * not depend on it (in CBC, block i decrypts with ciphertext block
	 * i - 1).  Decrypt those first, chained from ciphertext block 0,
	 * then derive the IV and decrypt block 0 with it.
	 */
	p = kmap(rp);
	memcpy(iv, p + roff, 16);
	kunmap(rp);
	err = clx_crypt(ctx, req, sector, false, rp, roff + 16, lp, loff + 16,
			CLX_SECTOR_SIZE - 16, iv);
	if (err)
		goto out;
	p = kmap(lp);
	clx_lmk_iv(ctx, sector, p + loff, iv);
	kunmap(lp);
	err = clx_crypt(ctx, req, sector, false, rp, roff, lp, loff, 16, iv);
out:
	memzero_explicit(iv, sizeof(iv));
	return err;
}

/*
 * ->transfer, called from loop's I/O worker (process context, may sleep)
 * for at most one page of one bio segment.  READ: raw (backing file) to
 * loop page; WRITE: loop page to raw.  @real_block is the 512-byte sector
 * of the backing file where the data starts, lo_offset included.
 */
static int clx_transfer(struct loop_device *lo, int cmd,
			struct page *raw_page, unsigned int raw_off,
			struct page *loop_page, unsigned int loop_off,
			int size, sector_t real_block)
{
	struct clx_ctx *ctx = lo->key_data;
	struct skcipher_request *req;
	u64 sector;
	int err = 0;

	if (WARN_ON_ONCE(!ctx))
		return -EIO;
	/*
	 * CBC cannot do a partial sector.  A short read at the end of a
	 * file that shrank under us is the only way to get one.
	 */
	if (size < 0 || size % CLX_SECTOR_SIZE)
		return -EIO;

	sector = (u64)real_block + ctx->bias;
	req = mempool_alloc(ctx->req_pool, GFP_NOIO);
	for (; size > 0; size -= CLX_SECTOR_SIZE, sector++) {
		if (cmd == READ)
			err = clx_decrypt_sector(ctx, req, sector,
						 raw_page, raw_off,
						 loop_page, loop_off);
		else
			err = clx_encrypt_sector(ctx, req, sector,
						 loop_page, loop_off,
						 raw_page, raw_off);
		if (err)
			break;
		raw_off += CLX_SECTOR_SIZE;
		loop_off += CLX_SECTOR_SIZE;
	}
	/* The request context of a CBC implementation holds chaining state. */
	memzero_explicit(req, ctx->req_size);
	mempool_free(req, ctx->req_pool);
	return err;
}

/*
 * LOOP_MULTI_KEY_SETUP(_V3): switch a device set up with a single key to
 * loop-AES multi-key mode.  @arg points to 64 (v2) or 65 (v3) key slots of
 * 32 bytes; the key length is the one LOOP_SET_STATUS64 gave.  Of the 65th
 * slot the first 16 bytes seed the MD5 IV.
 */
static int clx_multi_key(struct loop_device *lo, bool v3, void __user *arg)
{
	struct clx_ctx *old = lo->key_data, *ctx;
	size_t len = (CLX_MULTI_KEYS + v3) * CLX_KEY_SLOT;
	struct request_queue *q;
	unsigned int i;
	u8 *keys;
	int err;

	/* The MD5 IV is 16 bytes: only 128-bit block ciphers can take it. */
	if (!old || old->iv_size != 16)
		return -EINVAL;

	keys = kmalloc(len, GFP_KERNEL);
	if (!keys)
		return -ENOMEM;
	if (copy_from_user(keys, arg, len)) {
		err = -EFAULT;
		goto wipe_keys;
	}
	ctx = clx_ctx_alloc(old->cipher, CLX_IV_LMK, old->key_size,
			    CLX_MULTI_KEYS);
	if (IS_ERR(ctx)) {
		err = PTR_ERR(ctx);
		goto wipe_keys;
	}
	ctx->bias = old->bias;
	for (i = 0; i < CLX_MULTI_KEYS; i++) {
		err = crypto_skcipher_setkey(ctx->tfm[i],
					     keys + i * CLX_KEY_SLOT,
					     ctx->key_size);
		if (err) {
			err = -EINVAL;
			goto free_ctx;
		}
	}
	ctx->lmk_seed[0] = 0x67452301;
	ctx->lmk_seed[1] = 0xefcdab89;
	ctx->lmk_seed[2] = 0x98badcfe;
	ctx->lmk_seed[3] = 0x10325476;
	if (v3) {
		u8 block[64] = { };

		/* v3 hashes the 16 seed bytes, zero padded, as a first block. */
		memcpy(block, keys + CLX_MULTI_KEYS * CLX_KEY_SLOT,
		       CLX_LMK_SEED_BYTES);
		clx_md5_block(ctx->lmk_seed, block);
		memzero_explicit(block, sizeof(block));
	}

	/*
	 * The page cache holds what was read with key slot 0: udev's blkid
	 * probes every new device before the keys arrive.  Kept, those
	 * pages would be served as garbage ever after.  Write back and drop
	 * them before the keys change, as LOOP_SET_STATUS does.
	 */
	sync_blockdev(lo->lo_device);
	invalidate_bdev(lo->lo_device);

	/*
	 * loop.c calls this hook under its control lock but, unlike
	 * LOOP_SET_STATUS, without freezing the queue.  Freeze it ourselves
	 * so no request runs with a context that is being replaced.
	 */
	q = lo->lo_device->bd_disk->queue;
	blk_mq_freeze_queue(q);
	lo->key_data = ctx;
	blk_mq_unfreeze_queue(q);
	ctx = old;
	err = 0;

free_ctx:
	clx_ctx_free(ctx);
wipe_keys:
	memzero_explicit(keys, len);
	kfree(keys);
	return err;
}

/*
 * ->ioctl: loop.c passes every ioctl it does not know, under its control
 * lock, with no permission check of its own (it does not even
 * see whether the device was opened for writing).  Re-keying needs
 * CAP_SYS_ADMIN, like every setup tool running as root.
 */
static int clx_ioctl(struct loop_device *lo, int cmd, unsigned long arg)
{
	switch (cmd) {
	case CLX_MULTI_KEY_SETUP:
	case CLX_MULTI_KEY_SETUP_V3:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return clx_multi_key(lo, cmd == CLX_MULTI_KEY_SETUP_V3,
				     (void __user *)arg);
	default:
		return -EINVAL;
	}
}

/* One table per number; loop.c keeps a pointer to each while registered. */
#define CLX_FUNCS(nr, initfn) {		\
	.number = (nr),				\
	.transfer = clx_transfer,		\
	.init = (initfn),			\
	.release = clx_release,			\
	.ioctl = clx_ioctl,			\
	.owner = THIS_MODULE,			\
}

static struct loop_func_table clx_funcs[] = {
	CLX_FUNCS(LO_CRYPT_CRYPTOAPI, clx_init_cryptoapi),
	CLX_FUNCS(CLX_CRYPT_LOOPAES_AES, clx_init_loopaes),
	CLX_FUNCS(CLX_CRYPT_LOOPAES_TWOFISH, clx_init_loopaes),
	CLX_FUNCS(CLX_CRYPT_LOOPAES_SERPENT, clx_init_loopaes),
	CLX_FUNCS(CLX_CRYPT_LOOPAES_BLOWFISH, clx_init_loopaes),
};

static int __init clx_module_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(clx_funcs); i++) {
		err = loop_register_transfer(&clx_funcs[i]);
		if (err) {
			/* EINVAL: the number is taken, e.g. by cryptoloop.ko. */
			pr_err("cannot register transfer %d (is cryptoloop loaded?): %d\n",
			       clx_funcs[i].number, err);
			err = err == -EINVAL ? -EBUSY : err;
			goto unregister_transfers;
		}
	}
	return 0;

unregister_transfers:
	while (i--)
		loop_unregister_transfer(clx_funcs[i].number);
	return err;
}

static void __exit clx_module_exit(void)
{
	unsigned int i;

	/*
	 * No device can still use us: each one that does holds a module
	 * reference, so the module cannot be on its way out.
	 */
	for (i = ARRAY_SIZE(clx_funcs); i--; )
		loop_unregister_transfer(clx_funcs[i].number);
}

module_init(clx_module_init);
module_exit(clx_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Crypto API transfers (cryptoloop, loop-AES formats) for loop");
