// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The FUSE daemon's writes (fuse/ops.c) with the request's data not in
 * memory: libfuse hands write_buf a descriptor (as with splice), the data
 * is copied into a per-thread buffer, and a write that splits sectors
 * merges it with what the device holds. The merge must not happen in the
 * buffer that holds its own source data: reallocated, that buffer would
 * be freed under the copy; reused, the sectors read for the merge would
 * overwrite it.
 *
 * ops.c is linked alone: the device is plaintext in memory (clf_io here),
 * and the few libfuse calls that need a real request are ours.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../fuse/daemon.h"
#include "tap.h"

#define DEV_SIZE	(1u << 20)
#define SECTOR		512u

static unsigned char dev[DEV_SIZE], model[DEV_SIZE];
static struct clf clf;
static int replied_err, unaligned_io;
static size_t replied_size;

/* --- what ops.c needs from the rest of the daemon ------------------- */

int clf_io(struct clf *c, bool write, char *buf, uint64_t pos, size_t len)
{
	(void)c;
	if ((pos | len) % SECTOR || pos + len > DEV_SIZE) {
		unaligned_io++;
		return -EINVAL;
	}
	if (write) {
		memcpy(dev + pos, buf, len);
		/* encryption works in place: the buffer is scratch now */
		memset(buf, 0xA5, len);
	} else {
		memcpy(buf, dev + pos, len);
	}
	return 0;
}

void clf_refresh_size(struct clf *c)
{
	(void)c;
}

bool clf_refuse_swap_write(const char *image, const char *data, uint64_t pos, size_t size)
{
	(void)image, (void)data, (void)pos, (void)size;
	return false;
}

/* --- a request of our own: libfuse's would need a session ----------- */

void *fuse_req_userdata(fuse_req_t req)
{
	(void)req;
	return &clf;
}

int fuse_reply_err(fuse_req_t req, int err)
{
	(void)req;
	replied_err = err;
	return 0;
}

int fuse_reply_write(fuse_req_t req, size_t count)
{
	(void)req;
	replied_size = count;
	return 0;
}

/* write @size random bytes at @pos through write_buf, the data behind
 * a descriptor (@from_fd) or in memory; 1 when the device then matches */
static int write_at(int memfd, uint64_t pos, size_t size, int from_fd)
{
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(size);
	struct fuse_file_info fi = { 0 };
	unsigned char *data = malloc(size);
	size_t i;
	int same;

	if (!data)
		return 0;
	for (i = 0; i < size; i++)
		data[i] = (unsigned char)random();
	memcpy(model + pos, data, size);
	if (from_fd) {
		if (pwrite(memfd, data, size, 0) != (ssize_t)size) {
			free(data);
			return 0;
		}
		bv.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
		bv.buf[0].fd = memfd;
		bv.buf[0].pos = 0;
	} else {
		bv.buf[0].mem = data;
	}
	replied_err = -1;
	replied_size = 0;
	clf_ops.write_buf(NULL, CLF_FILE_INO, &bv, (off_t)pos, &fi);
	same = replied_size == size && !unaligned_io && !memcmp(dev, model, DEV_SIZE);
	/* each case on its own: the next starts from the model */
	memcpy(dev, model, DEV_SIZE);
	unaligned_io = 0;
	free(data);
	return same;
}

int main(void)
{
	/* head only, tail only, inside one sector, across many sectors;
	 * the big aligned write first grows the copy buffer, so that the
	 * small ones after it would fit in it unreallocated */
	static const struct { uint64_t pos; size_t size; } cases[] = {
		{ 0, 65536 }, { 5, 10 }, { 500, 20 }, { 1000, 3000 }, { 4095, 2 },
		{ 8191, 1 }, { 100000, 70000 }, { 512, 1024 }, { 300000, 200001 },
	};
	int memfd = memfd_create("test-fuse-rmw", MFD_CLOEXEC);
	size_t i;

	ok(memfd >= 0, "a memfd for the request's data");
	atomic_store(&clf.size, DEV_SIZE);
	clf.image = "test image";
	pthread_mutex_init(&clf.rmw_lock, NULL);
	for (i = 0; i < DEV_SIZE; i++)
		dev[i] = model[i] = (unsigned char)(i * 7 + 3);
	srandom(12);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(write_at(memfd, cases[i].pos, cases[i].size, 0),
		   "in memory: %zu bytes at %ju", cases[i].size, (uintmax_t)cases[i].pos);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(write_at(memfd, cases[i].pos, cases[i].size, 1),
		   "from a descriptor (copied): %zu bytes at %ju", cases[i].size,
		   (uintmax_t)cases[i].pos);
	ok(replied_err == -1, "no error replied");
	close(memfd);
	return tap_done();
}
