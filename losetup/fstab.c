// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "losetup -F DEVICE": loop-AES's way to set up a device from the fstab
 * line that names it with loop=DEVICE. The line's options become losetup
 * options and the command runs again with them, so that they go through
 * exactly the parsing and checks of the command line.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libmount.h>

#include "losetup.h"
#include "../mount/fstab-options.h"

/* The fstab entry with loop=@device, or NULL. */
static struct libmnt_fs *find_entry(struct libmnt_table *tb, const char *device)
{
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs, *found = NULL;
	char *val;
	size_t len;

	if (!itr)
		return NULL;
	while (!found && mnt_table_next_fs(tb, itr, &fs) == 0) {
		const char *opts = mnt_fs_get_options(fs);

		if (opts && mnt_optstr_get_option(opts, "loop", &val, &len) == 0 &&
		    val && strlen(device) == len && !strncmp(val, device, len))
			found = fs;
	}
	mnt_free_iter(itr);
	return found;
}

void setup_from_fstab(const char *device, int argc, char **argv)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs;
	char **nargv, *val;
	size_t len, i, n = 0;
	int a;

	if (!tb || mnt_table_parse_fstab(tb, NULL) != 0)
		errx(EXIT_FAILURE, "%s: cannot read", mnt_get_fstab_path());
	fs = find_entry(tb, device);
	if (!fs)
		errx(EXIT_FAILURE, "%s: no line with loop=%s in %s", device, device,
		     mnt_get_fstab_path());
	if (!mnt_fs_get_source(fs))
		errx(EXIT_FAILURE, "%s: the fstab line names no file", device);

	nargv = calloc((size_t)argc + 4 * fstab_opts_count + 4, sizeof(char *));
	if (!nargv)
		err(EXIT_FAILURE, "%s", device);
	nargv[n++] = argv[0];
	for (i = 0; i < fstab_opts_count; i++) {
		const struct fstab_opt *o = &fstab_opts[i];
		const char *opts = mnt_fs_get_options(fs);

		/* the root line's own, for the initramfs: never ignored */
		if (o->kind == FOPT_UNLOCK &&
		    mnt_optstr_get_option(opts, o->name, &val, &len) == 0)
			errx(EXIT_FAILURE, "%s: %s: the line with loop=%s: %s= is only for "
			     "the root line of cryptoloop-unlock(8)", device,
			     mnt_get_fstab_path(), device, o->name);
		/* the device options of the one table; passfd=, fstype= and
		 * ro belong to the mount, not to "losetup -F" */
		if (o->kind != FOPT_LOSETUP)
			continue;
		if ((mnt_optstr_get_option(opts, o->name, &val, &len) != 0 || !val) &&
		    (!o->legacy || mnt_optstr_get_option(opts, o->legacy, &val, &len) != 0 ||
		     !val))
			continue;
		nargv[n++] = (char *)o->losetup;
		nargv[n++] = strndup(val, len);
		if (!nargv[n - 1])
			err(EXIT_FAILURE, "%s", device);
	}
	/* the caller's other options (-p FD, -T, ...) but not -F itself */
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-F") || !strcmp(argv[a], "--fstab") ||
		    !strcmp(argv[a], device))
			continue;
		nargv[n++] = argv[a];
	}
	nargv[n++] = (char *)device;
	nargv[n++] = (char *)mnt_fs_get_source(fs);
	nargv[n] = NULL;
	execv("/proc/self/exe", nargv);
	err(EXIT_FAILURE, "%s: cannot run losetup again", device);
}
