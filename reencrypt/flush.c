// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Write a chunk, make the image durable, or both in turn, while the
 * caller reads and encrypts the next chunk: the write and the
 * fdatasync(2) of the image run in a thread of their own. The caller
 * starts a write only after the journal describes the chunk, and counts
 * a chunk durable only after an fdatasync that started after the chunk's
 * write returned, so "durable" means what fdatasync says.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reencrypt.h"

static void *flush_thread(void *arg)
{
	struct flusher *f = arg;

	if (f->buf) {
		f->rc = image_pwrite(f->fd, f->dfd, f->buf, f->len, f->off);
		f->write_failed = f->rc != 0;
		if (f->rc)
			return NULL;
	}
	if (f->sync)
		f->rc = fdatasync(f->fd) < 0 ? -errno : 0;
	return NULL;
}

void flush_start_write(struct flusher *f, int fd, int dfd, const void *buf, size_t len,
		       uint64_t off)
{
	flush_start(f, fd, dfd, buf, len, off, true);
}

void flush_start(struct flusher *f, int fd, int dfd, const void *buf, size_t len,
		 uint64_t off, bool sync)
{
	f->fd = fd;
	f->dfd = dfd;
	f->sync = sync;
	f->rc = 0;
	f->write_failed = false;
	f->buf = buf;
	f->len = len;
	f->off = off;
	f->running = true;
	f->threaded = pthread_create(&f->tid, NULL, flush_thread, f) == 0;
	/* no thread: the same sync, only without the overlap */
	if (!f->threaded)
		flush_thread(f);
}

int flush_wait(struct flusher *f)
{
	if (!f->running)
		return 0;
	if (f->threaded)
		pthread_join(f->tid, NULL);
	f->running = false;
	return f->rc;
}

/* A new or renamed file is durable only once its directory is: with @dir,
 * fsync the directory that holds @path, else @path itself. */
int sync_path(const char *path, bool dir)
{
	char *copy = strdup(path);
	int fd, rc = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dir ? dirname(copy) : copy, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	return rc;
}
