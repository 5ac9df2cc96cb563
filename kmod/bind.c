// SPDX-License-Identifier: GPL-2.0-only
/*
 * The life of a device: bound to a backing file (configure), changed
 * while bound (status, capacity, direct I/O, block size, keys), unbound
 * (clear, autoclear on last close), and the queue limits that go with
 * each.  ioctl.c decodes the ABI and calls in here.
 *
 * Every operation on a bound device goes through clo_lock_bound(), the
 * one gate that takes the device's lock and refuses an unbound device,
 * as loop.c's lo_simple_ioctl() does.
 *
 * Locking: clo_ctl_mutex, then lo->lock.  Neither is held while taking a
 * disk's open_mutex (partition rescans, del_gendisk) or dropping the
 * backing file, which can end up in another block device's release.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pagemap.h>

#include "cryptoloop.h"

/*
 * How deep our devices may stack on each other.  Each level's I/O is
 * done by a worker of the level above, so this bounds nothing on the
 * stack; it stops a chain long enough to look like a cycle.
 */
#define CLO_MAX_STACK		32

/**
 * clo_lock_bound() - the gate: lock a device that is bound
 * @lo: device
 *
 * On success lo->lock is held and @lo stays bound until the caller
 * unlocks it.
 *
 * Return: 0; -ENXIO if @lo is not bound, or the error of a fatal signal
 * while waiting, both without the lock.
 */
