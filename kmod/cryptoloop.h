/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cryptoloop: encrypted loop block devices for kernels without the loop
 * transfer hooks.  Built and tested on 6.1, 6.12, 7.2 and 7.3; compat.h
 * holds what differs between them.
 *
 * Shared definitions of the module's parts: the control device, the block
 * devices and their I/O path, the loop ioctl ABI, the device lifecycle
 * and the sysfs attributes.  The sector crypto and the formats are
 * format/'s, which the legacy transfer module compiles too.
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
#include "clo_format.h"

#define CLO_NAME		"cryptoloop"

/*
 * Reserves that keep encrypted writes going when no memory can be had
 * (swap-out to us is what would free it).  CLO_BATCH_PAGES bounce pages
 * is the most one write batch takes and the depth of the per-device page
 * pool, so one writer can always finish a batch.  The crypto requests
 * have a reserve of their own (CLO_REQ_POOL_MIN, format/clo_format.h).
 */
#define CLO_BATCH_PAGES		64

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
	struct clo_crypt *crypt;	/* NULL: no encryption */
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

/*
 * Settings taken from a loop_info64 and validated (ioctl.c), before the
 * lifecycle (bind.c) applies them.  @crypt passes to the device when
 * applied; whatever is left in it the caller destroys.
 */
struct clo_params {
	loff_t offset;
	loff_t sizelimit;
	u32 flags;
	u64 init[2];
	u32 encrypt_type;
	char file_name[LO_NAME_SIZE];
	struct clo_crypt *crypt;
};

/* bind.c */
int clo_lock_bound(struct clo_device *lo);
int clo_configure(struct clo_device *lo, clo_mode_t mode,
		  struct block_device *bdev, struct file *file,
		  unsigned int block_size, struct clo_params *p);
int clo_clr_fd(struct clo_device *lo);
void clo_release_autoclear(struct clo_device *lo);
int clo_set_status(struct clo_device *lo, struct block_device *bdev,
		   struct clo_params *p);
int clo_get_status(struct clo_device *lo, struct loop_info64 *info);
int clo_set_capacity(struct clo_device *lo);
int clo_set_dio(struct clo_device *lo, bool on);
int clo_set_block_size(struct clo_device *lo, struct block_device *bdev,
		       unsigned int bsize);
int clo_multi_key(struct clo_device *lo, struct block_device *bdev,
		  const u8 *keys, bool v3);

/* extents.c */
int clo_extents_set(struct clo_device *lo, bool on);
void clo_extents_stop(struct clo_device *lo);
int clo_extents_rw(struct clo_device *lo, bool write, struct bio_vec *bvec,
		   unsigned int nr, loff_t pos);
int clo_extents_flush(struct clo_device *lo);

/* sysfs.c */
int clo_sysfs_add(struct clo_device *lo);
void clo_sysfs_remove(struct clo_device *lo);

#endif /* CRYPTOLOOP_H */
