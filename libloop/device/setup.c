// SPDX-License-Identifier: LGPL-2.1-or-later
/* Attaching, detaching and reconfiguring a device. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/private.h"

#define BUSY_TRIES	64
#define BUSY_DELAY_US	200000
#define AGAIN_DELAY_US	250000
#define AGAIN_TRIES	64
#define NODE_TRIES	16
#define NODE_DELAY_US	25000

static void fill_info(struct loop_info64 *info, const struct loopdev_config *cfg,
		      const char *name, uint32_t lo_flags)
{
	memset(info, 0, sizeof(*info));
	info->lo_offset = cfg->offset;
	info->lo_sizelimit = cfg->sizelimit;
	info->lo_flags = lo_flags;
	if (name)
		strncpy((char *)info->lo_file_name, name, LO_NAME_SIZE - 1);
	info->lo_encrypt_type = cfg->encrypt_type;
	if (cfg->crypt_name)
		strncpy((char *)info->lo_crypt_name, cfg->crypt_name, LO_NAME_SIZE - 1);
	if (cfg->key && cfg->key_size) {
		uint32_t n = cfg->key_size < LO_KEY_SIZE ? cfg->key_size : LO_KEY_SIZE;

		memcpy(info->lo_encrypt_key, cfg->key, n);
		info->lo_encrypt_key_size = n;
	}
	info->lo_init[0] = cfg->init[0];
	info->lo_init[1] = cfg->init[1];
}

/*
 * Open the backing file, falling back to read-only when the file or its
 * filesystem refuses writes, as losetup always has. Updates *lo_flags.
 */