int clo_lock_bound(struct clo_device *lo)
{
	int err;

	err = mutex_lock_killable(&lo->lock);
	if (err)
		return err;
	if (lo->state != CLO_BOUND) {
		mutex_unlock(&lo->lock);
		return -ENXIO;
	}
	return 0;
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
		if (other == lo || ++depth > CLO_MAX_STACK)
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

/* Write back and drop the page cache before the way we read changes. */
static void clo_drop_cache(struct block_device *bdev)
{
	sync_blockdev(bdev);
	invalidate_bdev(bdev);
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

/**
 * clo_configure() - bind an unbound device to a backing file
 * @lo: device
 * @mode: how the caller opened @bdev
 * @bdev: the device's block device
 * @file: the backing file; its reference passes to @lo, or is dropped
 *	on failure
 * @bsize: logical block size, already validated
 * @p: validated settings; @p->crypt passes to @lo on success
 *
 * Return: 0, -EBUSY if @lo is bound, -EINVAL for a backing file we
 * cannot serve, or another negative errno.
 */
int clo_configure(struct clo_device *lo, clo_mode_t mode,
		  struct block_device *bdev, struct file *file,
		  unsigned int bsize, struct clo_params *p)
{
	struct request_queue *q = lo->disk->queue;
	struct queue_limits lim;
	bool partscan, wc;
	int err;

	/* Held while bound, so the module cannot go with devices attached. */
	__module_get(THIS_MODULE);

	/* Do not change a device someone else has claimed exclusively. */
	if (!(mode & CLO_MODE_EXCL)) {
		err = clo_prepare_to_claim(bdev, clo_configure);
		if (err)
			goto put_file;
	}

	err = mutex_lock_killable(&clo_ctl_mutex);
	if (err)
		goto abort_claim;
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
		p->flags |= LO_FLAGS_READ_ONLY;

	/*
	 * Not bound yet, so no I/O can see the limits change.  Flush and FUA
	 * both end in fsync: offer them only if it exists.
	 */
	wc = !(p->flags & LO_FLAGS_READ_ONLY) && file->f_op->fsync;
	clo_limits_start(q, &lim);
	clo_limits_write_cache(q, &lim, wc);
	clo_limits_block_size(q, &lim, bsize);
	clo_config_discard(q, &lim, file, p->flags);
	err = clo_limits_commit(q, &lim);
	if (err)
		goto unlock;

	/* One write batch must always be able to finish: see blkdev.c. */
	lo->page_pool = mempool_create_page_pool(CLO_BATCH_PAGES, 0);
	if (!lo->page_pool) {
		err = -ENOMEM;
		goto unlock;
	}

	clo_force_media_change(lo->disk);
	set_disk_ro(lo->disk, p->flags & LO_FLAGS_READ_ONLY);

	lo->backing = file;
	lo->offset = p->offset;
	lo->sizelimit = p->sizelimit;
	lo->flags = p->flags;
	lo->init[0] = p->init[0];
	lo->init[1] = p->init[1];
	lo->encrypt_type = p->encrypt_type;
	memcpy(lo->file_name, p->file_name, LO_NAME_SIZE);
	lo->crypt = p->crypt;
	p->crypt = NULL;

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
	return 0;

unlock:
	mutex_unlock(&lo->lock);
unlock_ctl:
	mutex_unlock(&clo_ctl_mutex);
abort_claim:
	if (!(mode & CLO_MODE_EXCL))
		bd_abort_claiming(bdev, clo_configure);
put_file:
	fput(file);
	module_put(THIS_MODULE);
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
	struct clo_crypt *crypt;
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
	crypt = lo->crypt;
	partscan = lo->flags & LO_FLAGS_PARTSCAN;
	mapping_set_gfp_mask(file->f_mapping, lo->old_gfp_mask);
	lo->backing = NULL;
	lo->crypt = NULL;
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
	clo_crypt_destroy(crypt);

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

/*
 * LOOP_CLR_FD.  Return: 0 (unbound, or deferred to the last close),
 * -ENXIO if @lo is not bound, or a fatal signal's error.
 */
int clo_clr_fd(struct clo_device *lo)
{
	int err;

	err = clo_lock_bound(lo);
	if (err)
		return err;
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

/* The last close: unbind now if LO_FLAGS_AUTOCLEAR asks for it. */
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

/**
 * clo_set_status() - apply LOOP_SET_STATUS settings to a bound device
 * @lo: device
 * @bdev: its block device
 * @p: validated settings; @p->crypt is swapped with the device's old one
 *
 * Return: 0, -ENXIO if @lo is not bound, or a fatal signal's error.
 */
int clo_set_status(struct clo_device *lo, struct block_device *bdev,
		   struct clo_params *p)
{
	struct request_queue *q = lo->disk->queue;
	struct clo_crypt *old_crypt;
	bool partscan = false;
	unsigned int memflags;
	u32 old_flags;
	int err;

	err = clo_lock_bound(lo);
	if (err)
		return err;

	/* What the page cache holds was read with the old key or offset. */
	clo_drop_cache(bdev);
	memflags = clo_freeze_queue(q);

	old_flags = lo->flags;
	old_crypt = lo->crypt;
	lo->crypt = p->crypt;
	p->crypt = old_crypt;
	lo->offset = p->offset;
	lo->sizelimit = p->sizelimit;
	lo->init[0] = p->init[0];
	lo->init[1] = p->init[1];
	lo->encrypt_type = p->encrypt_type;
	memcpy(lo->file_name, p->file_name, LO_NAME_SIZE);
	/* Like loop: only autoclear and partscan change, partscan sticks. */
	lo->flags = (old_flags & ~LOOP_SET_STATUS_SETTABLE_FLAGS) |
		    (p->flags & LOOP_SET_STATUS_SETTABLE_FLAGS) |
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
	mutex_unlock(&lo->lock);
	if (partscan)
		clo_rescan_partitions(lo, false);
	return 0;
}

/**
 * clo_get_status() - report a bound device as LOOP_GET_STATUS64 does
 * @lo: device
 * @info: filled in; the key field stays zero
 *
 * Return: 0, -ENXIO if @lo is not bound, or an error of the backing
 * file's getattr.
 */
int clo_get_status(struct clo_device *lo, struct loop_info64 *info)
{
	struct file *file;
	struct kstat stat;
	int err;

	memset(info, 0, sizeof(*info));
	err = clo_lock_bound(lo);
	if (err)
		return err;
	info->lo_number = lo->number;
	info->lo_offset = lo->offset;
	info->lo_sizelimit = lo->sizelimit;
	info->lo_flags = lo->flags;
	info->lo_init[0] = lo->init[0];
	info->lo_init[1] = lo->init[1];
	memcpy(info->lo_file_name, lo->file_name, LO_NAME_SIZE);
	if (lo->crypt) {
		info->lo_encrypt_type = lo->encrypt_type;
		info->lo_encrypt_key_size = lo->crypt->key_size;
		clo_crypt_spec(lo->crypt, info->lo_crypt_name, LO_NAME_SIZE);
		if (lo->crypt->ntfms > 1)
			info->lo_flags |= CLO_FLAGS_MULTI_KEY;
		if (lo->crypt->lmk_v3)
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

/* Return: 0, -ENXIO if @lo is not bound, or a fatal signal's error. */
int clo_set_capacity(struct clo_device *lo)
{
	int err;

	err = clo_lock_bound(lo);
	if (err)
		return err;
	clo_update_size(lo);
	mutex_unlock(&lo->lock);
	return 0;
}

/*
 * Return: 0, -EINVAL if direct I/O was asked for and cannot work (as loop
 * says), -ENXIO if @lo is not bound, or a fatal signal's error.
 */
int clo_set_dio(struct clo_device *lo, bool on)
{
	unsigned int memflags;
	int err;

	err = clo_lock_bound(lo);
	if (err)
		return err;
	memflags = clo_freeze_queue(lo->disk->queue);
	clo_update_dio(lo, on);
	clo_unfreeze_queue(lo->disk->queue, memflags);
	if (on && !lo->use_dio)
		err = -EINVAL;
	mutex_unlock(&lo->lock);
	return err;
}

/*
 * @bsize is validated by the caller.  Return: 0, -ENXIO if @lo is not
 * bound, a fatal signal's error, or what the queue limits refuse.
 */
int clo_set_block_size(struct clo_device *lo, struct block_device *bdev,
		       unsigned int bsize)
{
	struct request_queue *q = lo->disk->queue;
	struct queue_limits lim;
	unsigned int memflags;
	int err;

	err = clo_lock_bound(lo);
	if (err)
		return err;
	/* The IV still counts 512-byte sectors: only the I/O unit changes. */
	clo_drop_cache(bdev);
	clo_limits_start(q, &lim);
	memflags = clo_freeze_queue(q);
	clo_limits_block_size(q, &lim, bsize);
	err = clo_limits_commit(q, &lim);
	clo_update_dio(lo, lo->use_dio);
	clo_unfreeze_queue(q, memflags);
	mutex_unlock(&lo->lock);
	return err;
}

/**
 * clo_multi_key() - switch a bound device to loop-AES multi-key mode
 * @lo: device, set up with the cipher and key length by SET_STATUS
 * @bdev: its block device
 * @keys: CLO_MULTI_KEY_BYTES(@v3) bytes of key slots
 * @v3: 65-key format
 *
 * Return: 0, -ENXIO if @lo is not bound, -EINVAL if its cipher cannot
 * take multiple keys, or another negative errno.
 */
int clo_multi_key(struct clo_device *lo, struct block_device *bdev,
		  const u8 *keys, bool v3)
{
	struct clo_crypt *c, *old;
	unsigned int memflags;
	int err;

	err = clo_lock_bound(lo);
	if (err)
		return err;
	err = clo_crypt_multi_key(lo->crypt, keys, v3, &c);
	if (err)
		goto unlock;

	/* The page cache holds what was read with key 0 (blkid probes). */
	clo_drop_cache(bdev);
	memflags = clo_freeze_queue(lo->disk->queue);
	old = lo->crypt;
	lo->crypt = c;
	clo_unfreeze_queue(lo->disk->queue, memflags);
	clo_crypt_destroy(old);
unlock:
	mutex_unlock(&lo->lock);
	return err;
}
