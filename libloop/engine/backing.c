// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whether a loop device still holds a record's image: how the engines
 * built on a loop device (kmod, xfer, dm) tell their record is not stale.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "private.h"
#include "engine-private.h"

int loop_engine_backing_is(const char *device, const char *image)
{
	struct loopdev *ld;
	char *file = NULL;
	int ok = 0;

	if (loopdev_new(&ld))
		return 1;	/* cannot tell: keep the record */
	if (loopdev_set_device(ld, device) == 0 &&
	    loopdev_get_backing_file(ld, &file) == 0)
		ok = !strcmp(file, image);
	free(file);
	loopdev_free(ld);
	return ok;
}
