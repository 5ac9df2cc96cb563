// SPDX-License-Identifier: GPL-2.0-only
/*
 * The block devices /dev/cryptoloopN: gendisk and blk-mq setup, and the
 * I/O path that moves data between requests and the backing file.
 *
 * blk-mq hands each request to a per-device unbound workqueue, so requests
 * are encrypted and written on several CPUs at once.  The worker does
 * synchronous I/O on the backing file through ->read_iter/->write_iter.
 * Reads land in the request's own pages and are decrypted there.  Writes
 * must never encrypt in place (the pages are page cache), so they are
 * encrypted into bounce pages, a batch at a time.
 */
#include <linux/blkdev.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "cryptoloop.h"

#define CLO_QUEUE_DEPTH		128
/*
 * Requests in work at once per device.  Enough to keep every CPU
 * encrypting and the backing store busy; bounded because each one holds
 * up to CLO_BATCH_PAGES bounce pages and the backing filesystem's bios
 * and I/O state while it runs, and under memory pressure (swap-out to us)
 * a hundred of them would take from the reserves what the one in front
 * needs to finish.
 */
#define CLO_MAX_ACTIVE		16

static int clo_major;

static const struct block_device_operations clo_fops;

bool clo_is_our_disk(struct gendisk *disk)
{
	return disk->fops == &clo_fops;
}

/*
 * Swap I/O goes around the backing file's page cache whenever direct I/O
 * works there, even when the device was not set up for direct I/O.  A
 * buffered write only moves the data into page cache of the backing file,
 * and that memory is freed by write-out and throttled against it, while
 * freeing memory is what the swap-out is for; under pressure the two wait
 * on each other.  A buffered swap-in needs a second page for every page
 * it brings in.  Swap writes carry REQ_SWAP; swap reads do not, but read
 * into pages of the swap cache.  Everything else keeps the mode the user
 * chose.
 */
static bool clo_rq_dio(struct clo_device *lo, struct request *rq)
{
	if (lo->use_dio)
		return true;
	if (!lo->can_dio)
		return false;
	if (rq->cmd_flags & REQ_SWAP)
		return true;
	return req_op(rq) == REQ_OP_READ && rq->bio &&
	       folio_test_swapcache(page_folio(req_bvec(rq).bv_page));
}

static int clo_backing_rw(struct clo_device *lo, struct request *rq,
			  bool write, struct bio_vec *bvec, unsigned int nr,
			  size_t bytes, loff_t pos)
{
	struct file *file = lo->backing;
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t ret;

	if (lo->extents)
		return clo_extents_rw(lo, write, bvec, nr, pos);
	iov_iter_bvec(&iter, write ? ITER_SOURCE : ITER_DEST, bvec, nr, bytes);
	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = pos;
	if (clo_rq_dio(lo, rq))
		kiocb.ki_flags |= IOCB_DIRECT;

	if (write) {
		file_start_write(file);
		ret = file->f_op->write_iter(&kiocb, &iter);
		file_end_write(file);
		/* A short write is a full disk or a failing one: no retry. */
		if (ret >= 0 && ret != bytes)
			ret = -EIO;
	} else {
		ret = file->f_op->read_iter(&kiocb, &iter);
		/* Beyond the end of a shrunk file reads as zeros, like loop. */
		if (ret >= 0) {
			iov_iter_zero(iov_iter_count(&iter), &iter);
			ret = 0;
		}
	}
	return ret < 0 ? ret : 0;
}

static loff_t clo_rq_pos(struct clo_device *lo, struct request *rq)
{
	return ((loff_t)blk_rq_pos(rq) << CLO_SECTOR_SHIFT) + lo->offset;
}

static u64 clo_iv_sector(struct clo_device *lo, loff_t pos)
{
	return (u64)(pos >> CLO_SECTOR_SHIFT) + lo->init[0];
}

/* Up to this many segments go on the stack, not through kmalloc. */
#define CLO_STACK_BVECS		8

/* Read or write a request's own pages, no transformation. */
static int clo_rq_rw_direct(struct clo_device *lo, struct request *rq,
			    bool write)
{
	struct bio_vec stack_bvec[CLO_STACK_BVECS];
	struct req_iterator it;
	struct bio_vec bv, *bvec;
	unsigned int nr = 0, i = 0;
	loff_t pos = clo_rq_pos(lo, rq);
	int ret;

	rq_for_each_bvec(bv, rq, it)
		nr++;
	if (nr <= CLO_STACK_BVECS)
		bvec = stack_bvec;
	else
		bvec = kmalloc_array(nr, sizeof(*bvec),
				     GFP_NOIO | __GFP_NOWARN);
	if (!bvec) {
		/* Short of memory: go one segment at a time instead. */
		rq_for_each_bvec(bv, rq, it) {
			ret = clo_backing_rw(lo, rq, write, &bv, 1, bv.bv_len,
					     pos);
			if (ret)
				return ret;
			pos += bv.bv_len;
		}
		return 0;
	}
	rq_for_each_bvec(bv, rq, it)
		bvec[i++] = bv;
	ret = clo_backing_rw(lo, rq, write, bvec, nr, blk_rq_bytes(rq), pos);
	if (bvec != stack_bvec)
		kfree(bvec);
	return ret;
}

