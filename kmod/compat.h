/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The block layer APIs that changed between 6.1 and the newest kernel we
 * build for, behind one set of names.
 *
 * Each CLO_HAVE_* comes from a probe of the kernel's own headers in Kbuild,
 * not from LINUX_VERSION_CODE: distributions backport these changes, and
 * the headers say what the kernel really has.  What the shared format
 * code needs (from 5.10 on) is in format/clo_format.h.
 */
#ifndef CRYPTOLOOP_COMPAT_H
#define CRYPTOLOOP_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/falloc.h>
#include <linux/slab.h>

/*
 * 6.5 replaced fmode_t by blk_mode_t in the block device operations and
 * dropped ->release()'s mode argument.
 */
#ifdef CLO_HAVE_BLK_MODE_T
#define clo_mode_t		blk_mode_t
#define CLO_MODE_WRITE		BLK_OPEN_WRITE
#define CLO_MODE_EXCL		BLK_OPEN_EXCL
#else
#define clo_mode_t		fmode_t
#define CLO_MODE_WRITE		FMODE_WRITE
#define CLO_MODE_EXCL		FMODE_EXCL
#endif

/*
 * 7.3 dropped SWP_FS_OPS with swap I/O through a filesystem's own
 * operations: only a swap file on another device is left to refuse.
 */
#ifdef CLO_HAVE_SWP_FS_OPS
#define CLO_SWP_FS_OPS		SWP_FS_OPS
#else
#define CLO_SWP_FS_OPS		0
#endif

/* 6.5 dropped ->release()'s mode argument, which we never needed. */
void clo_release_disk(struct gendisk *disk);
#ifdef CLO_HAVE_RELEASE_DISK_ONLY
#define clo_release_compat	clo_release_disk
#else
static inline void clo_release_compat(struct gendisk *disk, fmode_t mode)
{
	clo_release_disk(disk);
}
#endif

/* Later kernels dropped the events argument of a forced media change. */
static inline void clo_force_media_change(struct gendisk *disk)
{
#ifdef CLO_HAVE_MEDIA_CHANGE_DISK_ONLY
	disk_force_media_change(disk);
#else
	disk_force_media_change(disk, DISK_EVENT_MEDIA_CHANGE);
#endif
}

/* 6.5 added holder operations to exclusive claims; we need none. */
static inline int clo_prepare_to_claim(struct block_device *bdev,
				       void *holder)
{
#ifdef CLO_HAVE_HOLDER_OPS
	return bd_prepare_to_claim(bdev, holder, NULL);
#else
	return bd_prepare_to_claim(bdev, holder);
#endif
}

/* 6.9: blk_mq_alloc_disk() takes the initial queue limits (NULL: defaults). */
static inline struct gendisk *clo_mq_alloc_disk(struct blk_mq_tag_set *set,
						void *queuedata)
{
#ifdef CLO_HAVE_ALLOC_DISK_LIMITS
	return blk_mq_alloc_disk(set, NULL, queuedata);
#else
	return blk_mq_alloc_disk(set, queuedata);
#endif
}

/* blk_mq_ops.init_request()'s NUMA node became signed. */
#ifdef CLO_HAVE_INIT_REQUEST_INT_NODE
#define clo_numa_node_t		int
#else
#define clo_numa_node_t		unsigned int
#endif

/*
 * A discard on a block device under us.  Up to 6.11 a punch with
 * NO_HIDE_STALE was a real discard there (stale data is only our own
 * ciphertext).  6.12 dropped that flag in the series that added
 * FALLOC_FL_MODE_MASK, which is what we probe for; since then a plain
 * punch on a block device is a zero-out without fallback, so discard is
 * offered as far as the device can zero, as loop does.
 */
#ifdef CLO_HAVE_FALLOC_MODE_MASK
#define CLO_BDEV_DISCARD_MODE	(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)

static inline unsigned int clo_bdev_discard_sectors(struct block_device *bdev)
{
	return bdev_write_zeroes_sectors(bdev);
}
#else
#define CLO_BDEV_DISCARD_MODE	(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE | \
				 FALLOC_FL_NO_HIDE_STALE)

