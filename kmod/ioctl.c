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
 *   lo_crypt_name    "cipher[-cbc[-plain|-plain64]]", see xfer.c.
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
 * Locking: clo_ctl_mutex, then lo->lock.  Neither is held while taking a
 * disk's open_mutex (partition rescans, del_gendisk) or dropping the
 * backing file, which can end up in another block device's release.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/compat.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cryptoloop.h"

/* Settings taken from a loop_info64, validated, before they are applied. */
struct clo_params {
	loff_t offset;
	loff_t sizelimit;
	u32 flags;
	u64 init[2];
	u32 encrypt_type;
	char file_name[LO_NAME_SIZE];
	struct clo_xfer *xfer;
};

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
	if (p->encrypt_type != LO_CRYPT_CRYPTOAPI &&
	    !clo_loopaes_cipher(p->encrypt_type))
		return -EINVAL;
	/*
	 * The IV counts whole 512-byte sectors of the backing file; an
	 * unaligned offset would put every sector across two of them.
	 */
	if (p->offset & (CLO_SECTOR_SIZE - 1))
		return -EINVAL;
	p->xfer = clo_xfer_create(p->encrypt_type, info->lo_crypt_name,
				  info->lo_encrypt_key,
				  info->lo_encrypt_key_size);
	if (IS_ERR(p->xfer)) {
		int err = PTR_ERR(p->xfer);

		p->xfer = NULL;
		return err;
	}
	return 0;
}

static void clo_wipe_info(struct loop_info64 *info)
{
	memzero_explicit(info->lo_encrypt_key, sizeof(info->lo_encrypt_key));
}

static sector_t clo_backing_sectors(struct file *file, loff_t offset,
				    loff_t sizelimit)
{
	loff_t size = i_size_read(file->f_mapping->host);

	if (offset > size)
		return 0;
	size -= offset;
	if (sizelimit && sizelimit < size)
		size = sizelimit;
	return size >> CLO_SECTOR_SHIFT;
}

static void clo_update_size(struct clo_device *lo)
{
	sector_t n = clo_backing_sectors(lo->backing, lo->offset,
					 lo->sizelimit);

	if (!set_capacity_and_notify(lo->disk, n))
		kobject_uevent(&disk_to_dev(lo->disk)->kobj, KOBJ_CHANGE);
}

static unsigned short clo_backing_lbs(struct file *file)
{
	struct inode *inode = file->f_mapping->host;

	if (S_ISBLK(inode->i_mode))
		return bdev_logical_block_size(I_BDEV(inode));
	if (inode->i_sb->s_bdev)
		return bdev_logical_block_size(inode->i_sb->s_bdev);
	return CLO_SECTOR_SIZE;
}

/* Use O_DIRECT on the backing file if asked for and it can work. */
static void clo_update_dio(struct clo_device *lo, bool want)
{
	struct file *file = lo->backing;
	unsigned short lbs = clo_backing_lbs(file);

	lo->can_dio = (file->f_mode & FMODE_CAN_ODIRECT) &&
		      !(lo->offset & (lbs - 1)) &&
		      queue_logical_block_size(lo->disk->queue) >= lbs;
	lo->use_dio = want && lo->can_dio;
	if (lo->use_dio)
		lo->flags |= LO_FLAGS_DIRECT_IO;
	else
		lo->flags &= ~LO_FLAGS_DIRECT_IO;
}

static void clo_config_discard(struct request_queue *q,
			       struct queue_limits *lim, struct file *file,
			       u32 flags)
{
	struct inode *inode = file->f_mapping->host;

	if (!file->f_op->fallocate || (flags & LO_FLAGS_READ_ONLY)) {
		clo_limits_discard(q, lim, 0, 0);
		return;
	}
	if (S_ISBLK(inode->i_mode)) {
		/* Passed down as a real discard, see clo_discard(). */
		struct block_device *bdev = I_BDEV(inode);

		clo_limits_discard(q, lim, clo_bdev_discard_sectors(bdev),
				   bdev_discard_granularity(bdev));
	} else {
		clo_limits_discard(q, lim, UINT_MAX >> SECTOR_SHIFT,
				   inode->i_sb->s_blocksize);
	}
}

/*
 * Refuse backing files we cannot serve, and chains of our own devices
 * that lead back to @lo (I/O to itself would wait on itself forever).
 * Called with clo_ctl_mutex held, which keeps every ->backing we walk
 * alive.
 */
