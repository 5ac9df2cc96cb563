// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Devices by the name a user or a mount table gives: a loop device, or
 * the dm engine's mapping on one. What mount.cryptoloop and
 * umount.cryptoloop need to tear a device down or to tell its image,
 * and what losetup's -d, -c and --list take as a device.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/private.h"
#include "engine/engine-private.h"

LIBLOOP_EXPORT int loopdev_set_named(struct loopdev *ld, const char *name)
{
	char lower[96];
	int rc;

	if (!loopdev_is_loop_device(name)) {
		/* no record names it: not a device of ours, whatever the cause */
		rc = loop_state_resolve(name, lower, sizeof(lower));
		if (rc)
			return -ENODEV;
		name = lower;
	}
	return loopdev_set_device(ld, name);
}

LIBLOOP_EXPORT int loop_device_detach(const char *name)
{
	struct loopdev *ld;
	int rc = loopdev_new(&ld);

	if (rc)
		return rc;
	rc = loopdev_set_named(ld, name);
	if (!rc) {
		rc = loop_engine_detach(ld);
		if (rc == -ENOENT)
			rc = loopdev_detach(ld);
	}
	loopdev_free(ld);
	return rc;
}

LIBLOOP_EXPORT int loop_device_image(const char *name, char **image)
{
	struct loop_state st;
	struct loopdev *ld;
	int rc = loopdev_new(&ld);

	*image = NULL;
	if (rc)
		return rc;
	rc = loopdev_set_named(ld, name);
	if (!rc && loop_state_lookup(ld, &st) == 0) {
		*image = strdup(st.image);
		rc = *image ? 0 : -ENOMEM;
	} else if (!rc) {
		rc = loopdev_get_backing_file(ld, image);
	}
	loopdev_free(ld);
	if (!rc && (!*image || !**image)) {
		free(*image);
		*image = NULL;
		rc = -ENXIO;
	}
	return rc;
}
