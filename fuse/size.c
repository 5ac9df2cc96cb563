// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How big the decrypted view is. Worked out at start, and again whenever
 * the kernel asks for the file's attributes with a forced sync, which is
 * what "losetup -c" does: the image may have grown or shrunk since.
 */
#include "config.h"

#include <errno.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "daemon.h"

int clf_view_size(int img_fd, uint64_t offset, uint64_t sizelimit, uint64_t *out)
{
	uint64_t size;
	struct stat st;

	if (fstat(img_fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(img_fd, BLKGETSIZE64, &size) < 0)
			return -errno;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		return -EINVAL;
	}
	if (size <= offset)
		return -ERANGE;
	size -= offset;
	if (sizelimit && sizelimit < size)
		size = sizelimit;
	/* the cipher works on whole sectors; a tail is ignored like loop does */
	size &= ~(uint64_t)(LOOP_SECTOR_SIZE - 1);
	if (!size)
		return -ERANGE;
	*out = size;
	return 0;
}

void clf_refresh_size(struct clf *c)
{
	uint64_t size;

	/* an image that lost every sector past the offset keeps the old
	 * size: reads past its end then fail, as they would on loop */
	if (clf_view_size(c->img_fd, c->offset, c->sizelimit, &size) == 0)
		atomic_store(&c->size, size);
}