static int clo_validate_backing(struct clo_device *lo, struct file *file)
{
	struct inode *inode = file->f_mapping->host;
	int depth = 0;

	if (!S_ISREG(inode->i_mode) && !S_ISBLK(inode->i_mode))
		return -EINVAL;
	while (file && S_ISBLK(file->f_mapping->host->i_mode)) {
		struct gendisk *disk = I_BDEV(file->f_mapping->host)->bd_disk;
		struct clo_device *other;

		if (!clo_is_our_disk(disk))
			break;
		other = disk->private_data;
		if (other == lo || ++depth > 32)
			return -EINVAL;
		/*
		 * Unbinding clears ->backing under clo_ctl_mutex, which we
		 * hold; the state only tells us whether to go on walking.
		 */
		if (data_race(other->state) != CLO_BOUND)
			break;
		file = other->backing;
	}
	return 0;
}

static void clo_rescan_partitions(struct clo_device *lo, bool locked)
{
	int err;

	if (!locked)
		mutex_lock(&lo->disk->open_mutex);
	err = bdev_disk_changed(lo->disk, false);
	if (!locked)
		mutex_unlock(&lo->disk->open_mutex);
	if (err)
		pr_warn("%s: partition scan failed: %d\n",
			lo->disk->disk_name, err);
}

static int clo_configure(struct clo_device *lo, clo_mode_t mode,
			 struct block_device *bdev,
			 const struct loop_config *config)
{
	struct loop_info64 info = config->info;
	struct file *file;
	struct clo_params p;
	struct request_queue *q = lo->disk->queue;
	struct queue_limits lim;
	unsigned short bsize = config->block_size ?: CLO_SECTOR_SIZE;
	bool partscan, wc;
	int err;

	file = fget(config->fd);
	if (!file) {
		err = -EBADF;
		goto wipe_info;
	}
	/* Held while bound, so the module cannot go with devices attached. */
	__module_get(THIS_MODULE);

	/* Do not change a device someone else has claimed exclusively. */
	if (!(mode & CLO_MODE_EXCL)) {
		err = clo_prepare_to_claim(bdev, clo_configure);
		if (err)
			goto put_file;
	}

	if ((info.lo_flags & ~LOOP_CONFIGURE_SETTABLE_FLAGS) ||
	    blk_validate_block_size(bsize)) {
		err = -EINVAL;
		goto abort_claim;
	}
	err = clo_params_from_info(&info, &p);
	if (err)
		goto abort_claim;

	err = mutex_lock_killable(&clo_ctl_mutex);
	if (err)
		goto free_xfer;
	err = mutex_lock_killable(&lo->lock);
	if (err)
		goto unlock_ctl;
	err = -EBUSY;
	if (lo->state != CLO_UNBOUND)
		goto unlock;
	err = clo_validate_backing(lo, file);
	if (err)
		goto unlock;

	if (!(file->f_mode & FMODE_WRITE) || !(mode & CLO_MODE_WRITE) ||
	    !file->f_op->write_iter)
		p.flags |= LO_FLAGS_READ_ONLY;

	/*
	 * Not bound yet, so no I/O can see the limits change.  Flush and FUA
	 * both end in fsync: offer them only if it exists.
	 */
	wc = !(p.flags & LO_FLAGS_READ_ONLY) && file->f_op->fsync;
	clo_limits_start(q, &lim);
	clo_limits_write_cache(q, &lim, wc);
	clo_limits_block_size(q, &lim, bsize);
	clo_config_discard(q, &lim, file, p.flags);
	err = clo_limits_commit(q, &lim);
	if (err)
		goto unlock;

	lo->page_pool = mempool_create_page_pool(CLO_BATCH_PAGES, 0);
	if (!lo->page_pool) {
		err = -ENOMEM;
		goto unlock;
	}

	clo_force_media_change(lo->disk);
	set_disk_ro(lo->disk, p.flags & LO_FLAGS_READ_ONLY);

	lo->backing = file;
	lo->offset = p.offset;
	lo->sizelimit = p.sizelimit;
	lo->flags = p.flags;
	lo->init[0] = p.init[0];
	lo->init[1] = p.init[1];
	lo->encrypt_type = p.encrypt_type;
	memcpy(lo->file_name, p.file_name, LO_NAME_SIZE);
	lo->xfer = p.xfer;

	/*
	 * Reclaim must not recurse into the backing file's filesystem from
	 * inside our I/O, or writeback to us could wait for itself.
	 */
	lo->old_gfp_mask = mapping_gfp_mask(file->f_mapping);
	mapping_set_gfp_mask(file->f_mapping,
			     lo->old_gfp_mask & ~(__GFP_IO | __GFP_FS));

	clo_update_dio(lo, lo->flags & LO_FLAGS_DIRECT_IO);
	clo_update_size(lo);

	lo->state = CLO_BOUND;
	partscan = lo->flags & LO_FLAGS_PARTSCAN;
	if (partscan)
		clear_bit(GD_SUPPRESS_PART_SCAN, &lo->disk->state);
	/*
	 * Under the lock, so an unbind cannot run before the group exists.
	 * Creating does not wait for attribute readers; only removal does,
	 * and clo_unbind() removes without the lock.
	 */
	if (clo_sysfs_add(lo))
		pr_warn("%s: no sysfs attributes\n", lo->disk->disk_name);
	mutex_unlock(&lo->lock);
	mutex_unlock(&clo_ctl_mutex);

	kobject_uevent(&disk_to_dev(lo->disk)->kobj, KOBJ_CHANGE);
	if (partscan)
		clo_rescan_partitions(lo, false);
	if (!(mode & CLO_MODE_EXCL))
		bd_abort_claiming(bdev, clo_configure);
	clo_wipe_info(&info);
	return 0;

unlock:
	mutex_unlock(&lo->lock);
unlock_ctl:
	mutex_unlock(&clo_ctl_mutex);
free_xfer:
	clo_xfer_destroy(p.xfer);
abort_claim:
	if (!(mode & CLO_MODE_EXCL))
		bd_abort_claiming(bdev, clo_configure);
put_file:
	fput(file);
	module_put(THIS_MODULE);
wipe_info:
	clo_wipe_info(&info);
	return err;
}

