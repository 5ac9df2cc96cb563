// SPDX-License-Identifier: GPL-2.0-only
/*
 * Swap on a file-backed device: the backing file pinned and its blocks
 * mapped, as swapon(2) does for a swap file.
 *
 * Normally a device reads and writes its backing file through the file's
 * ->read_iter/->write_iter.  When swap-out is what should free memory,
 * that path can wait forever: a direct-I/O write to a file allocates its
 * bios from the kernel's shared fs_bio_set, whose reserve is held by the
 * swap-out bios queued on this very device, and buffered I/O needs page
 * cache that only write-out frees.  So for swap the device, like the
 * kernel with a swap file, asks the filesystem once where every block of
 * the file lies (bmap), keeps the file from being changed while it holds
 * that map (S_SWAPFILE: no write, truncate, fallocate, reflink, extent
 * move or unlink), and then sends its I/O straight to the filesystem's
 * block device, with bios from a bio_set of its own.  Its write pages
 * come from the device's page pool (blkdev.c); a request then needs no
 * memory that another request's completion does not give back.
 *
 * A filesystem that must do more than keep a swap file's blocks in place
 * (f2fs pins the file against its garbage collector, btrfs stops balance
 * and snapshots from moving it, XFS and ext4 check and sync its extents)
 * has a ->swap_activate hook, which swapon(2) calls; we call it too, and
 * ->swap_deactivate when we let the file go.
 *
 * This is switched on by writing 1 to /sys/block/cryptoloopN/loop/swap
 * (sysfs.c), and off by writing 0 or by detaching.  It changes what the
 * file may undergo, so it is never the default: the file must be fully
 * allocated (no holes, no unwritten extents), on a filesystem whose block
 * map is stable (no copy-on-write, no reflinks), as for a swap file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/swap.h>

#include "cryptoloop.h"

/*
 * Bios in reserve.  A worker never holds an unsubmitted bio while it
 * waits for the next, and a submitted one completes without memory, so
 * one would do; more keep several workers going when the allocator has
 * nothing to give.
 */
#define CLO_EXT_BIO_POOL	16

/* Extents the block map starts with room for; it doubles as it fills. */
#define CLO_EXT_FIRST_CAP	64

/* A run of file blocks that lie one after the other on the device. */
struct clo_extent {
	u64 block;			/* first block in the file */
	u64 count;			/* blocks */
	sector_t sector;		/* where the first one lies */
};

struct clo_extents {
	struct block_device *bdev;
	unsigned int blkbits;		/* the filesystem's block size */
	u64 bytes;			/* mapped: the file's blocks */
	bool activated;			/* the filesystem's swap hook said yes */
	unsigned int nr;
	struct clo_extent *ext;		/* sorted by block */
	struct bio_set bs;
};

/* One request's bios in flight. */
struct clo_ext_io {
	atomic_t pending;
	blk_status_t status;
	struct completion done;
};

static void clo_ext_io_put(struct clo_ext_io *io)
{
	if (atomic_dec_and_test(&io->pending))
		complete(&io->done);
}

static void clo_ext_end_io(struct bio *bio)
{
	struct clo_ext_io *io = bio->bi_private;

	if (bio->bi_status)
		WRITE_ONCE(io->status, bio->bi_status);
	bio_put(bio);
	clo_ext_io_put(io);
}

