// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The key file on a key device is whatever the stick holds: a symbolic
 * link out of it, a FIFO whose open() blocks the boot for ever, a device
 * node, a huge file. Only a regular file under the mount is read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "keyfile.h"

static const char *file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFDIR: return "a directory";
	case S_IFSOCK: return "a socket";
	default: return "a special file";
	}
}

static int open_beneath(const char *dir, const char *name, char *why, size_t size)
{
	/* O_NONBLOCK: a FIFO opens at once, and is then refused */
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	int dfd, fd, e;

	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		e = errno;
		snprintf(why, size, "cannot open the key device's mount %s: %s", dir,
			 strerror(e));
		return -e;
	}
	/* RESOLVE_BENEATH takes a path relative to the mount */
	while (*name == '/')
		name++;
	fd = (int)syscall(SYS_openat2, dfd, *name ? name : ".", &how, sizeof(how));
	e = errno;
	close(dfd);
	if (fd >= 0)
		return fd;
	if (e == ELOOP)
		snprintf(why, size, "a symbolic link on the way, refused (it could lead off "
			 "the key device)");
	else if (e == EXDEV)
		snprintf(why, size, "leads off the key device, refused");
	else if (e == ENOSYS)
		snprintf(why, size, "cannot be opened safely: the kernel lacks openat2() "
			 "(Linux 5.6)");
	else
		snprintf(why, size, "%s", strerror(e));
	return -e;
}

int keyfile_open(const char *dir, const char *name, char *why, size_t size)
{
	struct stat st;
	int fd = open_beneath(dir, name, why, size), e;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		e = errno;
		snprintf(why, size, "%s", strerror(e));
		goto refuse;
	}
	if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		snprintf(why, size, "%s, not a regular file: refused", file_type(st.st_mode));
		goto refuse;
	}
	if ((unsigned long long)st.st_size > KEYFILE_MAX_BYTES) {
		e = EFBIG;
		snprintf(why, size, "too large (%lld bytes; a key file has at most %u)",
			 (long long)st.st_size, KEYFILE_MAX_BYTES);
		goto refuse;
	}
	/* the readers (and gpg, which gets it as its standard input) block */
	if (fcntl(fd, F_SETFL, 0) < 0) {
		e = errno;
		snprintf(why, size, "%s", strerror(e));
		goto refuse;
	}
	return fd;
refuse:
	close(fd);
	return -e;
}
