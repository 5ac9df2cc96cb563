// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "Lost" devices: the kernel has them (/sys/block/loopN) but their node in
 * /dev is gone. util-linux 2.40 names them so, and says how to recover.
 */
#include "config.h"

#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <sys/sysmacros.h>

#include "losetup.h"

const char *device_name(struct loopdev *ld)
{
	static char name[PATH_MAX + 8];

	if (!loopdev_is_lost(ld))
		return loopdev_get_path(ld);
	snprintf(name, sizeof(name), "%s (lost)", loopdev_get_path(ld));
	return name;
}

void warn_lost(struct loopdev *ld)
{
	dev_t devno = 0;

	if (loopdev_is_lost(ld) && loopdev_get_devno(ld, &devno) == 0 && devno)
		warnx("device node %s (%u:%u) is lost. You may use mknod(1) to recover it.",
		      loopdev_get_path(ld), major(devno), minor(devno));
}
