/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Setting up and tearing down the encrypted device through losetup. */
#ifndef MOUNT_DEVICE_H
#define MOUNT_DEVICE_H

#include <stddef.h>

#include "mount-opts.h"

/* The losetup that sets devices up: configure's, or $CRYPTOLOOP_LOSETUP. */
const char *losetup_path(void);

/*
 * Run "losetup --show -f [ARGS] [--read-only] [--pass-fd FD] IMAGE"; the
 * passphrase fd is inherited, never copied. Its messages go to @errfd
 * (-1: our stderr). On success *device is the new device
 * (malloc'ed). Returns 0 or losetup's non-zero exit status (it has
 * already told the user why), or -errno when it could not run.
 */
int device_setup(const struct mount_request *req, const char *image, char **device,
		 int errfd);

/*
 * The image behind @device (a device losetup knows: loop, cryptoloop or a
 * dm engine mapping), malloc'ed. Returns 0, or non-zero when there is none.
 */
int device_image(const char *device, char **image);

/* "losetup -d DEVICE". Returns 0 or non-zero like device_setup(). */
int device_teardown(const char *device);

/*
 * Probe the device read-only for a filesystem. Returns 0 with *type set
 * (malloc'ed), 1 when there is none, or -errno.
 */
int device_probe_fstype(const char *device, char **type);

#endif