static int clo_read(struct clo_device *lo, struct request *rq)
{
	struct clo_crypt *c = lo->crypt;
	struct skcipher_request *req;
	struct req_iterator it;
	struct bio_vec bv;
	u64 sector;
	int ret;

	ret = clo_rq_rw_direct(lo, rq, false);
	if (ret || !c)
		return ret;

	req = clo_crypt_req_get(c);
	sector = clo_iv_sector(lo, clo_rq_pos(lo, rq));
	rq_for_each_segment(bv, rq, it) {
		unsigned int off;

		/* The block layer keeps segments in logical blocks: never. */
		if (WARN_ON_ONCE(bv.bv_len & (CLO_SECTOR_SIZE - 1))) {
			ret = -EIO;
			goto out;
		}
		for (off = 0; off < bv.bv_len; off += CLO_SECTOR_SIZE) {
			ret = clo_crypt_decrypt(c, req, bv.bv_page,
						bv.bv_offset + off, bv.bv_page,
						bv.bv_offset + off, sector++);
			if (ret)
				goto out;
		}
	}
out:
	clo_crypt_req_put(c, req);
	return ret;
}

static void clo_put_pages(struct clo_device *lo, struct bio_vec *bvec,
			  unsigned int n)
{
	while (n--)
		mempool_free(bvec[n].bv_page, lo->page_pool);
}

/*
 * Take @n bounce pages.  First without waiting; if the pool is short,
 * give everything back and wait for the pages under a mutex, so only one
 * worker at a time can hold a partial set while it sleeps on the pool and
 * the pool (CLO_BATCH_PAGES deep) always completes that one set.
 */
static void clo_get_pages(struct clo_device *lo, struct bio_vec *bvec,
			  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		bvec[i].bv_page = mempool_alloc(lo->page_pool,
						GFP_NOWAIT | __GFP_NOWARN);
		if (!bvec[i].bv_page)
			break;
	}
	if (i == n)
		return;
	clo_put_pages(lo, bvec, i);

	mutex_lock(&lo->page_pool_lock);
	for (i = 0; i < n; i++)
		bvec[i].bv_page = mempool_alloc(lo->page_pool, GFP_NOIO);
	mutex_unlock(&lo->page_pool_lock);
}

static int clo_write_encrypted(struct clo_device *lo, struct request *rq)
{
	struct bio_vec bounce[CLO_BATCH_PAGES];
	struct clo_crypt *c = lo->crypt;
	struct skcipher_request *req;
	struct req_iterator it;
	struct bio_vec bv;
	unsigned int used = 0, segs = 0, have;
	loff_t pos = clo_rq_pos(lo, rq), batch_pos = pos;
	size_t batch_bytes = 0;
	u64 sector = clo_iv_sector(lo, pos);
	int ret = 0;

	/* A segment never crosses a page, and holds whole sectors. */
	BUILD_BUG_ON(PAGE_SIZE % CLO_SECTOR_SIZE);

	rq_for_each_segment(bv, rq, it)
		segs++;
	have = min_t(unsigned int, segs, CLO_BATCH_PAGES);
	clo_get_pages(lo, bounce, have);
	req = clo_crypt_req_get(c);

	rq_for_each_segment(bv, rq, it) {
		unsigned int off;

		if (used == have) {
			ret = clo_backing_rw(lo, rq, true, bounce, used,
					     batch_bytes, batch_pos);
			if (ret)
				goto out;
			batch_pos += batch_bytes;
			batch_bytes = 0;
			used = 0;
		}
		if (WARN_ON_ONCE(bv.bv_len & (CLO_SECTOR_SIZE - 1))) {
			ret = -EIO;
			goto out;
		}
		/* One bounce page per segment: a segment fits in a page. */
		for (off = 0; off < bv.bv_len; off += CLO_SECTOR_SIZE) {
			ret = clo_crypt_encrypt(c, req, bv.bv_page,
						bv.bv_offset + off,
						bounce[used].bv_page, off,
						sector++);
			if (ret)
				goto out;
		}
		bounce[used].bv_offset = 0;
		bounce[used].bv_len = bv.bv_len;
		batch_bytes += bv.bv_len;
		used++;
	}
	if (used)
		ret = clo_backing_rw(lo, rq, true, bounce, used, batch_bytes,
				     batch_pos);
out:
	clo_crypt_req_put(c, req);
	clo_put_pages(lo, bounce, have);
	return ret;
}