static inline unsigned int clo_bdev_discard_sectors(struct block_device *bdev)
{
	return bdev_max_discard_sectors(bdev);
}
#endif

/* 6.14 made merging the default and removed the flag that asked for it. */
#ifdef CLO_HAVE_MQ_F_SHOULD_MERGE
#define CLO_MQ_F_MERGE		BLK_MQ_F_SHOULD_MERGE
#else
#define CLO_MQ_F_MERGE		0
#endif

/*
 * 6.14: freezing returns the task's saved memalloc flags, which unfreezing
 * must be given back.
 */
static inline unsigned int clo_freeze_queue(struct request_queue *q)
{
#ifdef CLO_HAVE_FREEZE_MEMFLAGS
	return blk_mq_freeze_queue(q);
#else
	blk_mq_freeze_queue(q);
	return 0;
#endif
}

static inline void clo_unfreeze_queue(struct request_queue *q,
				      unsigned int memflags)
{
#ifdef CLO_HAVE_FREEZE_MEMFLAGS
	blk_mq_unfreeze_queue(q, memflags);
#else
	blk_mq_unfreeze_queue(q);
#endif
}

/*
 * Queue limits.  Since 6.11 they change only as a whole: a copy is taken
 * with queue_limits_start_update() (which locks them), edited, and
 * validated and installed by queue_limits_commit_update(); the old
 * blk_queue_*() setters that wrote into the live queue are gone.  The
 * helpers below edit @lim on such kernels and the queue itself on older
 * ones, where start and commit do nothing.  Between start and commit the
 * caller may freeze the queue, never the other way round.
 */
static inline void clo_limits_start(struct request_queue *q,
				    struct queue_limits *lim)
{
#ifdef CLO_HAVE_QUEUE_FEATURES
	*lim = queue_limits_start_update(q);
#else
	*lim = q->limits;
#endif
}

static inline int clo_limits_commit(struct request_queue *q,
				    struct queue_limits *lim)
{
#ifdef CLO_HAVE_QUEUE_FEATURES
	return queue_limits_commit_update(q, lim);
#else
	return 0;
#endif
}

static inline void clo_limits_block_size(struct request_queue *q,
					 struct queue_limits *lim,
					 unsigned int bsize)
{
#ifdef CLO_HAVE_QUEUE_FEATURES
	lim->logical_block_size = bsize;
	lim->physical_block_size = bsize;
	lim->io_min = bsize;
#else
	blk_queue_logical_block_size(q, bsize);
	blk_queue_physical_block_size(q, bsize);
	blk_queue_io_min(q, bsize);
#endif
}

/* A volatile write cache with FUA, or none. */
static inline void clo_limits_write_cache(struct request_queue *q,
					  struct queue_limits *lim, bool wc)
{
#ifdef CLO_HAVE_QUEUE_FEATURES
	if (wc)
		lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
	else
		lim->features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA);
#else
	blk_queue_write_cache(q, wc, wc);
#endif
}

/*
 * A block device under us may offer discard (or, from 6.12, write zeroes)
 * with no discard granularity of its own.  From 6.10 blk_validate_limits()
 * raises a zero granularity to the physical block size; before that a zero
 * is kept, and every discard on our device fails with "discard_granularity
 * is 0" (swapon's, mkfs's), so it is raised here to the sector.
 */
static inline void clo_limits_discard(struct request_queue *q,
				      struct queue_limits *lim,
				      unsigned int max_sectors,
				      unsigned int granularity)
{
	if (max_sectors && !granularity)
		granularity = SECTOR_SIZE;
#ifdef CLO_HAVE_QUEUE_FEATURES
	lim->max_hw_discard_sectors = max_sectors;
#else
	blk_queue_max_discard_sectors(q, max_sectors);
	lim = &q->limits;
#endif
	lim->discard_granularity = granularity;
}

#endif /* CRYPTOLOOP_COMPAT_H */
