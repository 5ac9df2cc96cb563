/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The on-disk formats, shared by both modules: cryptoloop.ko (kmod/, the
 * blk-mq driver) and cryptoloop_xfer.ko (kmod/legacy/, the loop transfer
 * for 5.4 to 5.15) compile md5.c and crypt.c from this directory into
 * themselves, so a format can only ever be defined once.
 *
 * Every 512-byte sector is encrypted on its own in CBC mode.  Its IV
 * sector counts 512-byte sectors from the start of the backing file; each
 * module adds its own signed bias (lo_init[0]) before it gets here.
 *
 *   plain    le32(sector) then zeros       util-linux 2.12 + kernel
 *                                          cryptoloop; dm-crypt "plain"
 *   plain64  le64(sector) then zeros       dm-crypt "plain64"; loop-AES
 *                                          single-key
 *   lmk      MD5 chaining value over       loop-AES multi-key v2/v3;
 *            plaintext bytes 16..511 and   dm-crypt "lmk"
 *            the sector, key = sector & 63
 *
 * Both modules build on kernels from 5.10 (legacy) to the newest (kmod/),
 * so what differs between those for this code is handled here.
 */
#ifndef CLO_FORMAT_H
#define CLO_FORMAT_H

#include <linux/bits.h>
#include <linux/highmem.h>
#include <linux/loop.h>
#include <linux/mempool.h>
#include <linux/slab.h>
#include <linux/types.h>

/* the ioctl numbers, key counts and cipher numbers userspace uses too */
#include "cryptoloop_abi.h"

/* 6.12 moved the unaligned access helpers out of asm/ (kmod/Kbuild probes). */
#ifdef CLO_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * How a sector's page is mapped; kernels before 5.11 lack
 * kmap_local_page(), and the legacy build maps its own way there
 * (legacy/format.c).
 */
#ifndef clo_kmap
#define clo_kmap(page)		kmap_local_page(page)
#define clo_kunmap(addr)	kunmap_local(addr)
#endif

/* Typed allocation helpers came after 6.12; the same thing before them. */
#ifndef kzalloc_obj
#define kzalloc_obj(obj, gfp)	kzalloc(sizeof(obj), gfp)
#endif

#define CLO_SECTOR_SHIFT	9
#define CLO_SECTOR_SIZE		BIT(CLO_SECTOR_SHIFT)

/*
 * IVs: a sector-number IV fills 8 (plain64) or 4 bytes of the cipher's
 * block, so 64-bit block ciphers (blowfish) work; the lmk IV is one MD5
 * chaining value, 16 bytes, so multi-key needs 128-bit blocks.
 */
#define CLO_MIN_IV_SIZE		8
#define CLO_MAX_IV_SIZE		16
#define CLO_LMK_IV_SIZE		16

/* MD5 (RFC 1321): its block, and the chaining value it starts from. */
#define CLO_MD5_BLOCK		64
#define CLO_MD5_INIT { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 }

/*
 * skcipher requests kept in reserve by each struct clo_crypt: I/O must
 * make progress without the allocator (swap-out to the device is what
 * would free memory), and each worker holds one request while it works.
 */
#define CLO_REQ_POOL_MIN	4

enum clo_iv_mode {
	CLO_IV_PLAIN,		/* le32(sector), zero padded: kernel cryptoloop */
	CLO_IV_PLAIN64,		/* le64(sector), zero padded */
	CLO_IV_LMK,		/* loop-AES multi-key MD5 IV */
};

/*
 * Everything derived from a key.  Built completely before a module
 * installs it, so I/O never sees a half-set-up one; replaced or freed
 * only when no I/O can use it (queue frozen).
 */
struct clo_crypt {
	char cipher[LO_NAME_SIZE];	/* crypto API cipher, e.g. "aes" */
	enum clo_iv_mode iv_mode;
	unsigned int key_size;		/* bytes */
	unsigned int iv_size;		/* cipher block size */
	unsigned int ntfms;		/* 1, or CLO_MULTI_KEYS in multi-key mode */
	bool lmk_v3;			/* MD5 state seeded by the 65th key */
	u32 lmk_state[4];		/* MD5 chaining value to start from */
	unsigned int req_size;		/* bytes of one skcipher request */
	mempool_t *req_pool;		/* skcipher requests, for progress */
	struct crypto_skcipher *tfm[CLO_MULTI_KEYS];
};

/* md5.c */
void clo_md5_block(u32 state[4], const u8 block[CLO_MD5_BLOCK]);

/* crypt.c */
const char *clo_loopaes_cipher(u32 encrypt_type);
struct clo_crypt *clo_crypt_create(u32 encrypt_type, const char *name,
				   const u8 *key, unsigned int key_size);
int clo_crypt_multi_key(const struct clo_crypt *old, const u8 *keys, bool v3,
			struct clo_crypt **out);
void clo_crypt_destroy(struct clo_crypt *c);
void clo_crypt_spec(const struct clo_crypt *c, char *buf, size_t len);
struct skcipher_request *clo_crypt_req_get(struct clo_crypt *c);
void clo_crypt_req_put(struct clo_crypt *c, struct skcipher_request *req);
int clo_crypt_encrypt(struct clo_crypt *c, struct skcipher_request *req,
		      struct page *src, unsigned int src_off,
		      struct page *dst, unsigned int dst_off, u64 sector);
int clo_crypt_decrypt(struct clo_crypt *c, struct skcipher_request *req,
		      struct page *src, unsigned int src_off,
		      struct page *dst, unsigned int dst_off, u64 sector);

#endif /* CLO_FORMAT_H */
