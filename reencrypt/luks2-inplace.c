// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --luks2 without --header: the LUKS2 header goes into the image itself,
 * in front of the data. A file grows by what the header needs and its
 * data moves up (convert.c moves it, last chunk first). The header is
 * made aside first, in a file next to the journal, and it is copied into
 * the image only after every sector has moved and the journal says so:
 * until then the start of the image still holds old data a resume needs.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <libcryptsetup.h>

#include "luks2.h"
#include "reencrypt.h"

static const uint8_t luks_magic[6] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };

uint64_t luks2_inplace_offset(uint64_t old_off)
{
	return old_off > LUKS2_HEADER_BYTES ? old_off : LUKS2_HEADER_BYTES;
}

bool luks2_has_magic(int fd)
{
	uint8_t buf[sizeof(luks_magic)];

	return pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
	       !memcmp(buf, luks_magic, sizeof(buf));
}

int luks2_inplace_grow(struct job *job)
{
	uint64_t want = job->new_off + job->data_len;
	struct stat st;
	int rc;

	if (fstat(job->img_fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size >= want)
		return 0;
	/* allocated, not only sized: a full disk shows here, not mid-move */
	rc = posix_fallocate(job->img_fd, st.st_size, (off_t)(want - (uint64_t)st.st_size));
	if (rc) {
		/* the data has not been touched: back to the size it had */
		if (ftruncate(job->img_fd, st.st_size) < 0)
			warn("%s: cannot shrink back to %lld bytes", job->image,
			     (long long)st.st_size);
		return -rc;
	}
	/* the new size durable before any sector is written past the old end */
	return fsync(job->img_fd) < 0 ? -errno : 0;
}

int luks2_inplace_finish(struct job *job)
{
	size_t len = LUKS2_HEADER_BYTES, done = 0;
	struct crypt_device *cd = NULL;
	uint8_t *buf;
	ssize_t n;
	int fd, rc = 0;

	fd = open(job->side_header, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	buf = malloc(len);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (done < len) {
		n = pread(fd, buf + done, len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -ENODATA;
			break;
		}
		done += (size_t)n;
	}
	close(fd);
	/* the header is what libcryptsetup wrote, byte for byte: the same
	 * bytes a "cryptsetup luksHeaderRestore" of the file would write */
	for (done = 0; !rc && done < len; done += (size_t)n) {
		n = pwrite(job->img_fd, buf + done, len - done, (off_t)done);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0)
			rc = n < 0 ? -errno : -EIO;
	}
	free(buf);
	if (!rc && fdatasync(job->img_fd) < 0)
		rc = -errno;
	if (rc) {
		warnx("%s: cannot write the LUKS2 header: %s", job->image, strerror(-rc));
		return rc;
	}
	/* libcryptsetup must read it back from the image before the copy goes */
	rc = crypt_init(&cd, job->image);
	if (!rc)
		rc = crypt_load(cd, CRYPT_LUKS2, NULL);
	if (!rc && crypt_get_data_offset(cd) * 512 != job->new_off)
		rc = -EBADMSG;
	crypt_free(cd);
	if (rc) {
		warnx("%s: the LUKS2 header written into the image does not read back: %s",
		      job->image, strerror(-rc));
		return rc;
	}
	if (unlink(job->side_header) < 0)
		return -errno;
	return sync_path(job->side_header, true);
}
