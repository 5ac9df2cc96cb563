// SPDX-License-Identifier: GPL-2.0-only
/*
 * The loop ioctl ABI of <linux/loop.h> on /dev/cryptoloopN, with the
 * encryption fields honoured, plus loop-AES's multi-key ioctls.
 *
 * Field semantics beyond loop's:
 *   lo_encrypt_type  LO_CRYPT_NONE, LO_CRYPT_CRYPTOAPI (18, util-linux
 *                    2.12) or loop-AES's numbers (16 AES, 3 twofish,
 *                    7 serpent, 4 blowfish).  Anything else: EINVAL.
 *   lo_offset        as (s64) < 0, loop-AES's "data at -offset, IV
 *                    counted from there": lo_init[0] -= -offset / 512.
 *   lo_crypt_name    "cipher[-cbc[-plain|-plain64]]", see format/crypt.c.
 *   lo_encrypt_key   used once, then wiped; never reported back.
 *   lo_init[0]       signed bias added to the IV sector (0 by default).
 *                    Lets an image whose IV does not count from the start
 *                    of the backing file (loop-AES's negative offsets,
 *                    cryptsetup --skip != --offset) be opened.
 *   lo_init[1]       must be 0.
 *   lo_flags         in GET_STATUS64 also carries loop-AES's multi-key
 *                    bits (0x100000, and 0x080000 for v3); they are
 *                    ignored on input.
 *
 * This file only decodes: it copies and validates what the caller passed
 * and hands it to the device lifecycle (bind.c), which owns the locking.
 */
#include <linux/blkdev.h>
#include <linux/compat.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cryptoloop.h"

static int clo_params_from_info(struct loop_info64 *info,
				struct clo_params *p)
{
	memset(p, 0, sizeof(*p));
	p->offset = info->lo_offset;
	p->init[0] = info->lo_init[0];
	/*
	 * loop-AES: a negative offset means "data starts at -offset, but
	 * count IV sectors from there, not from the start of the file".
	 */
	if ((s64)info->lo_offset < 0) {
		p->offset = -(s64)info->lo_offset;
		p->init[0] -= p->offset >> CLO_SECTOR_SHIFT;
	}
	p->sizelimit = info->lo_sizelimit;
	p->flags = info->lo_flags & ~(CLO_FLAGS_MULTI_KEY |
				      CLO_FLAGS_MULTI_KEY_V3);
	p->init[1] = info->lo_init[1];
	p->encrypt_type = info->lo_encrypt_type;
	memcpy(p->file_name, info->lo_file_name, LO_NAME_SIZE);
	p->file_name[LO_NAME_SIZE - 1] = 0;
	info->lo_crypt_name[LO_NAME_SIZE - 1] = 0;

	if (p->offset < 0 || p->sizelimit < 0 || p->init[1])
		return -EINVAL;

	if (p->encrypt_type == LO_CRYPT_NONE)
		return 0;
	/*
	 * The IV counts whole 512-byte sectors of the backing file; an
	 * unaligned offset would put every sector across two of them.
	 */
	if (p->offset & (CLO_SECTOR_SIZE - 1))
		return -EINVAL;
	p->crypt = clo_crypt_create(p->encrypt_type, info->lo_crypt_name,
				    info->lo_encrypt_key,
				    info->lo_encrypt_key_size);
	if (IS_ERR(p->crypt)) {
		int err = PTR_ERR(p->crypt);

		p->crypt = NULL;
		return err;
	}
	return 0;
}

static void clo_wipe_info(struct loop_info64 *info)
{
	memzero_explicit(info->lo_encrypt_key, sizeof(info->lo_encrypt_key));
}

/* LOOP_CONFIGURE and LOOP_SET_FD; the caller wipes @config. */
static int clo_ioctl_configure(struct clo_device *lo, clo_mode_t mode,
			       struct block_device *bdev,
			       struct loop_config *config)
{
	unsigned int bsize = config->block_size ?: CLO_SECTOR_SIZE;
	struct clo_params p;
	struct file *file;
	int err;

