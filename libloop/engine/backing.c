// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loop device an engine puts on the image itself (kmod, xfer, dm),
 * and whether a loop device still holds a record's image: how those
 * engines tell their record is not stale.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/private.h"
#include "engine/engine-private.h"

void loop_engine_image_config(struct loopdev_config *lc, const struct loop_engine_config *cfg,
			      const struct loop_state *st, uint32_t keep_flags)
{
	memset(lc, 0, sizeof(*lc));
	lc->backing_file = cfg->image;
	lc->backing_fd = -1;
	/* the name the kernel reports is the record's, which leads back to it */
	lc->file_name = st->ref;
	lc->offset = cfg->offset;
	lc->sizelimit = cfg->sizelimit;
	lc->block_size = cfg->block_size;
	lc->lo_flags = cfg->lo_flags & keep_flags;
}

int loop_engine_backing_is(const char *device, const struct loop_state *st)
{
	struct loopdev *ld;
	char *file = NULL;
	dev_t dev = 0;
	ino_t ino = 0;
	int ok = 0;

	if (loopdev_new(&ld))
		return 1;	/* cannot tell: keep the record */
	if (loopdev_set_device(ld, device) == 0 &&
	    loopdev_get_backing_file(ld, &file) == 0)
		ok = !strcmp(file, st->image);
	/*
	 * The kernel names the backing file by its path in the mount it was
	 * opened through. A root set up in an initramfs was opened through
	 * the initramfs's /dev, which is gone after the switch to the real
	 * root: the name then reads "/vda" for /dev/vda. The file itself is
	 * the one recorded.
	 */
	if (!ok && st->image_ino && loopdev_get_backing_dev(ld, &dev, &ino) == 0)
		ok = dev == st->image_dev && ino == st->image_ino;
	free(file);
	loopdev_free(ld);
	return ok;
}
