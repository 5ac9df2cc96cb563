// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * umount.cryptoloop: what umount(8) runs for mounts that
 * mount.cryptoloop recorded with uhelper=cryptoloop.
 *
 *   umount.cryptoloop DIR [-flnrv] [-N NS] [-t TYPE]
 *
 * Unmounts through libmount, then detaches the device with losetup, which
 * also stops whatever engine served it.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmount.h>

#include "device.h"

#define UMOUNT_EX_USAGE 1
#define UMOUNT_EX_FAIL  32

/* The device mounted on @target, from the kernel's mount table. */
static char *mounted_source(const char *target)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs;
	char *res = NULL;

	if (!tb)
		return NULL;
	if (mnt_table_parse_mtab(tb, NULL) == 0) {
		fs = mnt_table_find_target(tb, target, MNT_ITER_BACKWARD);
		if (fs && mnt_fs_get_srcpath(fs))
			res = strdup(mnt_fs_get_srcpath(fs));
	}
	mnt_unref_table(tb);
	return res;
}

int main(int argc, char **argv)
{
	struct libmnt_context *cxt;
	const char *target;
	bool lazy = false, force = false, nomtab = false, verbose = false;
	char *device, buf[BUFSIZ] = "";
	int c, rc;

	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "Usage: %s DIR [-flnrv]\n", program_invocation_short_name);
		return UMOUNT_EX_USAGE;
	}
	target = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "flnrvN:t:")) != -1) {
		switch (c) {
		case 'f': force = true; break;
		case 'l': lazy = true; break;
		case 'n': nomtab = true; break;
		case 'r': break;	/* remounting read-only on failure: not for us */
		case 'v': verbose = true; break;
		case 't': break;
		case 'N':
			errx(UMOUNT_EX_USAGE, "mount namespaces (-N) are not supported");
		default:
			return UMOUNT_EX_USAGE;
		}
	}

	device = mounted_source(target);
	cxt = mnt_new_context();
	if (!cxt)
		err(UMOUNT_EX_FAIL, "failed to allocate a libmount context");
	mnt_context_disable_helpers(cxt, 1);
	mnt_context_set_target(cxt, target);
	mnt_context_enable_lazy(cxt, lazy);
	mnt_context_enable_force(cxt, force);
	mnt_context_disable_mtab(cxt, nomtab);
	mnt_context_enable_verbose(cxt, verbose);
	rc = mnt_context_umount(cxt);
	rc = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));
	mnt_free_context(cxt);
	if (rc) {
		if (*buf)
			warnx("%s: %s", target, buf);
		free(device);
		return rc;
	}
	/* a lazy unmount keeps the device busy; losetup -d then defers it */
	if (device && device_teardown(device) != 0) {
		warnx("%s: unmounted, but detaching %s failed", target, device);
		rc = UMOUNT_EX_FAIL;
	}
	free(device);
	return rc;
}
