// SPDX-License-Identifier: LGPL-2.1-or-later
/* The control devices: /dev/loop-control and /dev/cryptoloop-control. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/private.h"

/* Run one control ioctl. Returns its non-negative result or -errno. */
static int control_ioctl(enum loopdev_kind kind, unsigned long req, long arg)
{
	int fd, rc;

	fd = open(loopdev_kind_control(kind), O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		DBG(SETUP, loopdev_kind_control(kind), "open: %s", strerror(errno));
		return rc;
	}
	rc = ioctl(fd, req, arg);
	if (rc < 0)
		rc = -errno;
	DBG(SETUP, loopdev_kind_control(kind), "ioctl 0x%lx(%ld) = %d", req, arg, rc);
	close(fd);
	return rc;
}

LIBLOOP_EXPORT int loopdev_find_free(struct loopdev *ld, enum loopdev_kind kind)
{
	char name[32];
	int nr = control_ioctl(kind, LOOP_CTL_GET_FREE, 0);

	if (nr < 0)
		return nr;
	snprintf(name, sizeof(name), "%s%d", loopdev_kind_stem(kind), nr);
	nr = loopdev_set_device(ld, name);
	ld->from_control = nr == 0;
	return nr;
}

/* LOOP_CTL_ADD or _REMOVE for the bound device's number. */
static int ctl_for_device(struct loopdev *ld, unsigned long req)
{
	int nr = loopdev_get_number(ld);

	if (nr < 0)
		return nr;
	nr = control_ioctl(ld->kind, req, nr);
	return nr < 0 ? nr : 0;
}

LIBLOOP_EXPORT int loopdev_ctl_add(struct loopdev *ld)
{
	return ctl_for_device(ld, LOOP_CTL_ADD);
}

LIBLOOP_EXPORT int loopdev_ctl_remove(struct loopdev *ld)
{
	return ctl_for_device(ld, LOOP_CTL_REMOVE);
}
