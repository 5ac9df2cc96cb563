// SPDX-License-Identifier: GPL-2.0-or-later
/* The range of the image that holds encrypted data, and the step size. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include "journal.h"
#include "reencrypt.h"

/*
 * Fill job->data_off and job->data_len from the old side's offset and
 * sizelimit. Returns 0; -ERANGE when no whole sector is left; -EINVAL
 * when the offset or the data's length is not a multiple of 512 (the old
 * tools ignored a partial last sector, so the data would not be what the
 * user thinks it is); -errno from fstat/ioctl. @total_size gets the
 * size of the file or device.
 */
int image_data_range(struct job *job, uint64_t *total_size)
{
	struct stat st;
	uint64_t size, len;

	if (fstat(job->img_fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(job->img_fd, BLKGETSIZE64, &size) < 0)
			return -errno;
	} else {
		size = (uint64_t)st.st_size;
	}
	*total_size = size;
	if (job->old.offset % LOOP_SECTOR_SIZE)
		return -EINVAL;
	if (size <= job->old.offset)
		return -ERANGE;
	len = size - job->old.offset;
	if (job->old.sizelimit && job->old.sizelimit < len)
		len = job->old.sizelimit;
	if (len < LOOP_SECTOR_SIZE)
		return -ERANGE;
	if (len % LOOP_SECTOR_SIZE)
		return -EINVAL;
	job->data_off = job->old.offset;
	job->data_len = len;
	return 0;
}

/*
 * 1/16 of the data, between 64 KiB and 64 MiB: large enough that the
 * two syncs (two device cache flushes) per step cost little, small enough
 * that progress moves and the journal's slots stay small (16 bytes of
 * fingerprints a sector, so 2 MiB for the largest chunk).
 */
uint32_t chunk_size_for(uint64_t data_len)
{
	uint64_t c = data_len / 16;

	c &= ~(uint64_t)(64 * 1024 - 1);
	if (c < 64 * 1024)
		c = 64 * 1024;
	if (c > JOURNAL_CHUNK_MAX)
		c = JOURNAL_CHUNK_MAX;
	return (uint32_t)c;
}
