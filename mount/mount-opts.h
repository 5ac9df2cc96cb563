/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mount options of fstab type "cryptoloop", and what each becomes. */
#ifndef MOUNT_OPTS_H
#define MOUNT_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "fstab-options.h"

/* What the options ask for, split into device setup and the mount. */
struct mount_request {
	char *losetup_args[64];		/* "--encryption", "aes", ...: losetup long
					 * options and values (owned) */
	size_t nargs;
	char *fstype;			/* NULL: detect with libblkid */
	int passfd;			/* -1: none */
	int keyfd;			/* the key file option's file, open (not
					 * owned: the key device's); -1: none */
	bool readonly;
	bool nofail;
	char *fs_options;		/* what goes to the filesystem */
	char *keydev;			/* FOPT_UNLOCK: NULL when not given */
	char *keydev_timeout;
	char *device;			/* the device to set up, NULL: a free one */
	unsigned long seen;		/* bit per fstab_opts row */
};

/*
 * Split a comma-separated option string: our options into @req, the rest
 * appended to req->fs_options. Returns 0, or -EINVAL with *bad set to the
 * offending option (malloc'ed) for a missing value, a repeated option or
 * a value given to an option that takes none.
 */
int mopt_parse(struct mount_request *req, const char *optstr, char **bad);
void mopt_init(struct mount_request *req);
/* Was the option of that (documented) name given? */
bool mopt_given(const struct mount_request *req, const char *name);
void mopt_free(struct mount_request *req);
/* The first option given that only cryptoloop-unlock takes, or NULL. */
const char *mopt_unlock_only(const struct mount_request *req);

#endif
