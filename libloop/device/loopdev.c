// SPDX-License-Identifier: LGPL-2.1-or-later
/* The device handle: binding to a name, opening, and reading status. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/private.h"

static const struct {
	const char *stem;
	const char *control;
} kinds[] = {
	[LOOPDEV_KIND_LOOP]       = { "loop",       "/dev/loop-control" },
	[LOOPDEV_KIND_CRYPTOLOOP] = { "cryptoloop", "/dev/cryptoloop-control" },
};

const char *loopdev_kind_stem(enum loopdev_kind kind)
{
	return kinds[kind].stem;
}

const char *loopdev_kind_control(enum loopdev_kind kind)
{
	return kinds[kind].control;
}

LIBLOOP_EXPORT int loopdev_new(struct loopdev **ld)
{
	*ld = calloc(1, sizeof(**ld));
	if (!*ld)
		return -ENOMEM;
	(*ld)->fd = -1;
	return 0;
}

static void loopdev_close(struct loopdev *ld)
{
	if (ld->fd >= 0)
		close(ld->fd);
	ld->fd = -1;
}

LIBLOOP_EXPORT void loopdev_free(struct loopdev *ld)
{
	if (!ld)
		return;
	loopdev_close(ld);
	free(ld);
}

void loopdev_invalidate(struct loopdev *ld)
{
	ld->has_info = false;
	memset(&ld->info, 0, sizeof(ld->info));
	ld->sysfs_probed = false;
}

static enum loopdev_kind kind_of(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, kinds[LOOPDEV_KIND_CRYPTOLOOP].stem,
		     strlen(kinds[LOOPDEV_KIND_CRYPTOLOOP].stem)))
		return LOOPDEV_KIND_CRYPTOLOOP;
	return LOOPDEV_KIND_LOOP;
}

LIBLOOP_EXPORT int loopdev_set_device(struct loopdev *ld, const char *name)
{
	int n;

	loopdev_close(ld);
	loopdev_invalidate(ld);
	ld->from_control = false;
	ld->path[0] = '\0';
	if (!name || !*name)
		return -EINVAL;
	/* a relative name is taken relative to /dev, as util-linux does */
	n = snprintf(ld->path, sizeof(ld->path), "%s%s",
		     *name == '/' ? "" : "/dev/", name);
	if (n >= (int)sizeof(ld->path)) {
		ld->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	ld->kind = kind_of(ld->path);
	DBG(SETUP, ld->path, "bound");
	return 0;
}

LIBLOOP_EXPORT const char *loopdev_get_path(const struct loopdev *ld)
{
	return ld && ld->path[0] ? ld->path : NULL;
}

LIBLOOP_EXPORT enum loopdev_kind loopdev_get_kind(const struct loopdev *ld)
{
	return ld->kind;
}

LIBLOOP_EXPORT int loopdev_get_number(const struct loopdev *ld)
{
	const char *base = strrchr(ld->path, '/');
	const char *stem = kinds[ld->kind].stem;
	char *end;
	long n;

	if (!base)
		return -EINVAL;
	base++;
	if (!strncmp(base, stem, strlen(stem)))
		base += strlen(stem);
	if (*base < '0' || *base > '9')
		return -EINVAL;
	n = strtol(base, &end, 10);
	if (*end || n > INT_MAX)
		return -EINVAL;
	return (int)n;
}

LIBLOOP_EXPORT int loopdev_is_loop_device(const char *path)
{
	char link[PATH_MAX], target[PATH_MAX];
	const char *base;
	struct stat st;
	ssize_t n;

	if (!path || stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
		goto no;
	if (major(st.st_rdev) == 7)	/* LOOP_MAJOR */
		return 1;
	/* other majors (cryptoloop's is dynamic): ask sysfs for the name */
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		goto no;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!strncmp(base, "loop", 4) || !strncmp(base, "cryptoloop", 10))
		return 1;
no:
	errno = ENODEV;
	return 0;
}

