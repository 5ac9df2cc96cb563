/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Setting up and tearing down the encrypted device through libloop. */
#ifndef MOUNT_DEVICE_H
#define MOUNT_DEVICE_H

#include <stddef.h>

#include "mount-opts.h"

/*
 * Attach @image with the options of @req on a free device through
 * loop_attach() (a plain loop device for cipher=none); the passphrase
 * comes from passfd=, else is asked for. Failures are told on stderr in
 * the fstab's words, after @where (NULL: no fstab line). On success
 * *device is the device to mount (malloc'ed). Returns 0 or -errno.
 */
int device_setup(const struct mount_request *req, const char *image, char **device,
		 const char *where);

/*
 * The image behind @device (a loop, cryptoloop or dm engine device),
 * malloc'ed. Returns 0, or -errno when there is none.
 */
int device_image(const char *device, char **image);

/* Detach @device and what its engine put on it. Returns 0 or -errno. */
int device_teardown(const char *device);

/*
 * Probe the device read-only for a filesystem. Returns 0 with *type set
 * (malloc'ed), 1 when there is none, or -errno.
 */
int device_probe_fstype(const char *device, char **type);

#endif
