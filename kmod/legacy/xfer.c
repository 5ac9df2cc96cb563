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
 *            16..511 and s.
 * The names, keys, IVs and the sector crypto are the same source as the
 * 5.16+ driver's (kmod/format/, compiled in through format.c).
 *
 * The module is not called cryptoloop: that name belongs to the in-tree
 * drivers/block/cryptoloop.ko (which registers the same number, so only
 * one of the two can be loaded) and to our own 5.16+ block driver.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "loop_abi.h"
#include "clo_format.h"

/* What one bound loop device keeps in lo->key_data. */
struct clx_dev {
	struct clo_crypt *crypt;
	u64 bias;			/* lo_init[0], added to every sector */
};

static void clx_dev_free(struct clx_dev *dev)
{
	if (!dev)
		return;
	clo_crypt_destroy(dev->crypt);
	kfree(dev);
}

/*
 * ->init of every number we register.  loop.c calls ->init, ->release
 * and ->ioctl under its control lock (loop_ctl_mutex; the device's
 * lo_mutex from 5.14), and ->init and ->release with the queue frozen.
 * clo_crypt_create() takes LO_CRYPT_CRYPTOAPI's name or a loop-AES
 * number's cipher; those key sizes in bits (128, ...) never get here:
 * 5.10's loop.c refuses any lo_encrypt_key_size above 32 first.
 */
static int clx_init(struct loop_device *lo, const struct loop_info64 *info)
{
	struct clx_dev *dev;

	/*
	 * loop.c checks these for overflow only after ->init succeeded, and
	 * in LOOP_CONFIGURE it then fails without releasing us: the device
	 * would keep our context and a module reference until it is set up
	 * again.  Refuse them here first.
	 */
	if (info->lo_offset > LLONG_MAX || info->lo_sizelimit > LLONG_MAX)
		return -EOVERFLOW;
	/* The IV counts 512-byte sectors of the backing file. */
	if (info->lo_offset % CLO_SECTOR_SIZE)
		return -EINVAL;
	/* lo_init[1] is reserved, as in our 5.16+ driver. */
	if (info->lo_init[1])
		return -EINVAL;

	dev = kzalloc_obj(*dev, GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->bias = info->lo_init[0];
	dev->crypt = clo_crypt_create(info->lo_encrypt_type,
				      (const char *)info->lo_crypt_name,
				      info->lo_encrypt_key,
				      info->lo_encrypt_key_size);
	if (IS_ERR(dev->crypt)) {
		int err = PTR_ERR(dev->crypt);

		kfree(dev);
		return err;
	}
	lo->key_data = dev;
	return 0;
}

/*
 * ->release: loop.c calls it with I/O frozen (set status, clear fd), or
 * from loop_unregister_transfer() for devices still using us, which cannot
 * exist then because each holds a module reference.
 */
static int clx_release(struct loop_device *lo)
{
	clx_dev_free(lo->key_data);
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
	struct clx_dev *dev = lo->key_data;
	struct skcipher_request *req;
	u64 sector;
	int err = 0;

	if (WARN_ON_ONCE(!dev))
		return -EIO;
	/*
	 * CBC cannot do a partial sector.  A short read at the end of a
	 * file that shrank under us is the only way to get one.
	 */
	if (size < 0 || size % CLO_SECTOR_SIZE)
		return -EIO;

	sector = (u64)real_block + dev->bias;
	req = clo_crypt_req_get(dev->crypt);
	for (; size > 0; size -= CLO_SECTOR_SIZE, sector++) {
		if (cmd == READ)
			err = clo_crypt_decrypt(dev->crypt, req,
						raw_page, raw_off,
						loop_page, loop_off, sector);
		else
			err = clo_crypt_encrypt(dev->crypt, req,
						loop_page, loop_off,
						raw_page, raw_off, sector);
		if (err)
			break;
		raw_off += CLO_SECTOR_SIZE;
		loop_off += CLO_SECTOR_SIZE;
	}
	clo_crypt_req_put(dev->crypt, req);
	return err;
}

/*
 * LOOP_MULTI_KEY_SETUP(_V3): switch a device set up with a single key to
 * loop-AES multi-key mode (the ABI is in clo_format.h).
 */
static int clx_multi_key(struct loop_device *lo, bool v3, void __user *arg)
{
	struct clx_dev *dev = lo->key_data;
	struct clo_crypt *c, *old;
	struct request_queue *q;
	u8 *keys;
	int err;

	if (!dev)
		return -EINVAL;
	keys = memdup_user(arg, CLO_MULTI_KEY_BYTES(v3));
	if (IS_ERR(keys))
		return PTR_ERR(keys);
	err = clo_crypt_multi_key(dev->crypt, keys, v3, &c);
	kfree_sensitive(keys);
	if (err)
		return err;

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
	 * so no request runs with keys that are being replaced.
	 */
	q = lo->lo_device->bd_disk->queue;
	blk_mq_freeze_queue(q);
	old = dev->crypt;
	dev->crypt = c;
	blk_mq_unfreeze_queue(q);
	clo_crypt_destroy(old);
	return 0;
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
	case CLO_MULTI_KEY_SETUP:
	case CLO_MULTI_KEY_SETUP_V3:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return clx_multi_key(lo, cmd == CLO_MULTI_KEY_SETUP_V3,
				     (void __user *)arg);
	default:
		return -EINVAL;
	}
}

/* One table per number; loop.c keeps a pointer to each while registered. */
#define CLX_FUNCS(nr) {				\
	.number = (nr),				\
	.transfer = clx_transfer,		\
	.init = clx_init,			\
	.release = clx_release,			\
	.ioctl = clx_ioctl,			\
	.owner = THIS_MODULE,			\
}

static struct loop_func_table clx_funcs[] = {
	CLX_FUNCS(LO_CRYPT_CRYPTOAPI),
	CLX_FUNCS(CLO_CRYPT_LOOPAES_AES),
	CLX_FUNCS(CLO_CRYPT_LOOPAES_TWOFISH),
	CLX_FUNCS(CLO_CRYPT_LOOPAES_SERPENT),
	CLX_FUNCS(CLO_CRYPT_LOOPAES_BLOWFISH),
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