static int open_backing(const struct loopdev_config *cfg, const char *path,
			uint32_t *lo_flags)
{
	int flags = O_CLOEXEC | ((*lo_flags & LO_FLAGS_DIRECT_IO) ? O_DIRECT : 0);
	int fd;

	if (cfg->backing_fd >= 0) {
		fd = fcntl(cfg->backing_fd, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	if (*lo_flags & LO_FLAGS_READ_ONLY)
		fd = open(path, O_RDONLY | flags);
	else {
		fd = open(path, O_RDWR | flags);
		if (fd < 0 && (errno == EROFS || errno == EACCES)) {
			fd = open(path, O_RDONLY | flags);
			if (fd >= 0)
				*lo_flags |= LO_FLAGS_READ_ONLY;
		}
	}
	return fd < 0 ? -errno : fd;
}

/*
 * Open the device node. A node just handed out by the control device may
 * not exist or be accessible until udev has processed it; wait a little.
 */
static int open_device(struct loopdev *ld, int rw)
{
	int tries = 0, fd;

	for (;;) {
		fd = loopdev_get_fd(ld, rw);
		if (fd >= 0 || !ld->from_control || tries++ >= NODE_TRIES)
			return fd;
		if (fd != -EACCES && fd != -ENOENT)
			return fd;
		loop_usleep(NODE_DELAY_US);
	}
}

static int ioctl_again(int fd, unsigned long req, unsigned long arg)
{
	int tries = 0;

	while (ioctl(fd, req, arg) < 0) {
		if (errno != EAGAIN || tries++ >= AGAIN_TRIES)
			return -errno;
		loop_usleep(AGAIN_DELAY_US);
	}
	return 0;
}

/*
 * With an offset or a sizelimit, old kernels kept the old capacity until
 * the device was reopened; make the size right before anyone mounts it.
 */
static int sync_capacity(int dev_fd, int file_fd, const struct loopdev_config *cfg)
{
	uint64_t expected, size;
	struct stat st;

	if (!cfg->offset && !cfg->sizelimit)
		return 0;
	if (fstat(file_fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(file_fd, BLKGETSIZE64, &expected) < 0)
			return -errno;
	} else {
		expected = (uint64_t)st.st_size;
	}
	if (expected == 0 || expected <= cfg->offset)
		return 0;
	expected -= cfg->offset;
	if (cfg->sizelimit && cfg->sizelimit < expected)
		expected = cfg->sizelimit;
	expected &= ~(uint64_t)511;
	if (ioctl(dev_fd, BLKGETSIZE64, &size) < 0)
		return -errno;
	if (size == expected)
		return 0;
	if (ioctl(dev_fd, LOOP_SET_CAPACITY, 0) < 0)
		return (errno == ENOTTY || errno == EINVAL) ? -ERANGE : -errno;
	if (ioctl(dev_fd, BLKGETSIZE64, &size) < 0)
		return -errno;
	return size == expected ? 0 : -ERANGE;
}

LIBLOOP_EXPORT int loopdev_attach(struct loopdev *ld, const struct loopdev_config *cfg,
				  uint32_t *lo_flags_out)
{
	struct loop_config lc;
	uint32_t lo_flags = cfg->lo_flags;
	char *canon = NULL;
	const char *name = cfg->file_name;
	int file_fd, dev_fd, rc;

	if (!ld->path[0] || (!cfg->backing_file && cfg->backing_fd < 0))
		return -EINVAL;
	if (cfg->backing_fd < 0) {
		/* a missing file fails at open(), with the name the user gave */
		canon = realpath(cfg->backing_file, NULL);
		if (!canon)
			canon = strdup(cfg->backing_file);
		if (!canon)
			return -ENOMEM;
		if (!name || !*name)
			name = canon;
	}
	file_fd = open_backing(cfg, canon, &lo_flags);
	if (file_fd < 0) {
		free(canon);
		return file_fd;
	}
	dev_fd = open_device(ld, !(lo_flags & LO_FLAGS_READ_ONLY));
	if (dev_fd < 0) {
		rc = dev_fd;
		goto close_file;
	}

	memset(&lc, 0, sizeof(lc));
	lc.fd = (uint32_t)file_fd;
	lc.block_size = cfg->block_size;
	fill_info(&lc.info, cfg, name, lo_flags);

	if (ioctl(dev_fd, LOOP_CONFIGURE, &lc) == 0) {
		DBG(SETUP, ld->path, "LOOP_CONFIGURE ok");
	} else if (errno != EINVAL && errno != ENOTTY && errno != ENOSYS) {
		rc = -errno;
		DBG(SETUP, ld->path, "LOOP_CONFIGURE: %s", strerror(errno));
		goto clear_device;
	} else {
		/* kernels before 5.8: two steps */
		DBG(SETUP, ld->path, "LOOP_CONFIGURE unsupported, LOOP_SET_FD");
		if (ioctl(dev_fd, LOOP_SET_FD, file_fd) < 0) {
			rc = -errno;
			goto clear_device;
		}
		if (cfg->block_size) {
			rc = ioctl_again(dev_fd, LOOP_SET_BLOCK_SIZE, cfg->block_size);
			if (rc)
				goto clear_device;
		}
		rc = ioctl_again(dev_fd, LOOP_SET_STATUS64, (unsigned long)&lc.info);
		if (rc)
			goto clear_device;
	}

	rc = sync_capacity(dev_fd, file_fd, cfg);
	if (rc)
		goto clear_device;

	explicit_bzero(&lc, sizeof(lc));
	close(file_fd);
	free(canon);
	loopdev_invalidate(ld);
	if (lo_flags_out)
		*lo_flags_out = lo_flags;
	return 0;

clear_device:
	explicit_bzero(&lc, sizeof(lc));
	/* EBUSY means somebody else's backing file: never clear theirs */
	if (dev_fd >= 0 && rc != -EBUSY)
		ioctl(dev_fd, LOOP_CLR_FD, 0);
close_file:
	close(file_fd);
	free(canon);
	DBG(SETUP, ld->path, "attach failed: %s", strerror(-rc));
	return rc;
}

LIBLOOP_EXPORT int loopdev_attach_free(struct loopdev *ld, enum loopdev_kind kind,
				       const struct loopdev_config *cfg,
				       uint32_t *lo_flags_out)
{
	int tries = 0, rc;

	for (;;) {
		rc = loopdev_find_free(ld, kind);
		if (rc)
			return rc;
		rc = loopdev_attach(ld, cfg, lo_flags_out);
		if ((rc != -EBUSY && rc != -EAGAIN) || tries++ >= BUSY_TRIES)
			return rc;
		DBG(SETUP, ld->path, "lost the race for it, retrying");
		loop_usleep(BUSY_DELAY_US);
	}
}

static int device_ioctl(struct loopdev *ld, int rw, unsigned long req,
			unsigned long arg, bool again)
{
	int fd = loopdev_get_fd(ld, rw);
	int rc;

	if (fd < 0)
		return fd;
	if (again)
		rc = ioctl_again(fd, req, arg);
	else
		rc = ioctl(fd, req, arg) < 0 ? -errno : 0;
	DBG(SETUP, ld->path, "ioctl 0x%lx: %d", req, rc);
	loopdev_invalidate(ld);
	return rc;
}

LIBLOOP_EXPORT int loopdev_detach(struct loopdev *ld)
{
	return device_ioctl(ld, 0, LOOP_CLR_FD, 0, false);
}

LIBLOOP_EXPORT int loopdev_set_capacity(struct loopdev *ld)
{
	return device_ioctl(ld, 0, LOOP_SET_CAPACITY, 0, false);
}

LIBLOOP_EXPORT int loopdev_set_direct_io(struct loopdev *ld, int on)
{
	return device_ioctl(ld, 0, LOOP_SET_DIRECT_IO, on ? 1 : 0, false);
}

LIBLOOP_EXPORT int loopdev_set_swap(struct loopdev *ld, int on)
{
	const char *dir = loopdev_sysfs_dir(ld);
	char path[PATH_MAX];
	ssize_t n;
	int fd, rc = 0;

	if (!*dir)
		return -ENODEV;
	if (snprintf(path, sizeof(path), "%s/loop/swap", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -EOPNOTSUPP : -errno;
	n = write(fd, on ? "1\n" : "0\n", 2);
	if (n < 0)
		rc = -errno;
	else if (n != 2)
		rc = -EIO;
	close(fd);
	return rc;
}

LIBLOOP_EXPORT int loopdev_set_block_size(struct loopdev *ld, uint32_t size)
{
	return device_ioctl(ld, 0, LOOP_SET_BLOCK_SIZE, size, true);
}

LIBLOOP_EXPORT int loopdev_set_status(struct loopdev *ld, const struct loop_info64 *info)
{
	return device_ioctl(ld, 0, LOOP_SET_STATUS64, (unsigned long)info, true);
}
