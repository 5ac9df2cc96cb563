/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Setting the device up until a filesystem shows: what mount.cryptoloop
 * and cryptoloop-unlock both do before anything is mounted.
 */
#ifndef MOUNT_UNLOCK_H
#define MOUNT_UNLOCK_H

#include "mount-opts.h"

/* every try gave a wrong key (gpg refused it, or garbage): nothing attached */
#define UNLOCK_WRONG_KEY 1

/*
 * Attach @image with @req and find its filesystem, asking a wrong
 * passphrase again when it was asked for.  Garbage is torn down, never
 * returned.  Messages go to stderr after @where (NULL: no fstab line).
 * Returns 0 with *@device and *@fstype set (malloc'ed), UNLOCK_WRONG_KEY,
 * or -1 (another failure, already told).
 */
int unlock_device(const struct mount_request *req, const char *image, const char *where,
		  char **device, char **fstype);

#endif