	if ((config->info.lo_flags & ~LOOP_CONFIGURE_SETTABLE_FLAGS) ||
	    blk_validate_block_size(bsize))
		return -EINVAL;
	err = clo_params_from_info(&config->info, &p);
	if (err)
		return err;
	file = fget(config->fd);
	if (!file) {
		err = -EBADF;
		goto free_crypt;
	}
	err = clo_configure(lo, mode, bdev, file, bsize, &p);
free_crypt:
	clo_crypt_destroy(p.crypt);
	return err;
}

/* LOOP_SET_STATUS(64); wipes the key in @info. */
static int clo_ioctl_set_status(struct clo_device *lo,
				struct block_device *bdev,
				struct loop_info64 *info)
{
	struct clo_params p;
	int err;

	err = clo_params_from_info(info, &p);
	clo_wipe_info(info);
	if (err)
		return err;
	err = clo_set_status(lo, bdev, &p);
	clo_crypt_destroy(p.crypt);
	return err;
}

/* The pre-2.6 struct loop_info, for callers that still use it. */
static void clo_info_from_old(const struct loop_info *old,
			      struct loop_info64 *info)
{
	memset(info, 0, sizeof(*info));
	info->lo_number = old->lo_number;
	info->lo_offset = old->lo_offset;
	info->lo_encrypt_type = old->lo_encrypt_type;
	info->lo_encrypt_key_size = old->lo_encrypt_key_size;
	info->lo_flags = old->lo_flags;
	info->lo_init[0] = old->lo_init[0];
	info->lo_init[1] = old->lo_init[1];
	/* The old struct has one name field; with CryptoAPI it names the cipher. */
	if (old->lo_encrypt_type == LO_CRYPT_CRYPTOAPI)
		memcpy(info->lo_crypt_name, old->lo_name, LO_NAME_SIZE);
	else
		memcpy(info->lo_file_name, old->lo_name, LO_NAME_SIZE);
	memcpy(info->lo_encrypt_key, old->lo_encrypt_key, LO_KEY_SIZE);
}

static int clo_info_to_old(const struct loop_info64 *info,
			   struct loop_info *old)
{
	memset(old, 0, sizeof(*old));
	old->lo_number = info->lo_number;
	old->lo_device = info->lo_device;
	old->lo_inode = info->lo_inode;
	old->lo_rdevice = info->lo_rdevice;
	old->lo_offset = info->lo_offset;
	old->lo_encrypt_type = info->lo_encrypt_type;
	old->lo_encrypt_key_size = info->lo_encrypt_key_size;
	old->lo_flags = info->lo_flags;
	old->lo_init[0] = info->lo_init[0];
	old->lo_init[1] = info->lo_init[1];
	if (info->lo_encrypt_type == LO_CRYPT_CRYPTOAPI)
		memcpy(old->lo_name, info->lo_crypt_name, LO_NAME_SIZE);
	else
		memcpy(old->lo_name, info->lo_file_name, LO_NAME_SIZE);

	if (old->lo_device != info->lo_device ||
	    old->lo_rdevice != info->lo_rdevice ||
	    old->lo_inode != info->lo_inode ||
	    old->lo_offset != info->lo_offset ||
	    old->lo_init[0] != info->lo_init[0] ||
	    old->lo_init[1] != info->lo_init[1])
		return -EOVERFLOW;
	return 0;
}

static int clo_ioctl_block_size(struct clo_device *lo,
				struct block_device *bdev, unsigned long arg)
{
	if (arg > PAGE_SIZE || blk_validate_block_size(arg))
		return -EINVAL;
	return clo_set_block_size(lo, bdev, arg);
}

static int clo_ioctl_multi_key(struct clo_device *lo,
			       struct block_device *bdev, void __user *arg,
			       bool v3)
{
	u8 *keys;
	int err;

	keys = memdup_user(arg, CLO_MULTI_KEY_BYTES(v3));
	if (IS_ERR(keys))
		return PTR_ERR(keys);
	err = clo_multi_key(lo, bdev, keys, v3);
	kfree_sensitive(keys);
	return err;
}