/*
 * Unbind a device the caller has moved to CLO_RUNDOWN.  @in_release: we
 * are called from the block device's release, under its open_mutex.
 */
static void clo_unbind(struct clo_device *lo, bool in_release)
{
	struct request_queue *q = lo->disk->queue;
	struct queue_limits lim;
	struct clo_xfer *xfer;
	struct file *file;
	unsigned int memflags;
	bool partscan;

	clo_sysfs_remove(lo);
	/* Unpin a file mapped for swap (extents.c) while it is ours. */
	clo_extents_stop(lo);

	/* Wait for requests in flight; later ones fail in clo_queue_rq(). */
	memflags = clo_freeze_queue(q);

	mutex_lock(&clo_ctl_mutex);
	mutex_lock(&lo->lock);
	file = lo->backing;
	xfer = lo->xfer;
	partscan = lo->flags & LO_FLAGS_PARTSCAN;
	mapping_set_gfp_mask(file->f_mapping, lo->old_gfp_mask);
	lo->backing = NULL;
	lo->xfer = NULL;
	lo->offset = 0;
	lo->sizelimit = 0;
	lo->flags = 0;
	lo->init[0] = 0;
	lo->init[1] = 0;
	lo->encrypt_type = 0;
	lo->use_dio = false;
	memset(lo->file_name, 0, sizeof(lo->file_name));
	mempool_destroy(lo->page_pool);
	lo->page_pool = NULL;
	set_capacity(lo->disk, 0);
	mutex_unlock(&lo->lock);
	mutex_unlock(&clo_ctl_mutex);

	clo_unfreeze_queue(q, memflags);

	/*
	 * Back to the defaults for the next user.  Every request fails in
	 * clo_queue_rq() from now on, so the queue need not be frozen, and
	 * the limits lock is not taken under ours.  Smaller blocks and no
	 * cache are always valid limits.
	 */
	clo_limits_start(q, &lim);
	clo_limits_write_cache(q, &lim, false);
	clo_limits_block_size(q, &lim, CLO_SECTOR_SIZE);
	WARN_ON_ONCE(clo_limits_commit(q, &lim));

	/* The keys go now: crypto_free_skcipher() wipes each schedule. */
	clo_xfer_destroy(xfer);

	clo_force_media_change(lo->disk);
	if (partscan)
		clo_rescan_partitions(lo, in_release);
	set_bit(GD_SUPPRESS_PART_SCAN, &lo->disk->state);
	kobject_uevent(&disk_to_dev(lo->disk)->kobj, KOBJ_CHANGE);

	mutex_lock(&lo->lock);
	lo->state = CLO_UNBOUND;
	mutex_unlock(&lo->lock);

	fput(file);
	module_put(THIS_MODULE);
}

static int clo_clr_fd(struct clo_device *lo)
{
	int err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state != CLO_BOUND) {
		mutex_unlock(&lo->lock);
		return -ENXIO;
	}
	/*
	 * Others still have the device open (udev's blkid, say): detach when
	 * the last of them closes, as loop does, instead of failing.
	 */
	if (disk_openers(lo->disk) > 1) {
		lo->flags |= LO_FLAGS_AUTOCLEAR;
		mutex_unlock(&lo->lock);
		return 0;
	}
	lo->state = CLO_RUNDOWN;
	mutex_unlock(&lo->lock);
	clo_unbind(lo, false);
	return 0;
}

