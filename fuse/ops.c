// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The FUSE side of cryptoloop-fuse: a root directory holding one file,
 * "data", whose bytes are the decrypted [offset, offset + size) of the
 * image. Requests are read or written whole (io.c) and en/decrypted in
 * place; the loop device above only ever sends
 * sector-aligned requests, other callers get read-modify-write.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

#define SECTOR LOOP_SECTOR_SIZE
/* the attributes never change behind the kernel's back */
#define ATTR_TIMEOUT 86400.0

static struct clf *clf_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* ------------------------------------------------ per-thread buffers */

static pthread_key_t buf_key;
static pthread_once_t buf_once = PTHREAD_ONCE_INIT;

/*
 * Two per thread: a write's data copied out of the request (TB_IO) is
 * the source of a read-modify-write, which merges in its own buffer
 * (TB_RMW). One buffer for both would be reallocated, or overwritten,
 * under the data it is merging.
 */
enum tbuf_slot { TB_IO, TB_RMW, TB_SLOTS };

struct tbuf {
	size_t size[TB_SLOTS];
	char *data[TB_SLOTS];
};

static void tbuf_free(void *p)
{
	struct tbuf *b = p;
	int i;

	/* they held plaintext */
	for (i = 0; i < TB_SLOTS; i++) {
		if (b->data[i])
			explicit_bzero(b->data[i], b->size[i]);
		free(b->data[i]);
	}
	free(b);
}

static void buf_key_init(void)
{
	pthread_key_create(&buf_key, tbuf_free);
}

/* A sector-aligned buffer of at least @size bytes for this thread. */
static char *thread_buf(enum tbuf_slot slot, size_t size)
{
	struct tbuf *b;

	pthread_once(&buf_once, buf_key_init);
	b = pthread_getspecific(buf_key);
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return NULL;
		pthread_setspecific(buf_key, b);
	}
	if (b->size[slot] < size) {
		void *p;

		if (posix_memalign(&p, 4096, size))
			return NULL;
		if (b->data[slot]) {
			explicit_bzero(b->data[slot], b->size[slot]);
			free(b->data[slot]);
		}
		b->data[slot] = p;
		b->size[slot] = size;
	}
	return b->data[slot];
}

/* ------------------------------------------------ image I/O */

/* Read and decrypt whole sectors [@pos, @pos + @len) of the device. */
static int read_sectors(struct clf *c, char *buf, uint64_t pos, size_t len)
{
	return clf_io(c, false, buf, pos, len);
}

/* Encrypt (in place: @buf is scratch afterwards) and write whole sectors. */
static int write_sectors(struct clf *c, char *buf, uint64_t pos, size_t len)
{
	return clf_io(c, true, buf, pos, len);
}

/* ------------------------------------------------ attributes */

static void fill_attr(struct clf *c, fuse_ino_t ino, struct stat *st)
{
	uint64_t size = atomic_load(&c->size);

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == CLF_ROOT_INO) {
		st->st_mode = S_IFDIR | 0700;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | (c->read_only ? 0400 : 0600);
		st->st_nlink = 1;
		st->st_size = (off_t)size;
		st->st_blocks = (blkcnt_t)(size / 512);
	}
	st->st_blksize = 4096;
}

static void clf_init(void *userdata, struct fuse_conn_info *conn)
{
	/* whole loop requests (up to 1 MiB) in one FUSE round trip */
	conn->max_write = CLF_MAX_IO;
	conn->max_readahead = CLF_MAX_IO;
	/* requests come from the loop driver, possibly several at once */
	conn->max_background = 64;
	conn->congestion_threshold = 48;
	conn->want &= ~(unsigned)(FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE |
				  FUSE_CAP_SPLICE_MOVE);
	if (conn->capable & FUSE_CAP_ASYNC_DIO)
		conn->want |= FUSE_CAP_ASYNC_DIO;
}

