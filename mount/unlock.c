// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A wrong passphrase gives no error from the cipher, only garbage: the
 * device is set up, then probed for a filesystem, and set up again when
 * none is there, as long as the passphrase can be asked again.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"
#include "unlock.h"

/* a wrong passphrase is asked again this often, as systemd-cryptsetup's tries= */
#define MAX_TRIES        3

/* Filesystem types that mount a superblock libblkid calls @found. */
static bool type_fits(const char *want, const char *found)
{
	if (!strcmp(want, found))
		return true;
	/* the ext4 driver mounts ext2 and ext3, ext3's mounts ext2 */
	if (!strcmp(want, "ext4"))
		return !strcmp(found, "ext2") || !strcmp(found, "ext3");
	if (!strcmp(want, "ext3"))
		return !strcmp(found, "ext2");
	return false;
}

/*
 * Was the passphrase asked for (a terminal or systemd's password agents)?
 * Then a wrong one is asked again, as systemd-cryptsetup does: at boot a
 * typo must not end in emergency mode.  A passphrase from passfd=, a key
 * file or a pipe on standard input cannot be asked again.
 */
static bool asked(const struct mount_request *req)
{
	struct stat st;

	if (req->passfd >= 0 || mopt_given(req, "keyfile"))
		return false;
	if (fstat(STDIN_FILENO, &st) < 0)
		return true;
	return !S_ISFIFO(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISSOCK(st.st_mode);
}

int unlock_device(const struct mount_request *req, const char *image, const char *where,
		  char **device, char **fstype)
{
	int tries = asked(req) ? MAX_TRIES : 1, try, rc;

	for (try = 1;; try++) {
		/* libloop's messages, retold in the fstab's words */
		rc = device_setup(req, image, device, where);
		if (rc == -EKEYREJECTED && try < tries) {
			warnx("%s: try again (%d of %d)", image, try + 1, tries);
			continue;
		}
		if (rc == -EKEYREJECTED)
			return UNLOCK_WRONG_KEY;
		if (rc)
			return -1;
		/*
		 * A wrong passphrase gives garbage, never an error: probe
		 * even when fstype= names the type, and refuse when it is
		 * not there.
		 */
		rc = device_probe_fstype(*device, fstype);
		if (rc == 0 && req->fstype && !type_fits(req->fstype, *fstype)) {
			warnx("%s: no %s filesystem on the decrypted device %s (found %s): "
			      "wrong passphrase or cipher, or a wrong fstype=?", image,
			      req->fstype, *device, *fstype);
			rc = 1;
		} else if (rc > 0) {
			warnx("%s: no filesystem found on the decrypted device %s: "
			      "wrong passphrase or cipher?", image, *device);
		} else if (rc < 0) {
			warnx("%s: cannot probe %s: %s", image, *device, strerror(-rc));
		}
		if (!rc)
			return 0;
		device_teardown(*device);
		free(*device);
		free(*fstype);
		*device = NULL;
		*fstype = NULL;
		if (rc < 0)
			return -1;
		if (try >= tries)
			return UNLOCK_WRONG_KEY;
		warnx("%s: try again (%d of %d)", image, try + 1, tries);
	}
}