void clo_release_autoclear(struct clo_device *lo)
{
	mutex_lock(&lo->lock);
	if (lo->state != CLO_BOUND || !(lo->flags & LO_FLAGS_AUTOCLEAR)) {
		mutex_unlock(&lo->lock);
		return;
	}
	lo->state = CLO_RUNDOWN;
	mutex_unlock(&lo->lock);
	clo_unbind(lo, true);
}

static int clo_set_status(struct clo_device *lo, struct block_device *bdev,
			  struct loop_info64 *info)
{
	struct request_queue *q = lo->disk->queue;
	struct clo_xfer *old_xfer;
	struct clo_params p;
	bool partscan = false;
	unsigned int memflags;
	u32 old_flags;
	int err;

	err = clo_params_from_info(info, &p);
	clo_wipe_info(info);
	if (err)
		return err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		goto free_xfer;
	if (lo->state != CLO_BOUND) {
		err = -ENXIO;
		goto unlock;
	}

	/* What the page cache holds was read with the old key or offset. */
	sync_blockdev(bdev);
	invalidate_bdev(bdev);
	memflags = clo_freeze_queue(q);

	old_flags = lo->flags;
	old_xfer = lo->xfer;
	lo->xfer = p.xfer;
	p.xfer = old_xfer;
	lo->offset = p.offset;
	lo->sizelimit = p.sizelimit;
	lo->init[0] = p.init[0];
	lo->init[1] = p.init[1];
	lo->encrypt_type = p.encrypt_type;
	memcpy(lo->file_name, p.file_name, LO_NAME_SIZE);
	/* Like loop: only autoclear and partscan change, partscan sticks. */
	lo->flags = (old_flags & ~LOOP_SET_STATUS_SETTABLE_FLAGS) |
		    (p.flags & LOOP_SET_STATUS_SETTABLE_FLAGS) |
		    (old_flags & ~LOOP_SET_STATUS_CLEARABLE_FLAGS &
		     LOOP_SET_STATUS_SETTABLE_FLAGS);
	clo_update_size(lo);
	clo_update_dio(lo, lo->use_dio);

	clo_unfreeze_queue(q, memflags);

	if ((lo->flags & LO_FLAGS_PARTSCAN) &&
	    !(old_flags & LO_FLAGS_PARTSCAN)) {
		clear_bit(GD_SUPPRESS_PART_SCAN, &lo->disk->state);
		partscan = true;
	}
unlock:
	mutex_unlock(&lo->lock);
	if (partscan)
		clo_rescan_partitions(lo, false);
free_xfer:
	clo_xfer_destroy(p.xfer);
	return err;
}

static int clo_get_status(struct clo_device *lo, struct loop_info64 *info)
{
	struct file *file;
	struct kstat stat;
	int err;

	memset(info, 0, sizeof(*info));
	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state != CLO_BOUND) {
		mutex_unlock(&lo->lock);
		return -ENXIO;
	}
	info->lo_number = lo->number;
	info->lo_offset = lo->offset;
	info->lo_sizelimit = lo->sizelimit;
	info->lo_flags = lo->flags;
	info->lo_init[0] = lo->init[0];
	info->lo_init[1] = lo->init[1];
	memcpy(info->lo_file_name, lo->file_name, LO_NAME_SIZE);
	if (lo->xfer) {
		info->lo_encrypt_type = lo->encrypt_type;
		info->lo_encrypt_key_size = lo->xfer->key_size;
		clo_xfer_spec(lo->xfer, info->lo_crypt_name, LO_NAME_SIZE);
		if (lo->xfer->ntfms > 1)
			info->lo_flags |= CLO_FLAGS_MULTI_KEY;
		if (lo->xfer->lmk_v3)
			info->lo_flags |= CLO_FLAGS_MULTI_KEY_V3;
	}
	/*
	 * lo_encrypt_key stays zero for everyone: the key is not kept, and
	 * a caller who needs it already has it.
	 */
	file = get_file(lo->backing);
	mutex_unlock(&lo->lock);

	/* getattr can sleep on the backing filesystem: not under our lock. */
	err = vfs_getattr(&file->f_path, &stat, STATX_INO,
			  AT_STATX_SYNC_AS_STAT);
	if (!err) {
		info->lo_device = huge_encode_dev(stat.dev);
		info->lo_inode = stat.ino;
		info->lo_rdevice = huge_encode_dev(stat.rdev);
	}
	fput(file);
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