static int clo_write(struct clo_device *lo, struct request *rq)
{
	int ret;

	if (lo->crypt)
		ret = clo_write_encrypted(lo, rq);
	else
		ret = clo_rq_rw_direct(lo, rq, true);
	if (ret)
		return ret;
	/* FUA: this data must be on stable storage before we complete. */
	if (rq->cmd_flags & REQ_FUA) {
		loff_t pos = clo_rq_pos(lo, rq);

		if (lo->extents)
			return clo_extents_flush(lo);
		ret = vfs_fsync_range(lo->backing, pos,
				      pos + blk_rq_bytes(rq) - 1, 1);
	}
	return ret;
}

static int clo_discard(struct clo_device *lo, struct request *rq)
{
	struct file *file = lo->backing;
	int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	int ret;

	/* Punching the pinned file would change its block map. */
	if (lo->extents)
		return -EOPNOTSUPP;
	/*
	 * Plain sector crypto keeps no metadata, so a punched hole is as
	 * good as a discard: it reads back as garbage, which is what a
	 * discarded sector is allowed to be.  On a block device, see
	 * CLO_BDEV_DISCARD_MODE.
	 */
	if (S_ISBLK(file->f_mapping->host->i_mode))
		mode = CLO_BDEV_DISCARD_MODE;
	ret = file->f_op->fallocate(file, mode, clo_rq_pos(lo, rq),
				    blk_rq_bytes(rq));
	if (ret == -EINVAL || ret == -EOPNOTSUPP)
		return -EOPNOTSUPP;
	return ret;
}

/*
 * The worker runs as loop's does.  We may be the device that reclaim
 * writes to (swap, or dirty pages of a filesystem on us), so:
 * - memalloc_noio_save(): no allocation made for our I/O, in the backing
 *   filesystem, the page cache or a crypto driver included, may start
 *   I/O to free memory; it could be I/O queued behind this very request.
 * - PF_LOCAL_THROTTLE: writing to the backing file dirties its page cache
 *   while we clean ours; throttle only against the backing file's own
 *   device, not against dirty pages that are waiting for us.
 */
#ifdef PF_LOCAL_THROTTLE
#define CLO_WORKER_THROTTLE	PF_LOCAL_THROTTLE
#else
#define CLO_WORKER_THROTTLE	0
#endif

void clo_io_work(struct work_struct *work)
{
	struct clo_cmd *cmd = container_of(work, struct clo_cmd, work);
	struct request *rq = blk_mq_rq_from_pdu(cmd);
	struct clo_device *lo = rq->q->queuedata;
	unsigned int old_flags = current->flags;
	unsigned int noio = memalloc_noio_save();
	blk_status_t sts;
	int ret;

	current->flags |= CLO_WORKER_THROTTLE;
	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		ret = lo->extents ? clo_extents_flush(lo) :
				    vfs_fsync(lo->backing, 0);
		break;
	case REQ_OP_DISCARD:
		ret = clo_discard(lo, rq);
		break;
	case REQ_OP_READ:
		ret = clo_read(lo, rq);
		break;
	case REQ_OP_WRITE:
		ret = clo_write(lo, rq);
		break;
	default:
		ret = -EIO;
		break;
	}
	/*
	 * Report every failure, ENOSPC on a full backing filesystem included,
	 * as an I/O error, as loop does: the upper layer must not mistake our
	 * backing store's state for its own.
	 */
	if (!ret)
		sts = BLK_STS_OK;
	else if (ret == -EOPNOTSUPP)
		sts = BLK_STS_NOTSUPP;
	else
		sts = BLK_STS_IOERR;
	blk_mq_end_request(rq, sts);
	current_restore_flags(old_flags, CLO_WORKER_THROTTLE);
	memalloc_noio_restore(noio);
}

static blk_status_t clo_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct clo_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct clo_device *lo = rq->q->queuedata;

	blk_mq_start_request(rq);
	/*
	 * The state changes under lo->lock, which I/O never takes.  A stale
	 * BOUND is harmless: unbinding freezes the queue, so it waits for
	 * this request before it tears anything down.
	 */
	if (data_race(lo->state) != CLO_BOUND)
		return BLK_STS_IOERR;
	queue_work(lo->wq, &cmd->work);
	return BLK_STS_OK;
}

static int clo_init_request(struct blk_mq_tag_set *set, struct request *rq,
			    unsigned int hctx_idx, clo_numa_node_t numa_node)
{
	struct clo_cmd *cmd = blk_mq_rq_to_pdu(rq);

	INIT_WORK(&cmd->work, clo_io_work);
	return 0;
}

