// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sysfs attributes of loop devices. sysfs is preferred over the ioctls:
 * it needs no permission on the device node and it holds the whole
 * backing file name, where loop_info64 keeps only 63 bytes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/private.h"

/* Strip the trailing newline sysfs adds. Returns the new length. */
int loop_sysfs_chomp(char *text)
{
	size_t n = strlen(text);

	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	return (int)n;
}

/* Parse a decimal attribute value ("4096\n"). Returns 0 or -EINVAL. */
int loop_sysfs_parse_u64(const char *text, uint64_t *res)
{
	char *end;
	uintmax_t v;

	if (!text || !(*text >= '0' && *text <= '9'))
		return -EINVAL;
	errno = 0;
	v = strtoumax(text, &end, 10);
	if (errno)
		return -errno;
	while (*end == '\n' || *end == ' ')
		end++;
	if (*end)
		return -EINVAL;
	*res = v;
	return 0;
}

int loop_sysfs_read_string(const char *dir, const char *attr, char **res)
{
	char path[PATH_MAX], buf[PATH_MAX + 2];
	ssize_t n;
	int fd;

	if (!dir || !*dir)
		return -ENOENT;
	if (snprintf(path, sizeof(path), "%s/%s", dir, attr) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	close(fd);
	buf[n] = '\0';
	loop_sysfs_chomp(buf);
	*res = strdup(buf);
	return *res ? 0 : -ENOMEM;
}

int loop_sysfs_read_u64(const char *dir, const char *attr, uint64_t *res)
{
	char *s = NULL;
	int rc = loop_sysfs_read_string(dir, attr, &s);

	if (rc == 0)
		rc = loop_sysfs_parse_u64(s, res);
	free(s);
	return rc;
}

LIBLOOP_EXPORT int loopdev_get_devno(struct loopdev *ld, dev_t *devno)
{
	const char *name = strrchr(ld->path, '/');
	char sys[sizeof("/sys/block/") + sizeof(ld->path)];
	char *text = NULL;
	unsigned int maj, min;
	struct stat st;
	int rc;

	if (!ld->path[0])
		return -EINVAL;
	if (stat(ld->path, &st) == 0 && S_ISBLK(st.st_mode)) {
		*devno = st.st_rdev;
		return 0;
	}
	/* a device whose node is gone ("lost") still has its sysfs entry */
	snprintf(sys, sizeof(sys), "/sys/block/%s", name ? name + 1 : ld->path);
	rc = loop_sysfs_read_string(sys, "dev", &text);
	if (rc)
		return rc;
	rc = sscanf(text, "%u:%u", &maj, &min) == 2 ? 0 : -EINVAL;
	free(text);
	if (rc == 0)
		*devno = makedev(maj, min);
	return rc;
}

LIBLOOP_EXPORT int loopdev_is_lost(struct loopdev *ld)
{
	dev_t devno;

	return ld->path[0] && access(ld->path, F_OK) != 0 &&
	       loopdev_get_devno(ld, &devno) == 0 && devno;
}

/*
 * /sys/dev/block/MAJ:MIN of the bound device, found through the device
 * node's rdev so that renamed nodes still work, or by its name when the
 * node is gone (a "lost" device). "" when there is none.
 */
const char *loopdev_sysfs_dir(struct loopdev *ld)
{
	dev_t devno;

	if (ld->sysfs_probed)
		return ld->sysfs;
	ld->sysfs_probed = true;
	ld->sysfs[0] = '\0';
	if (loopdev_get_devno(ld, &devno) == 0) {
		snprintf(ld->sysfs, sizeof(ld->sysfs), "/sys/dev/block/%u:%u",
			 major(devno), minor(devno));
		if (access(ld->sysfs, F_OK) != 0)
			ld->sysfs[0] = '\0';
	}
	DBG(SETUP, ld->path, "sysfs dir '%s'", ld->sysfs);
	return ld->sysfs;
}
