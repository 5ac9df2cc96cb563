// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dm engine straight on a block device (losetup -e NAME /dev/sdb2):
 * no loop device under the mapping, so the mapping itself carries the
 * offset and size limit, is named after the device, and must not take a
 * device that anything but our own mappings of its other ranges holds.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/private.h"
#include "engine/engine-private.h"
#include "engine/dm.h"

int dm_is_direct(const struct loop_state *st)
{
	return !strncmp(st->id, ID_DIRECT, strlen(ID_DIRECT));
}

int dm_device_sectors(const char *path, uint64_t *sectors)
{
	uint64_t bytes;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0)
		rc = -errno;
	else
		*sectors = bytes / LOOP_SECTOR_SIZE;
	close(fd);
	return rc;
}

int dm_kernel_name(dev_t dev, char *buf, size_t size)
{
	char link[64], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return -ENODEV;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (snprintf(buf, size, "%s", base) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * The range of block device @dev the user asked for, as the loop driver
 * would give it: from the offset to the end, cut at the size limit.
 */
int dm_direct_range(const char *dev, uint64_t offset, uint64_t sizelimit,
		    struct dm_range *r)
{
	uint64_t sectors;
	int rc = dm_device_sectors(dev, &sectors);

	if (rc)
		return rc;
	r->start = offset / LOOP_SECTOR_SIZE;
	if (r->start >= sectors)
		return -ERANGE;
	r->length = sectors - r->start;
	if (sizelimit && sizelimit / LOOP_SECTOR_SIZE < r->length)
		r->length = sizelimit / LOOP_SECTOR_SIZE;
	return r->length ? 0 : -ERANGE;
}

/* The device number sysfs gives the holder @holder of @dir ("dm-3"). */
static int holder_dev(const char *dir, const char *holder, dev_t *dev)
{
	char file[PATH_MAX];
	unsigned int maj, min;
	FILE *f;
	int n;

	snprintf(file, sizeof(file), "%s/%s/dev", dir, holder);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%u:%u", &maj, &min);
	fclose(f);
	if (n != 2)
		return -EINVAL;
	*dev = makedev(maj, min);
	return 0;
}

struct holder_ctx {
	dev_t dev;	/* the block device */
	dev_t holder;	/* what holds it */
	int ours;
};

/* A record of a mapping of ours straight on the block device, and the
 * holder is that mapping: both by device number, never by name. */
static int holder_is_record(const struct loop_state *st, void *data)
{
	struct holder_ctx *h = data;
	struct stat map, img;

	if (st->engine != LOOP_ENGINE_DM || !dm_is_direct(st))
		return 0;
	if (stat(st->device, &map) < 0 || !S_ISBLK(map.st_mode) || map.st_rdev != h->holder)
		return 0;
	if (stat(st->image, &img) < 0 || !S_ISBLK(img.st_mode) || img.st_rdev != h->dev)
		return 0;
	h->ours = 1;
	return 1;
}

/*
 * Whether block device @dev may take another mapping: -EBUSY when anything
 * but our own mappings of its other ranges holds it or has it open
 * exclusively (mounted, swap, an LVM physical volume, a RAID member, the
 * dm engine's own mapping over a loop device). A holder is ours only when
 * a record of a mapping straight on @dev names it: a name proves nothing
 * (the mapping on /dev/loop3 is cryptoloop-loop3, what a mapping straight
 * on the block device loop3 would be called too).
 * *@shared: 1 when our mappings hold it, so libcryptsetup must not insist
 * on having it to itself (cryptsetup --shared); the ranges do not overlap,
 * or all are read-only, as the caller made sure from the same records.
 */
int dm_direct_may_share(const char *path, dev_t dev, int *shared)
{
	struct holder_ctx h = { .dev = dev };
	char dir[64];
	struct dirent *d;
	int ours = 0, theirs = 0, fd;
	DIR *dh;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/holders", major(dev), minor(dev));
	dh = opendir(dir);
	while (dh && (d = readdir(dh))) {
		if (d->d_name[0] == '.')
			continue;
		h.ours = 0;
		if (holder_dev(dir, d->d_name, &h.holder) == 0)
			loop_state_foreach(holder_is_record, &h);
		if (h.ours)
			ours++;
		else
			theirs++;
	}
	if (dh)
		closedir(dh);
	if (theirs)
		return -EBUSY;
	*shared = ours > 0;
	if (ours)
		return 0;
	/* nobody holds it: is it open exclusively (mounted, swap)? */
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}