static int clo_set_capacity(struct clo_device *lo)
{
	int err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state == CLO_BOUND)
		clo_update_size(lo);
	else
		err = -ENXIO;
	mutex_unlock(&lo->lock);
	return err;
}

static int clo_set_dio(struct clo_device *lo, unsigned long arg)
{
	unsigned int memflags;
	int err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state != CLO_BOUND) {
		err = -ENXIO;
		goto unlock;
	}
	memflags = clo_freeze_queue(lo->disk->queue);
	clo_update_dio(lo, !!arg);
	clo_unfreeze_queue(lo->disk->queue, memflags);
	/* Like loop: asking for direct I/O that cannot work is an error. */
	if (arg && !lo->use_dio)
		err = -EINVAL;
unlock:
	mutex_unlock(&lo->lock);
	return err;
}

static int clo_set_block_size(struct clo_device *lo, struct block_device *bdev,
			      unsigned long arg)
{
	struct request_queue *q = lo->disk->queue;
	struct queue_limits lim;
	unsigned int memflags;
	int err;

	if (arg > PAGE_SIZE || blk_validate_block_size(arg))
		return -EINVAL;
	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state != CLO_BOUND) {
		err = -ENXIO;
		goto unlock;
	}
	/* The IV still counts 512-byte sectors: only the I/O unit changes. */
	sync_blockdev(bdev);
	invalidate_bdev(bdev);
	clo_limits_start(q, &lim);
	memflags = clo_freeze_queue(q);
	clo_limits_block_size(q, &lim, arg);
	err = clo_limits_commit(q, &lim);
	clo_update_dio(lo, lo->use_dio);
	clo_unfreeze_queue(q, memflags);
unlock:
	mutex_unlock(&lo->lock);
	return err;
}

static int clo_multi_key(struct clo_device *lo, struct block_device *bdev,
			 void __user *arg, bool v3)
{
	size_t len = CLO_MULTI_KEYS * CLO_KEY_SLOT + (v3 ? CLO_LMK_SEED_BYTES : 0);
	struct clo_xfer *x, *old;
	unsigned int memflags;
	u8 *keys;
	int err;

	keys = kmalloc(len, GFP_KERNEL);
	if (!keys)
		return -ENOMEM;
	if (copy_from_user(keys, arg, len)) {
		err = -EFAULT;
		goto wipe;
	}
	err = mutex_lock_killable(&lo->lock);
	if (err)
		goto wipe;
	if (lo->state != CLO_BOUND) {
		err = -ENXIO;
		goto unlock;
	}
	err = clo_xfer_multi_key(lo->xfer, keys, v3, &x);
	if (err)
		goto unlock;

	sync_blockdev(bdev);
	invalidate_bdev(bdev);
	memflags = clo_freeze_queue(lo->disk->queue);
	old = lo->xfer;
	lo->xfer = x;
	clo_unfreeze_queue(lo->disk->queue, memflags);
	clo_xfer_destroy(old);
unlock:
	mutex_unlock(&lo->lock);
wipe:
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
		if (copy_from_user(&config, argp, sizeof(config))) {
			memzero_explicit(&config, sizeof(config));
			return -EFAULT;
		}
		err = clo_configure(lo, mode, bdev, &config);
		memzero_explicit(&config, sizeof(config));
		return err;
	case LOOP_SET_FD:
		memset(&config, 0, sizeof(config));
		config.fd = arg;
		return clo_configure(lo, mode, bdev, &config);
	case LOOP_CLR_FD:
		return clo_clr_fd(lo);
	case LOOP_SET_STATUS64:
		if (copy_from_user(&info, argp, sizeof(info))) {
			memzero_explicit(&info, sizeof(info));
			return -EFAULT;
		}
		return clo_set_status(lo, bdev, &info);
	case LOOP_SET_STATUS:
		if (copy_from_user(&old, argp, sizeof(old))) {
			err = -EFAULT;
		} else {
			clo_info_from_old(&old, &info);
			err = clo_set_status(lo, bdev, &info);
		}
		memzero_explicit(&old, sizeof(old));
		return err;
	case LOOP_SET_CAPACITY:
		return clo_set_capacity(lo);
	case LOOP_SET_DIRECT_IO:
		return clo_set_dio(lo, arg);
	case LOOP_SET_BLOCK_SIZE:
		return clo_set_block_size(lo, bdev, arg);
	case CLO_MULTI_KEY_SETUP:
		return clo_multi_key(lo, bdev, argp, false);
	case CLO_MULTI_KEY_SETUP_V3:
		return clo_multi_key(lo, bdev, argp, true);
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