static bool clo_may_change(clo_mode_t mode)
{
	return (mode & CLO_MODE_WRITE) || capable(CAP_SYS_ADMIN);
}

int clo_ioctl(struct block_device *bdev, clo_mode_t mode, unsigned int cmd,
	      unsigned long arg)
{
	struct clo_device *lo = bdev->bd_disk->private_data;
	void __user *argp = (void __user *)arg;
	struct loop_info64 info;
	struct loop_info old;
	struct loop_config config;
	int err;

	switch (cmd) {
	case LOOP_GET_STATUS64:
		err = clo_get_status(lo, &info);
		if (!err && copy_to_user(argp, &info, sizeof(info)))
			err = -EFAULT;
		return err;
	case LOOP_GET_STATUS:
		err = clo_get_status(lo, &info);
		if (!err)
			err = clo_info_to_old(&info, &old);
		if (!err && copy_to_user(argp, &old, sizeof(old)))
			err = -EFAULT;
		return err;
	}

	if (!clo_may_change(mode))
		return -EPERM;

	switch (cmd) {
	case LOOP_CONFIGURE:
		if (copy_from_user(&config, argp, sizeof(config)))
			err = -EFAULT;
		else
			err = clo_ioctl_configure(lo, mode, bdev, &config);
		memzero_explicit(&config, sizeof(config));
		return err;
	case LOOP_SET_FD:
		memset(&config, 0, sizeof(config));
		config.fd = arg;
		return clo_ioctl_configure(lo, mode, bdev, &config);
	case LOOP_CLR_FD:
		return clo_clr_fd(lo);
	case LOOP_SET_STATUS64:
		if (copy_from_user(&info, argp, sizeof(info))) {
			memzero_explicit(&info, sizeof(info));
			return -EFAULT;
		}
		return clo_ioctl_set_status(lo, bdev, &info);
	case LOOP_SET_STATUS:
		if (copy_from_user(&old, argp, sizeof(old))) {
			err = -EFAULT;
		} else {
			clo_info_from_old(&old, &info);
			err = clo_ioctl_set_status(lo, bdev, &info);
		}
		memzero_explicit(&old, sizeof(old));
		return err;
	case LOOP_SET_CAPACITY:
		return clo_set_capacity(lo);
	case LOOP_SET_DIRECT_IO:
		return clo_set_dio(lo, !!arg);
	case LOOP_SET_BLOCK_SIZE:
		return clo_ioctl_block_size(lo, bdev, arg);
	case CLO_MULTI_KEY_SETUP:
		return clo_ioctl_multi_key(lo, bdev, argp, false);
	case CLO_MULTI_KEY_SETUP_V3:
		return clo_ioctl_multi_key(lo, bdev, argp, true);
	}
	return -ENOTTY;
}

#ifdef CONFIG_COMPAT
/*
 * struct loop_info64 and struct loop_config have the same layout for
 * 32-bit callers; only the pointer needs converting.  The old struct
 * loop_info has longs in it and is not offered to them.
 */
int clo_compat_ioctl(struct block_device *bdev, clo_mode_t mode,
		     unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case LOOP_GET_STATUS64:
	case LOOP_SET_STATUS64:
	case LOOP_CONFIGURE:
	case CLO_MULTI_KEY_SETUP:
	case CLO_MULTI_KEY_SETUP_V3:
		arg = (unsigned long)compat_ptr(arg);
		fallthrough;
	case LOOP_SET_FD:
	case LOOP_CLR_FD:
	case LOOP_SET_CAPACITY:
	case LOOP_SET_DIRECT_IO:
	case LOOP_SET_BLOCK_SIZE:
		return clo_ioctl(bdev, mode, cmd, arg);
	}
	return -ENOIOCTLCMD;
}
#endif
