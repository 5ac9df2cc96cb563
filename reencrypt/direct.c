// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * direct.c - the image's new ciphertext goes to the device around the page
 * cache (O_DIRECT) where the file system and the alignment allow it, and
 * through the page cache otherwise.
 *
 * Why: a buffered write copies the chunk into the page cache, dirties each
 * page and leaves the write-back to the fdatasync(2) that follows, which
 * walks those pages again; that is about a third of the CPU time of a
 * conversion. A direct write hands the buffer to the device once. It does
 * not change what is durable when: the fdatasync after it still flushes
 * the device's cache, and the ordering of convert.c is untouched.
 *
 * Coherence: the kernel writes back and drops the cached pages of a range
 * before a direct write to it, so the buffered reads of later chunks, a
 * buffered fallback write and --verify's read-back all see the new data.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>

#include "reencrypt.h"

/*
 * The alignment asked of a direct write's buffer, offset and length: 4096
 * covers every logical block size Linux supports for O_DIRECT on disks in
 * use (512 and 4096). Anything less aligned is written buffered.
 */
#define DIRECT_ALIGN 4096u

int image_open_direct(const char *path, int fd)
{
	struct stat a, b;
	int dfd;

	/* by the path, not /proc/self/fd: the same name the user gave */
	dfd = open(path, O_WRONLY | O_CLOEXEC | O_DIRECT);
	if (dfd < 0)
		return -1;
	/* the same file, not one renamed into its place meanwhile */
	if (fstat(fd, &a) < 0 || fstat(dfd, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino || a.st_rdev != b.st_rdev) {
		close(dfd);
		return -1;
	}
	return dfd;
}

int image_pwrite(int fd, int dfd, const void *buf, size_t len, uint64_t off)
{
	int rc;

	if (dfd >= 0 && !((uintptr_t)buf % DIRECT_ALIGN) && !(len % DIRECT_ALIGN) &&
	    !(off % DIRECT_ALIGN)) {
		rc = pwrite_all(dfd, buf, len, off);
		/*
		 * EINVAL: the file system or the device wants another
		 * alignment (or no direct I/O at all for this range). The same
		 * bytes again, buffered: a part the direct write did put there
		 * is overwritten with itself.
		 */
		if (rc != -EINVAL)
			return rc;
	}
	return pwrite_all(fd, buf, len, off);
}
