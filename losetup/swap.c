// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --swap: pin the backing file of a device just set up, so that it can
 * carry swap.  Through the file itself a device can wait under memory
 * pressure for memory that only its own swap-out would free; pinned, the
 * kmod engine writes the file's blocks directly, as swapon does for a
 * swap file.  A block device needs nothing of the kind.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "libloop.h"
#include "losetup.h"

int pin_for_swap(const char *device, const char *file)
{
	struct loopdev *ld;
	struct stat st;
	int rc;

	if (stat(file, &st) == 0 && S_ISBLK(st.st_mode))
		return 0;
	rc = loopdev_new(&ld);
	if (rc == 0)
		rc = loopdev_set_device(ld, device);
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "%s", device);
	}
	rc = loopdev_set_swap(ld, 1);
	if (rc) {
		errno = -rc;
		if (rc == -EOPNOTSUPP)
			warnx("%s: --swap needs the kmod engine (a /dev/cryptoloopN device)",
			      device);
		else if (rc == -EINVAL)
			warnx("%s: %s cannot be pinned for swap: it needs to be written in "
			      "full (no holes, no fallocated space) on a filesystem with a "
			      "fixed block map (see the kernel log)", device, file);
		else
			warn("%s: pinning %s for swap failed", device, file);
		/* a device that cannot carry swap safely is not left behind */
		detach_device(ld);
	}
	loopdev_free(ld);
	return rc;
}

/*
 * Before anything is attached or a passphrase read: a LUKS volume opens
 * through the dm engine only, which cannot pin a file, so --swap on a
 * LUKS image file could only fail after the attach.
 */
void swap_refuse_early(const char *encryption, const char *file)
{
	struct stat st;

	if (!file || !crypt_is_luks(encryption) || (stat(file, &st) == 0 && S_ISBLK(st.st_mode)))
		return;
	errx(EXIT_FAILURE, "%s: --swap does not apply to LUKS in a file: LUKS opens "
	     "through the dm engine, and only the kmod engine pins a file for swap "
	     "(a LUKS volume on a block device needs no --swap)", file);
}
