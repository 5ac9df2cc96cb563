// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Moving a request's sectors between the image and plaintext, on two
 * cores.
 *
 * Reads come from the mapped image (map.c) when it covers them: the
 * cipher reads the page cache itself. Otherwise, and for writes, each
 * range is done in cache-sized chunks: a chunk is read and then
 * decrypted (or encrypted and then written) while it is still in the
 * cache, instead of one pass over a whole megabyte for the copy and a
 * second one for the cipher.
 *
 * A big request that is the only one in progress is cut in two: a
 * helper thread does the second half (its copy and its cipher) while
 * the calling thread does the first, so one request at a time (dd, a
 * single reader) gets both cores. With several requests in progress the
 * other core is busy with them already, and a hand-off would only add a
 * wake-up and move the data between the cores' caches. When the helper
 * is busy, the caller does the whole range itself rather than wait.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon.h"

#define SECTOR LOOP_SECTOR_SIZE
/* Below this the hand-off costs more than it saves. */
#define SPLIT_MIN_BYTES	(64 * 1024)
/* Read-and-decrypt in pieces that stay in the L2 cache. */
#define CHUNK_BYTES	(128 * 1024)

struct clf_helper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool busy;		/* claimed by a caller (under lock) */
	bool has_job;
	bool done;
	bool stop;
	/* the job */
	bool write;
	char *buf;
	uint64_t pos;
	size_t len;
	int rc;
	struct clf *c;
};

static int pread_full(int fd, char *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, buf + done, len - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)	/* the image shrank under us */
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}

static int pwrite_full(int fd, const char *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pwrite(fd, buf + done, len - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}

/* One thread's share: whole sectors [pos, pos + len) of the device. */
static int io_range(struct clf *c, bool write, char *buf, uint64_t pos, size_t len)
{
	size_t off, n;
	int rc = 0;

	/* the cipher reads the page cache itself: no copy, no chunks */
	if (!write && clf_map_covers(c, pos, len))
		return clf_map_read(c, buf, pos, len);
	for (off = 0; off < len && rc == 0; off += n) {
		uint64_t sector = (pos + off) / SECTOR;
		char *p = buf + off;

		n = len - off < CHUNK_BYTES ? len - off : CHUNK_BYTES;
		if (!write) {
			rc = pread_full(c->img_fd, p, n, c->offset + pos + off);
			if (rc == 0 && c->crypt)
				rc = loop_crypt_decrypt(c->crypt, sector, p, p, n / SECTOR);
		} else {
			if (c->crypt)
				rc = loop_crypt_encrypt(c->crypt, sector, p, p, n / SECTOR);
			if (rc == 0)
				rc = pwrite_full(c->img_fd, p, n, c->offset + pos + off);
		}
	}
	return rc;
}

static void *helper_main(void *arg)
{
	struct clf_helper *h = arg;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (!h->has_job && !h->stop)
			pthread_cond_wait(&h->cond, &h->lock);
		if (h->stop)
			break;
		pthread_mutex_unlock(&h->lock);
		h->rc = io_range(h->c, h->write, h->buf, h->pos, h->len);
		pthread_mutex_lock(&h->lock);
		h->has_job = false;
		h->done = true;
		pthread_cond_broadcast(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int clf_helper_start(struct clf *c)
{
	struct clf_helper *h;
	int rc;

	/* passthrough has no cipher work to share (its reads and writes
	 * are copies, which one thread does at memory speed) */
	if (!c->crypt)
		return 0;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	h->c = c;
	rc = pthread_create(&h->thread, NULL, helper_main, h);
	if (rc) {
		free(h);
		return -rc;
	}
	c->helper = h;
	return 0;
}

void clf_helper_stop(struct clf *c)
{
	struct clf_helper *h = c->helper;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	free(h);
	c->helper = NULL;
}

int clf_io(struct clf *c, bool write, char *buf, uint64_t pos, size_t len)
{
	struct clf_helper *h = c->helper;
	size_t first;
	int rc, hrc;

	/* other requests in progress keep the other core busy already:
	 * handing half of this one over would only add a wake-up and move
	 * the data between the cores' caches */
	if (!h || len < SPLIT_MIN_BYTES || atomic_load(&c->busy) > 1)
		return io_range(c, write, buf, pos, len);

	pthread_mutex_lock(&h->lock);
	if (h->busy) {
		pthread_mutex_unlock(&h->lock);
		return io_range(c, write, buf, pos, len);
	}
	/* halves of whole 4 KiB pages (8 sectors: one AES-NI batch) */
	first = (len / 2 + 4095) & ~(size_t)4095;
	if (first >= len)
		first = (len / 2) & ~(size_t)(SECTOR - 1);
	h->busy = true;
	h->done = false;
	h->has_job = true;
	h->write = write;
	h->buf = buf + first;
	h->pos = pos + first;
	h->len = len - first;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);

	rc = io_range(c, write, buf, pos, first);

	pthread_mutex_lock(&h->lock);
	while (!h->done)
		pthread_cond_wait(&h->cond, &h->lock);
	hrc = h->rc;
	h->busy = false;
	pthread_mutex_unlock(&h->lock);
	return rc ? rc : hrc;
}