/* The extent that holds file block @block, or NULL past the map. */
static const struct clo_extent *clo_ext_find(const struct clo_extents *m,
					     u64 block)
{
	unsigned int lo = 0, hi = m->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct clo_extent *e = &m->ext[mid];

		if (block < e->block)
			hi = mid;
		else if (block >= e->block + e->count)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

/* Zero what is left of @bvec from (@i, @off) on: reads past the map. */
static void clo_ext_zero_rest(struct bio_vec *bvec, unsigned int nr,
			      unsigned int i, unsigned int off)
{
	for (; i < nr; i++, off = 0)
		memzero_page(bvec[i].bv_page, bvec[i].bv_offset + off,
			     bvec[i].bv_len - off);
}

/**
 * clo_extents_rw() - read or write through the block map
 * @lo: the device; lo->extents is set
 * @write: direction
 * @bvec: the pages, in file order
 * @nr: number of @bvec entries
 * @pos: byte position in the backing file of the first one
 *
 * Reads past the end of the file read zeros, as through the file; writes
 * there fail.  Runs in the device's worker, under memalloc_noio.
 *
 * Return: 0 or -errno.
 */
int clo_extents_rw(struct clo_device *lo, bool write, struct bio_vec *bvec,
		   unsigned int nr, loff_t pos)
{
	struct clo_extents *m = lo->extents;
	unsigned int bmask = bdev_logical_block_size(m->bdev) - 1;
	blk_opf_t opf = write ? REQ_OP_WRITE : REQ_OP_READ;
	struct clo_ext_io io;
	unsigned int i = 0, off = 0;
	int ret = 0;

	atomic_set(&io.pending, 1);
	io.status = BLK_STS_OK;
	init_completion(&io.done);

	while (i < nr) {
		const struct clo_extent *e;
		struct bio *bio;
		u64 run;

		/* Unaligned after LOOP_SET_STATUS or SET_BLOCK_SIZE. */
		if ((pos & bmask) || (bvec[i].bv_len & bmask)) {
			ret = -EIO;
			break;
		}
		e = clo_ext_find(m, pos >> m->blkbits);
		if (!e) {
			if (write) {
				ret = -EIO;
				break;
			}
			clo_ext_zero_rest(bvec, nr, i, off);
			break;
		}
		/* Bytes from @pos to the end of this extent. */
		run = ((e->block + e->count) << m->blkbits) - pos;

		bio = bio_alloc_bioset(m->bdev, min_t(unsigned int, nr - i,
						      BIO_MAX_VECS),
				       opf, GFP_NOIO, &m->bs);
		bio->bi_iter.bi_sector = e->sector +
			((pos - (e->block << m->blkbits)) >> SECTOR_SHIFT);
		bio->bi_end_io = clo_ext_end_io;
		bio->bi_private = &io;
		while (i < nr && run) {
			unsigned int len = min_t(u64, bvec[i].bv_len - off, run);

			if (bio_add_page(bio, bvec[i].bv_page, len,
					 bvec[i].bv_offset + off) != len)
				break;
			pos += len;
			run -= len;
			off += len;
			if (off == bvec[i].bv_len) {
				i++;
				off = 0;
			}
		}
		atomic_inc(&io.pending);
		submit_bio(bio);
	}

	clo_ext_io_put(&io);
	wait_for_completion_io(&io.done);
	if (!ret && io.status)
		ret = blk_status_to_errno(io.status);
	return ret;
}

/* Flush: the data went around the filesystem, so its fsync is no use. */
int clo_extents_flush(struct clo_device *lo)
{
	return blkdev_issue_flush(lo->extents->bdev);
}

static int clo_ext_add(struct clo_extents *m, unsigned int *cap, u64 block,
		       sector_t sector)
{
	unsigned int sects = 1U << (m->blkbits - SECTOR_SHIFT);
	struct clo_extent *e;

	if (m->nr) {
		e = &m->ext[m->nr - 1];
		if (e->block + e->count == block &&
		    e->sector + e->count * sects == sector) {
			e->count++;
			return 0;
		}
	}
	if (m->nr == *cap) {
		unsigned int ncap = *cap ? 2 * *cap : CLO_EXT_FIRST_CAP;
		struct clo_extent *n;

		n = kvmalloc_array(ncap, sizeof(*n), GFP_KERNEL);
		if (!n)
			return -ENOMEM;
		if (m->nr)
			memcpy(n, m->ext, m->nr * sizeof(*n));
		kvfree(m->ext);
		m->ext = n;
		*cap = ncap;
	}
	m->ext[m->nr++] = (struct clo_extent){ block, 1, sector };
	return 0;
}

/*
 * Ask the filesystem where each block of the pinned file lies.  Block 0
 * is bmap's answer for a hole, an unwritten extent, a shared (reflinked)
 * block and anything else it cannot give a fixed place for.
 */
static int clo_ext_map(struct clo_device *lo, struct clo_extents *m,
		       struct inode *inode)
{
	u64 blocks = DIV_ROUND_UP_ULL(i_size_read(inode), 1ULL << m->blkbits);
	unsigned int cap = 0;
	u64 blk;
	int err;

	for (blk = 0; blk < blocks; blk++) {
		sector_t where = blk;

		err = bmap(inode, &where);
		if (!err && !where)
			err = -EINVAL;
		if (err) {
			pr_warn("%s: swap: %s: no fixed place for block %llu (a hole, an unwritten or shared extent, or no bmap)\n",
				lo->disk->disk_name, lo->file_name, blk);
			return err;
		}
		err = clo_ext_add(m, &cap, blk,
				  where << (m->blkbits - SECTOR_SHIFT));
		if (err)
			return err;
		if (!(blk & 1023)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	m->bytes = blocks << m->blkbits;
	return 0;
}

static void clo_ext_free(struct clo_extents *m)
{
	bioset_exit(&m->bs);
	kvfree(m->ext);
	kfree(m);
}

/* The swap extents a filesystem's hook added: we use our own map. */
static void clo_ext_drop_swap_extents(struct swap_info_struct *sis)
{
	struct rb_node *node;

	while ((node = rb_first(&sis->swap_extent_root))) {
		rb_erase(node, &sis->swap_extent_root);
		kfree(rb_entry(node, struct swap_extent, rb_node));
	}
}

/*
 * Call the filesystem's ->swap_activate as swapon(2) does: inode locked,
 * with a swap_info_struct of our own that tells it the file's device and
 * how many pages we use (the hooks stop there).  Called with the inode
 * lock held.
 *
 * Return: 0 (m->activated tells whether there was a hook), or -errno.
 */
static int clo_ext_activate(struct clo_device *lo, struct clo_extents *m,
			    struct file *file)
{
	struct inode *inode = file->f_mapping->host;
	struct swap_info_struct *sis;
	sector_t span;
	int ret;

	if (!file->f_mapping->a_ops->swap_activate)
		return 0;
	sis = kzalloc_obj(*sis, GFP_KERNEL);
	if (!sis)
		return -ENOMEM;
	sis->bdev = m->bdev;
	sis->max = min_t(u64, i_size_read(inode) >> PAGE_SHIFT, UINT_MAX);
	sis->swap_extent_root = RB_ROOT;

	ret = file->f_mapping->a_ops->swap_activate(sis, file, &span);
	clo_ext_drop_swap_extents(sis);
	if (ret < 0) {
		pr_warn("%s: swap: %s: the filesystem refused it as a swap file (%d)\n",
			lo->disk->disk_name, lo->file_name, ret);
		goto free_sis;
	}
	/* It returns how many extents it added: we keep none of them. */
	m->activated = true;
	ret = 0;
	/* Its blocks elsewhere, or I/O only through the filesystem. */
	if (sis->bdev != m->bdev || (sis->flags & CLO_SWP_FS_OPS)) {
		pr_warn("%s: swap: %s: the filesystem does swap I/O itself or on another device\n",
			lo->disk->disk_name, lo->file_name);
		ret = -EINVAL;
	}
free_sis:
	kfree(sis);
	return ret;
}

/* Undo clo_ext_activate(), after S_SWAPFILE is gone, as swapoff(2). */
static void clo_ext_deactivate(struct clo_extents *m, struct file *file)
{
	if (m->activated && file->f_mapping->a_ops->swap_deactivate)
		file->f_mapping->a_ops->swap_deactivate(file);
	m->activated = false;
}

/* Give the file back: writable, and no page cache older than our I/O. */
static void clo_ext_unpin(struct inode *inode)
{
	inode_lock(inode);
	inode->i_flags &= ~S_SWAPFILE;
	inode_unlock(inode);
	invalidate_mapping_pages(inode->i_mapping, 0, -1);
}

/* Called with lo->lock held and the device bound. */
static int clo_extents_start(struct clo_device *lo)
{
	struct file *file = lo->backing;
	struct inode *inode = file->f_mapping->host;
	struct request_queue *q = lo->disk->queue;
	struct block_device *bdev = inode->i_sb->s_bdev;
	struct clo_extents *m;
	unsigned int memflags, noio;
	int err;

	if (!S_ISREG(inode->i_mode) || !bdev || inode->i_blkbits < SECTOR_SHIFT) {
		pr_warn("%s: swap: %s is not a file on a block device filesystem\n",
			lo->disk->disk_name, lo->file_name);
		return -EINVAL;
	}
	/*
	 * I/O around the filesystem would see fscrypt's ciphertext, and
	 * write data that fs-verity's hashes no longer vouch for.
	 */
	if (IS_ENCRYPTED(inode) || IS_VERITY(inode)) {
		pr_warn("%s: swap: %s is %s: its blocks cannot be used directly\n",
			lo->disk->disk_name, lo->file_name,
			IS_ENCRYPTED(inode) ? "encrypted (fscrypt)" :
					      "protected by fs-verity");
		return -EINVAL;
	}
	/* Every I/O must be a whole number of the device's blocks. */
	if ((lo->offset & (bdev_logical_block_size(bdev) - 1)) ||
	    queue_logical_block_size(q) < bdev_logical_block_size(bdev)) {
		pr_warn("%s: swap: offset or block size not aligned to %u bytes\n",
			lo->disk->disk_name, bdev_logical_block_size(bdev));
		return -EINVAL;
	}

	m = kzalloc_obj(*m, GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->bdev = bdev;
	m->blkbits = inode->i_blkbits;
	err = bioset_init(&m->bs, CLO_EXT_BIO_POOL, 0, BIOSET_NEED_BVECS);
	if (err)
		goto free_map;

	/*
	 * No request may be on the file path while the file gets pinned,
	 * and with the queue frozen, reclaim must not write to us.
	 */
	memflags = clo_freeze_queue(q);
	noio = memalloc_noio_save();

	inode_lock(inode);
	if (IS_SWAPFILE(inode)) {
		inode_unlock(inode);
		err = -EBUSY;
		goto unfreeze;
	}
	/* Before S_SWAPFILE, as swapon(2): f2fs may move the blocks here. */
	err = clo_ext_activate(lo, m, file);
	if (err) {
		inode_unlock(inode);
		goto deactivate;
	}
	inode->i_flags |= S_SWAPFILE;
	/* What writes were under way must be in the map we take. */
	inode_dio_wait(inode);
	err = filemap_write_and_wait(inode->i_mapping);
	inode_unlock(inode);
	if (err)
		goto unpin;

	/* Outside the inode lock: XFS's bmap takes it. */
	err = clo_ext_map(lo, m, inode);
	if (err)
		goto unpin;
	lo->extents = m;
	memalloc_noio_restore(noio);
	clo_unfreeze_queue(q, memflags);
	return 0;

unpin:
	clo_ext_unpin(inode);
deactivate:
	clo_ext_deactivate(m, file);
unfreeze:
	memalloc_noio_restore(noio);
	clo_unfreeze_queue(q, memflags);
	bioset_exit(&m->bs);
free_map:
	kvfree(m->ext);
	kfree(m);
	return err;
}

/**
 * clo_extents_stop() - back to I/O through the file, which is unpinned
 * @lo: the device, still bound to its backing file
 *
 * Called with lo->lock held (sysfs), or by unbind once the sysfs group
 * is gone and before the backing file is let go; does nothing when the
 * map is off.  Waits for the requests that may be using the map.
 */
void clo_extents_stop(struct clo_device *lo)
{
	struct clo_extents *m = lo->extents;
	unsigned int memflags;

	if (!m)
		return;
	memflags = clo_freeze_queue(lo->disk->queue);
	lo->extents = NULL;
	clo_unfreeze_queue(lo->disk->queue, memflags);
	clo_ext_unpin(lo->backing->f_mapping->host);
	clo_ext_deactivate(m, lo->backing);
	clo_ext_free(m);
}

/**
 * clo_extents_set() - the sysfs "swap" attribute's write
 * @lo: the device, lo->lock held and bound
 * @on: map and pin, or unpin
 *
 * Return: 0, -EBUSY if the file is a swap file or pinned by another
 * device, -EINVAL if it has a hole or an unwritten or shared block, is
 * encrypted or under fs-verity, or its filesystem gives no block map,
 * or I/O could not be aligned to its device's blocks; other -errno from
 * the filesystem, its swap hook's among them.
 */
int clo_extents_set(struct clo_device *lo, bool on)
{
	if (on == !!lo->extents)
		return 0;
	if (!on) {
		clo_extents_stop(lo);
		return 0;
	}
	return clo_extents_start(lo);
}
