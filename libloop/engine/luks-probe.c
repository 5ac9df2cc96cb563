// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whether an image is a LUKS volume: the magic both LUKS1 and LUKS2 put
 * at the start of their (primary) header. Read here, without the dm
 * engine module, so that losetup can refuse to read a LUKS image as one
 * of the loop formats before it asks for a passphrase. And the one list
 * of the names that ask for a LUKS volume, which losetup, loop_attach()
 * and the dm engine all read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/private.h"
#include "engine/engine-private.h"

/* in version order: index 0 takes either version */
static const struct loop_cipher_info luks_names[] = {
	{ "luks", "a LUKS1 or LUKS2 volume: its header names the cipher (dm engine)" },
	{ "luks1", "a LUKS1 volume only" },
	{ "luks2", "a LUKS2 volume only" },
};

LIBLOOP_EXPORT int loop_luks_names(const struct loop_cipher_info **list)
{
	*list = luks_names;
	return (int)(sizeof(luks_names) / sizeof(luks_names[0]));
}

LIBLOOP_EXPORT int loop_luks_version(const char *name)
{
	int i;

	for (i = 0; name && i < (int)(sizeof(luks_names) / sizeof(luks_names[0])); i++)
		if (!strcasecmp(name, luks_names[i].name))
			return i;
	return -EINVAL;
}

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
