// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cipher work of one request, spread over two cores.
 *
 * The loop driver sends a buffered device's requests one at a time, so
 * FUSE's worker threads alone would leave the second core idle during a
 * sequential stream. A big request is therefore cut in two: a helper
 * thread takes the second half while the calling thread does the first.
 * When the helper is already busy (requests really do arrive in
 * parallel, and the FUSE threads use the cores themselves) the caller
 * does the whole request instead of waiting.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "daemon.h"

/* Below this many sectors the hand-off costs more than it saves. */
#define SPLIT_MIN_SECTORS 64

struct clf_helper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool busy;		/* claimed by a caller (under lock) */
	bool has_job;
	bool done;
	bool stop;
	/* the job */
	bool encrypt;
	uint64_t sector;
	void *buf;
	size_t n;
	int rc;
	struct loop_xfer *xfer;
};

static int run(struct loop_xfer *x, bool encrypt, uint64_t sector, void *buf, size_t n)
{
	return encrypt ? loop_xfer_encrypt(x, sector, buf, buf, n)
		       : loop_xfer_decrypt(x, sector, buf, buf, n);
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
		h->rc = run(h->xfer, h->encrypt, h->sector, h->buf, h->n);
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

	if (!c->xfer)
		return 0;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	h->xfer = c->xfer;
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

int clf_crypt(struct clf *c, bool encrypt, uint64_t sector, void *buf, size_t n)
{
	struct clf_helper *h = c->helper;
	size_t first;
	int rc, hrc;

	if (!c->xfer || !n)
		return 0;
	if (!h || n < SPLIT_MIN_SECTORS)
		return run(c->xfer, encrypt, sector, buf, n);

	pthread_mutex_lock(&h->lock);
	if (h->busy) {
		pthread_mutex_unlock(&h->lock);
		return run(c->xfer, encrypt, sector, buf, n);
	}
	/* the helper gets the second half, keeping 8-sector lanes whole */
	first = (n / 2 + 7) & ~(size_t)7;
	if (first >= n)
		first = n / 2;
	h->busy = true;
	h->done = false;
	h->has_job = true;
	h->encrypt = encrypt;
	h->sector = sector + first;
	h->buf = (char *)buf + first * LOOP_SECTOR_SIZE;
	h->n = n - first;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);

	rc = run(c->xfer, encrypt, sector, buf, first);

	pthread_mutex_lock(&h->lock);
	while (!h->done)
		pthread_cond_wait(&h->cond, &h->lock);
	hrc = h->rc;
	h->busy = false;
	pthread_mutex_unlock(&h->lock);
	return rc ? rc : hrc;
}
