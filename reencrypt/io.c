// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io.c - whole reads and writes at an offset, for the image, the journal
 * and the flusher alike: a short transfer is retried, never taken as done.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "reencrypt.h"

/* exactly one of @in (read into) and @out (write from) is set */
static int transfer_all(int fd, uint8_t *in, const uint8_t *out, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = out ? pwrite(fd, out, len, (off_t)off) : pread(fd, in, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return out ? -EIO : -ENODATA;
		if (out)
			out += n;
		else
			in += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	return transfer_all(fd, buf, NULL, len, off);
}

int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	return transfer_all(fd, NULL, buf, len, off);
}