static void clf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != CLF_ROOT_INO || strcmp(name, CLF_FILE_NAME)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = CLF_FILE_INO;
	e.attr_timeout = ATTR_TIMEOUT;
	e.entry_timeout = ATTR_TIMEOUT;
	fill_attr(clf_of(req), CLF_FILE_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void clf_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	if (ino != CLF_ROOT_INO && ino != CLF_FILE_INO) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	/* the attributes are cached for a day: the kernel asks again only
	 * when forced to (statx AT_STATX_FORCE_SYNC, by "losetup -c") */
	if (ino == CLF_FILE_INO)
		clf_refresh_size(clf_of(req));
	fill_attr(clf_of(req), ino, &st);
	fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

/* The size is fixed; times and modes are accepted and ignored (writeback
 * caching and O_TRUNC to the same size must not fail). */
static void clf_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
			int to_set, struct fuse_file_info *fi)
{
	struct clf *c = clf_of(req);
	struct stat st;

	if ((to_set & FUSE_SET_ATTR_SIZE) &&
	    (ino != CLF_FILE_INO || (uint64_t)attr->st_size != atomic_load(&c->size))) {
		fuse_reply_err(req, EPERM);
		return;
	}
	fill_attr(c, ino, &st);
	fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

static void clf_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	static const struct { const char *name; fuse_ino_t ino; mode_t mode; } ents[] = {
		{ ".", CLF_ROOT_INO, S_IFDIR },
		{ "..", CLF_ROOT_INO, S_IFDIR },
		{ CLF_FILE_NAME, CLF_FILE_INO, S_IFREG },
	};
	char buf[512];
	size_t used = 0, i;

	if (ino != CLF_ROOT_INO) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	for (i = (size_t)off; i < sizeof(ents) / sizeof(ents[0]); i++) {
		struct stat st = { .st_ino = ents[i].ino, .st_mode = ents[i].mode };
		size_t n = fuse_add_direntry(req, buf + used, sizeof(buf) - used,
					     ents[i].name, &st, (off_t)(i + 1));

		if (used + n > size || used + n > sizeof(buf))
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
}

static void clf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct clf *c = clf_of(req);

	if (ino != CLF_FILE_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (c->read_only && (fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
		return;
	}
	/* no second page cache of plaintext below the loop device's own,
	 * and every write reaches us (and the image) when the loop device
	 * issues it */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	atomic_fetch_add(&c->opens, 1);
	atomic_store(&c->opened, true);
	if (fuse_reply_open(req, fi) != 0)
		atomic_fetch_sub(&c->opens, 1);
}

/* The loop device closed its file: the device was detached. */
static void clf_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct clf *c = clf_of(req);
	int left = atomic_fetch_sub(&c->opens, 1) - 1;

	fuse_reply_err(req, 0);
	if (left == 0)
		fuse_session_exit(c->se);
}

static void clf_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct clf *c = clf_of(req);
	uint64_t pos = (uint64_t)off, start, end, now = atomic_load(&c->size);
	char *buf;
	int rc;

	if (pos >= now || size == 0) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > now - pos)
		size = (size_t)(now - pos);
	/* widen to whole sectors: the cipher works on nothing smaller */
	start = pos & ~(uint64_t)(SECTOR - 1);
	end = (pos + size + SECTOR - 1) & ~(uint64_t)(SECTOR - 1);
	buf = thread_buf(TB_IO, (size_t)(end - start));
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	atomic_fetch_add(&c->busy, 1);
	rc = read_sectors(c, buf, start, (size_t)(end - start));
	atomic_fetch_sub(&c->busy, 1);
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	fuse_reply_buf(req, buf + (pos - start), size);
}

/* A write that does not cover whole sectors: merge with what is there. */
static int write_partial(struct clf *c, const char *src, size_t size, uint64_t pos)
{
	uint64_t start = pos & ~(uint64_t)(SECTOR - 1);
	uint64_t end = (pos + size + SECTOR - 1) & ~(uint64_t)(SECTOR - 1);
	size_t len = (size_t)(end - start);
	char *buf = thread_buf(TB_RMW, len);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	pthread_mutex_lock(&c->rmw_lock);
	/* only the first and last sectors hold bytes we do not overwrite */
	if (pos != start)
		rc = read_sectors(c, buf, start, SECTOR);
	if (rc == 0 && (pos + size) != end && (end - SECTOR != start || pos == start))
		rc = read_sectors(c, buf + len - SECTOR, end - SECTOR, SECTOR);
	if (rc == 0) {
		memcpy(buf + (pos - start), src, size);
		rc = write_sectors(c, buf, start, len);
	}
	pthread_mutex_unlock(&c->rmw_lock);
	return rc;
}

static void clf_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *bufv,
			  off_t off, struct fuse_file_info *fi)
{
	struct clf *c = clf_of(req);
	size_t size = fuse_buf_size(bufv);
	uint64_t pos = (uint64_t)off, now = atomic_load(&c->size);
	char *data;
	int rc;

	if (c->read_only) {
		fuse_reply_err(req, EROFS);
		return;
	}
	if (pos >= now && size) {
		fuse_reply_err(req, ENOSPC);
		return;
	}
	if (size > now - pos)
		size = (size_t)(now - pos);

	if (bufv->count == 1 && bufv->off == 0 && !(bufv->buf[0].flags & FUSE_BUF_IS_FD)) {
		/* the request's own buffer: we may encrypt in it */
		data = bufv->buf[0].mem;
	} else {
		struct fuse_bufvec dst = FUSE_BUFVEC_INIT(size);
		ssize_t got;

		data = thread_buf(TB_IO, size);
		if (!data) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		dst.buf[0].mem = data;
		got = fuse_buf_copy(&dst, bufv, 0);
		if (got < 0 || (size_t)got != size) {
			fuse_reply_err(req, got < 0 ? (int)-got : EIO);
			return;
		}
	}

	if (clf_refuse_swap_write(c->image, data, pos, size)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	atomic_fetch_add(&c->busy, 1);
	if ((pos | size) & (SECTOR - 1))
		rc = write_partial(c, data, size, pos);
	else
		rc = write_sectors(c, data, pos, size);
	atomic_fetch_sub(&c->busy, 1);
	if (rc)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_write(req, size);
}

/* The loop device's flush/FUA and fsync land here: make it durable. */
static void clf_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		      struct fuse_file_info *fi)
{
	struct clf *c = clf_of(req);
	int rc = datasync ? fdatasync(c->img_fd) : fsync(c->img_fd);

	fuse_reply_err(req, rc < 0 ? errno : 0);
}

static void clf_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

const struct fuse_lowlevel_ops clf_ops = {
	.init = clf_init,
	.lookup = clf_lookup,
	.getattr = clf_getattr,
	.setattr = clf_setattr,
	.readdir = clf_readdir,
	.open = clf_open,
	.release = clf_release,
	.read = clf_read,
	.write_buf = clf_write_buf,
	.flush = clf_flush,
	.fsync = clf_fsync,
};
