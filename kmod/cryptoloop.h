/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cryptoloop: encrypted loop block devices for kernels without the loop
 * transfer hooks.  Built and tested on 6.1, 6.12 and 7.2; compat.h holds
 * what differs between them.
 *
 * Shared definitions of the module's parts: the control device, the block
 * devices and their I/O path, the loop ioctl ABI, the sector transfer
 * (crypto) and the sysfs attributes.
 */
#ifndef CRYPTOLOOP_H
#define CRYPTOLOOP_H

#include <linux/bits.h>
#include <linux/blk-mq.h>
#include <linux/loop.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "compat.h"

#define CLO_NAME		"cryptoloop"
#define CLO_SECTOR_SHIFT	9
#define CLO_SECTOR_SIZE		BIT(CLO_SECTOR_SHIFT)

/*
 * Reserves that keep encrypted writes going when no memory can be had
 * (swap-out to us is what would free it).  CLO_BATCH_PAGES bounce pages
 * is the most one write batch takes and the depth of the per-device page
 * pool, so one writer can always finish a batch.  CLO_REQ_POOL_MIN crypto
 * requests: each worker holds one while it works, so this many workers
 * progress even when the allocator has nothing.
 */
#define CLO_BATCH_PAGES		64
#define CLO_REQ_POOL_MIN	4

/*
 * loop-AES's multi-key ioctls (its loop.h).  The argument points to 64
 * (v2) or 65 (v3) key slots of 32 bytes each; the key length is the one
 * given earlier with LOOP_SET_STATUS64.  Of the 65th slot only the first
 * 16 bytes are read: they seed the MD5 IV.
 */
#define CLO_MULTI_KEY_SETUP	0x4C4D
#define CLO_MULTI_KEY_SETUP_V3	0x4C4E
#define CLO_MULTI_KEYS		64
#define CLO_KEY_SLOT		32
#define CLO_LMK_SEED_BYTES	16

/* loop-AES reports multi-key mode in lo_flags; we do the same. */
#define CLO_FLAGS_MULTI_KEY	0x100000
#define CLO_FLAGS_MULTI_KEY_V3	0x080000

/*
 * loop-AES's own cipher numbers (its loop_func_table "number"s), used by
 * its losetup for lo_encrypt_type: plain64 IV, key size in bits or bytes.
 */
#define CLO_CRYPT_LOOPAES_TWOFISH	3
#define CLO_CRYPT_LOOPAES_BLOWFISH	4
#define CLO_CRYPT_LOOPAES_SERPENT	7
#define CLO_CRYPT_LOOPAES_AES		16

enum clo_iv_mode {
	CLO_IV_PLAIN,		/* le32(sector), zero padded: kernel cryptoloop */
	CLO_IV_PLAIN64,		/* le64(sector), zero padded */
	CLO_IV_LMK,		/* loop-AES multi-key MD5 IV */
};

/*
 * Everything derived from a key.  Built completely before it is installed
 * so I/O never sees a half-set-up transfer; replaced or freed only with the
 * queue frozen.
 */
struct clo_xfer {
	char cipher[LO_NAME_SIZE];	/* crypto API cipher, e.g. "aes" */
	enum clo_iv_mode iv_mode;
	unsigned int key_size;		/* bytes */
	unsigned int iv_size;		/* cipher block size */
	unsigned int ntfms;		/* 1, or 64 in multi-key mode */
	bool lmk_v3;			/* MD5 state seeded by the 65th key */
	u32 lmk_state[4];		/* MD5 chaining value to start from */
	mempool_t *req_pool;		/* skcipher requests, for progress */
	struct crypto_skcipher *tfm[CLO_MULTI_KEYS];
};

enum clo_state {
	CLO_UNBOUND,
	CLO_BOUND,
	CLO_RUNDOWN,
	CLO_DELETING,
};

struct clo_extents;

struct clo_device {
	int number;
	bool visible;			/* findable through the index */
	enum clo_state state;
	struct mutex lock;		/* configuration; not taken for I/O */

	struct file *backing;
	gfp_t old_gfp_mask;
	loff_t offset;
	loff_t sizelimit;
	u32 flags;			/* LO_FLAGS_* */
	u64 init[2];			/* lo_init, see ioctl.c */
	char file_name[LO_NAME_SIZE];
	bool use_dio;
	bool can_dio;			/* the backing file takes O_DIRECT I/O */
	bool sysfs_ready;
	u32 encrypt_type;
	struct clo_xfer *xfer;		/* NULL: no encryption */
	struct clo_extents *extents;	/* NULL: I/O through the file */

	/* Bounce pages for encrypted writes. */
	mempool_t *page_pool;
	struct mutex page_pool_lock;	/* one waiter on page_pool at a time */

	struct workqueue_struct *wq;
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
};

struct clo_cmd {
	struct work_struct work;
};

/* main.c */
extern struct mutex clo_ctl_mutex;
int clo_add(int index);
int clo_remove(int index);
int clo_get_free(void);

/* control.c */
int clo_control_register(void);
void clo_control_unregister(void);

/* blkdev.c */
int clo_major_register(void);
void clo_major_unregister(void);
struct clo_device *clo_device_alloc(int number);
void clo_device_free(struct clo_device *lo);
bool clo_is_our_disk(struct gendisk *disk);
void clo_io_work(struct work_struct *work);

/* ioctl.c */
int clo_ioctl(struct block_device *bdev, clo_mode_t mode, unsigned int cmd,
	      unsigned long arg);
int clo_compat_ioctl(struct block_device *bdev, clo_mode_t mode,
		     unsigned int cmd, unsigned long arg);
void clo_release_autoclear(struct clo_device *lo);

/* xfer.c */
const char *clo_loopaes_cipher(u32 encrypt_type);
struct clo_xfer *clo_xfer_create(u32 encrypt_type, const char *name,
				 const u8 *key, unsigned int key_size);
int clo_xfer_multi_key(struct clo_xfer *old, const u8 *keys, bool v3,
		       struct clo_xfer **out);
void clo_xfer_destroy(struct clo_xfer *x);
void clo_xfer_spec(const struct clo_xfer *x, char *buf, size_t len);
struct skcipher_request *clo_xfer_req_get(struct clo_xfer *x);
void clo_xfer_req_put(struct clo_xfer *x, struct skcipher_request *req);
int clo_xfer_encrypt(struct clo_xfer *x, struct skcipher_request *req,
		     struct page *src, unsigned int src_off,
		     struct page *dst, unsigned int dst_off, u64 sector);
int clo_xfer_decrypt(struct clo_xfer *x, struct skcipher_request *req,
		     struct page *page, unsigned int off, u64 sector);

/* extents.c */
int clo_extents_set(struct clo_device *lo, bool on);
void clo_extents_stop(struct clo_device *lo);
int clo_extents_rw(struct clo_device *lo, bool write, struct bio_vec *bvec,
		   unsigned int nr, loff_t pos);
int clo_extents_flush(struct clo_device *lo);

/* md5.c */
#define CLO_MD5_INIT { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 }
void clo_md5_block(u32 state[4], const u8 block[64]);

/* sysfs.c */
int clo_sysfs_add(struct clo_device *lo);
void clo_sysfs_remove(struct clo_device *lo);

#endif /* CRYPTOLOOP_H */