LIBLOOP_EXPORT int loopdev_get_fd(struct loopdev *ld, int rw)
{
	if (!ld->path[0])
		return -EINVAL;
	if (ld->fd >= 0 && ld->fd_rw != rw && rw)
		loopdev_close(ld);
	if (ld->fd < 0) {
		ld->fd = open(ld->path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		DBG(SETUP, ld->path, "open %s: %s", rw ? "rw" : "ro",
		    ld->fd < 0 ? strerror(errno) : "ok");
		if (ld->fd < 0)
			return -errno;
		ld->fd_rw = rw;
	}
	return ld->fd;
}

LIBLOOP_EXPORT int loopdev_get_status(struct loopdev *ld, struct loop_info64 *info)
{
	int fd;

	if (!ld->has_info) {
		fd = loopdev_get_fd(ld, 0);
		if (fd < 0)
			return fd;
		if (ioctl(fd, LOOP_GET_STATUS64, &ld->info) < 0) {
			int rc = -errno;

			DBG(SETUP, ld->path, "LOOP_GET_STATUS64: %s", strerror(-rc));
			return rc;
		}
		ld->has_info = true;
	}
	if (info)
		*info = ld->info;
	return 0;
}

LIBLOOP_EXPORT int loopdev_get_backing_file(struct loopdev *ld, char **path)
{
	char name[LO_NAME_SIZE];
	int rc;

	/* where sysfs exists it is authoritative, as it is for util-linux */
	if (*loopdev_sysfs_dir(ld))
		return loop_sysfs_read_string(loopdev_sysfs_dir(ld),
					      "loop/backing_file", path);
	rc = loopdev_get_status(ld, NULL);
	if (rc)
		return rc;
	/* the ioctl name is cut at 63 bytes; mark it the way util-linux
	 * does, in a copy: the cached name is also the device's reference */
	memcpy(name, ld->info.lo_file_name, LO_NAME_SIZE);
	name[LO_NAME_SIZE - 2] = '*';
	name[LO_NAME_SIZE - 1] = '\0';
	*path = strdup(name);
	return *path ? 0 : -ENOMEM;
}

LIBLOOP_EXPORT int loopdev_get_ref(struct loopdev *ld, char **ref)
{
	int rc = loopdev_get_status(ld, NULL);

	if (rc)
		return rc;
	*ref = strndup((const char *)ld->info.lo_file_name, LO_NAME_SIZE - 1);
	return *ref ? 0 : -ENOMEM;
}

LIBLOOP_EXPORT int loopdev_get_backing_dev(struct loopdev *ld, dev_t *dev, ino_t *ino)
{
	int rc = loopdev_get_status(ld, NULL);

	if (rc)
		return rc;
	if (dev)
		*dev = ld->info.lo_device;
	if (ino)
		*ino = ld->info.lo_inode;
	return 0;
}

LIBLOOP_EXPORT int loopdev_get_offset(struct loopdev *ld, uint64_t *offset)
{
	int rc;

	if (*loopdev_sysfs_dir(ld))
		return loop_sysfs_read_u64(loopdev_sysfs_dir(ld), "loop/offset", offset);
	rc = loopdev_get_status(ld, NULL);
	if (rc == 0)
		*offset = ld->info.lo_offset;
	return rc;
}

LIBLOOP_EXPORT int loopdev_get_sizelimit(struct loopdev *ld, uint64_t *sizelimit)
{
	int rc;

	if (*loopdev_sysfs_dir(ld))
		return loop_sysfs_read_u64(loopdev_sysfs_dir(ld), "loop/sizelimit", sizelimit);
	rc = loopdev_get_status(ld, NULL);
	if (rc == 0)
		*sizelimit = ld->info.lo_sizelimit;
	return rc;
}

LIBLOOP_EXPORT int loopdev_get_block_size(struct loopdev *ld, uint64_t *size)
{
	int fd, sz = 0;

	if (loop_sysfs_read_u64(loopdev_sysfs_dir(ld), "queue/logical_block_size", size) == 0)
		return 0;
	fd = loopdev_get_fd(ld, 0);
	if (fd < 0)
		return fd;
	if (ioctl(fd, BLKSSZGET, &sz) < 0)
		return -errno;
	*size = (uint64_t)sz;
	return 0;
}

LIBLOOP_EXPORT int loopdev_has_flag(struct loopdev *ld, uint32_t lo_flag)
{
	const char *attr = NULL;
	uint64_t v;

	switch (lo_flag) {
	case LO_FLAGS_AUTOCLEAR:
		attr = "loop/autoclear";
		break;
	case LO_FLAGS_PARTSCAN:
		attr = "loop/partscan";
		break;
	case LO_FLAGS_DIRECT_IO:
		attr = "loop/dio";
		break;
	case LO_FLAGS_READ_ONLY:
		attr = "ro";
		break;
	default:
		break;
	}
	if (attr && *loopdev_sysfs_dir(ld)) {
		if (loop_sysfs_read_u64(loopdev_sysfs_dir(ld), attr, &v) == 0)
			return v != 0;
		/*
		 * util-linux leaves the ioctl alone once sysfs exists; every
		 * kernel since 3.2 scans partitions on request.
		 */
		return lo_flag == LO_FLAGS_PARTSCAN;
	}
	if (loopdev_get_status(ld, NULL) == 0)
		return (ld->info.lo_flags & lo_flag) != 0;
	return 0;
}

LIBLOOP_EXPORT int loopdev_is_attached(struct loopdev *ld)
{
	char path[PATH_MAX];
	const char *dir = loopdev_sysfs_dir(ld);

	if (*dir) {
		snprintf(path, sizeof(path), "%s/loop/backing_file", dir);
		return access(path, F_OK) == 0;
	}
	return loopdev_get_status(ld, NULL) == 0;
}
