// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whether an image is a LUKS volume: the magic both LUKS1 and LUKS2 put
 * at the start of their (primary) header. Read here, without the dm
 * engine module, so that losetup can refuse to read a LUKS image as one
 * of the loop formats before it asks for a passphrase.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "private.h"
#include "engine-private.h"

/* "LUKS" 0xba 0xbe, the on-disk magic of LUKS1 and of LUKS2's first header */
static const unsigned char luks_magic[] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };

LIBLOOP_EXPORT int loop_engine_is_luks(const char *image, const char *header)
{
	unsigned char buf[sizeof(luks_magic)];
	const char *path = header ? header : image;
	ssize_t n;
	int fd;

	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	return n == (ssize_t)sizeof(buf) && !memcmp(buf, luks_magic, sizeof(buf));
}