static const struct blk_mq_ops clo_mq_ops = {
	.queue_rq	= clo_queue_rq,
	.init_request	= clo_init_request,
};

void clo_release_disk(struct gendisk *disk)
{
	struct clo_device *lo = disk->private_data;

	if (disk_openers(disk) > 0)
		return;
	clo_release_autoclear(lo);
}

static void clo_free_disk(struct gendisk *disk)
{
	struct clo_device *lo = disk->private_data;

	destroy_workqueue(lo->wq);
	mutex_destroy(&lo->page_pool_lock);
	mutex_destroy(&lo->lock);
	kfree(lo);
}

static const struct block_device_operations clo_fops = {
	.owner		= THIS_MODULE,
	.release	= clo_release_compat,
	.ioctl		= clo_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= clo_compat_ioctl,
#endif
	.free_disk	= clo_free_disk,
};

/**
 * clo_device_alloc() - create and publish /dev/cryptoloop@number
 * @number: device index, already reserved by the caller
 *
 * Return: the device or an ERR_PTR.
 */
struct clo_device *clo_device_alloc(int number)
{
	struct clo_device *lo;
	struct gendisk *disk;
	int err;

	lo = kzalloc_obj(*lo, GFP_KERNEL);
	if (!lo)
		return ERR_PTR(-ENOMEM);
	lo->number = number;
	lo->state = CLO_UNBOUND;
	mutex_init(&lo->lock);
	mutex_init(&lo->page_pool_lock);

	/*
	 * WQ_MEM_RECLAIM: writeback to this device may be what frees memory,
	 * so the worker must run even when no new kworker can be forked.
	 */
	lo->wq = alloc_workqueue(CLO_NAME "%d", WQ_UNBOUND | WQ_MEM_RECLAIM,
				 CLO_MAX_ACTIVE, number);
	if (!lo->wq) {
		err = -ENOMEM;
		goto free_lo;
	}

	lo->tag_set.ops = &clo_mq_ops;
	lo->tag_set.nr_hw_queues = 1;
	lo->tag_set.queue_depth = CLO_QUEUE_DEPTH;
	lo->tag_set.numa_node = NUMA_NO_NODE;
	lo->tag_set.cmd_size = sizeof(struct clo_cmd);
	/*
	 * No I/O scheduler by default: the backing store has its own, and an
	 * elevator here only adds locking to every request (with mq-deadline
	 * random 4 KiB reads measured 0.77x dm-crypt in tools/bench-vm,
	 * without it 0.99x).
	 */
	lo->tag_set.flags = CLO_MQ_F_MERGE | BLK_MQ_F_STACKING |
			    BLK_MQ_F_NO_SCHED_BY_DEFAULT;
	lo->tag_set.driver_data = lo;
	err = blk_mq_alloc_tag_set(&lo->tag_set);
	if (err)
		goto destroy_wq;

	disk = clo_mq_alloc_disk(&lo->tag_set, lo);
	if (IS_ERR(disk)) {
		err = PTR_ERR(disk);
		goto free_tag_set;
	}
	lo->disk = disk;
	/* Partitions only when LO_FLAGS_PARTSCAN asks for them. */
	set_bit(GD_SUPPRESS_PART_SCAN, &disk->state);
	disk->major = clo_major;
	disk->first_minor = number;
	disk->minors = 1;
	disk->fops = &clo_fops;
	disk->private_data = lo;
	disk->events = DISK_EVENT_MEDIA_CHANGE;
	disk->event_flags = DISK_EVENT_FLAG_UEVENT;
	snprintf(disk->disk_name, sizeof(disk->disk_name), CLO_NAME "%d",
		 number);
	set_capacity(disk, 0);

	err = add_disk(disk);
	if (err)
		goto put_disk;
	return lo;

put_disk:
	/* Before add_disk() succeeds, put_disk() skips clo_free_disk(). */
	put_disk(disk);
free_tag_set:
	blk_mq_free_tag_set(&lo->tag_set);
destroy_wq:
	destroy_workqueue(lo->wq);
free_lo:
	mutex_destroy(&lo->page_pool_lock);
	mutex_destroy(&lo->lock);
	kfree(lo);
	return ERR_PTR(err);
}

/* Tear down an unbound device; the last put_disk() frees @lo. */
void clo_device_free(struct clo_device *lo)
{
	del_gendisk(lo->disk);
	blk_mq_free_tag_set(&lo->tag_set);
	put_disk(lo->disk);
}

int clo_major_register(void)
{
	clo_major = register_blkdev(0, CLO_NAME);
	return clo_major < 0 ? clo_major : 0;
}

void clo_major_unregister(void)
{
	unregister_blkdev(clo_major, CLO_NAME);
}
