// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * umount.cryptoloop: what umount(8) runs for mounts that
 * mount.cryptoloop recorded with uhelper=cryptoloop.
 *
 *   umount.cryptoloop DIR|DEVICE|IMAGE [-flnrv] [-N NS] [-t TYPE]
 *
 * Unmounts through libmount, then detaches the device with libloop, which
 * also stops whatever engine served it. It takes every name umount(8)
 * takes for a plain loop mount: the mount point, the device, the image.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libmount.h>

#include "device.h"

#define UMOUNT_EX_USAGE 1
#define UMOUNT_EX_FAIL  32

/* May @source be one of our devices? (libloop is asked only then.) */
static bool ours(const char *source)
{
	return !strncmp(source, "/dev/loop", 9) || !strncmp(source, "/dev/cryptoloop", 15) ||
	       !strncmp(source, "/dev/mapper/cryptoloop-", 23);
}

/*
 * The mount @name means, from the kernel's mount table: the mount point,
 * else the device mounted, else a device of ours whose image @name is.
 * Sets *target and *device (malloc'ed). Returns 0, or -ENOENT.
 */
static int find_mount(const char *name, char **target, char **device)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs = NULL, *f;
	char real[PATH_MAX];
	struct stat st;
	int rc = -ENOENT;

	if (!tb || !itr || mnt_table_parse_mtab(tb, NULL) != 0)
		goto out;
	fs = mnt_table_find_target(tb, name, MNT_ITER_BACKWARD);
	if (!fs)
		fs = mnt_table_find_source(tb, name, MNT_ITER_BACKWARD);
	if (!fs && stat(name, &st) == 0 && S_ISREG(st.st_mode) && realpath(name, real)) {
		while (!fs && mnt_table_next_fs(tb, itr, &f) == 0) {
			const char *src = mnt_fs_get_srcpath(f);
			char *img = NULL;

			if (src && ours(src) && device_image(src, &img) == 0 && !strcmp(img, real))
				fs = f;
			free(img);
		}
	}
	if (fs && mnt_fs_get_target(fs)) {
		*target = strdup(mnt_fs_get_target(fs));
		*device = mnt_fs_get_srcpath(fs) ? strdup(mnt_fs_get_srcpath(fs)) : NULL;
		rc = *target ? 0 : -ENOMEM;
	}
out:
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	return rc;
}

int main(int argc, char **argv)
{
	struct libmnt_context *cxt;
	char *target = NULL;
	const char *name;
	bool lazy = false, force = false, nomtab = false, verbose = false;
	char *device = NULL, buf[BUFSIZ] = "";
	int c, rc;

	/*
	 * Only root, by the real uid and before any argument is acted on: a
	 * setuid copy would unmount and detach for a user, and tell them
	 * which image is behind a mount.  The helper never mounts for a user
	 * (mount.cryptoloop refuses "user"/"users"), so no user unmount can
	 * be ours.
	 */
	if (getuid() != 0) {
		if (argc > 1 && argv[1][0] != '-')
			errx(UMOUNT_EX_USAGE, "%s: only root can unmount an encrypted image and "
			     "detach its device", argv[1]);
		errx(UMOUNT_EX_USAGE, "only root can run %s", program_invocation_short_name);
	}
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "Usage: %s DIR|DEVICE|IMAGE [-flnrv]\n",
			program_invocation_short_name);
		return UMOUNT_EX_USAGE;
	}
	name = argv[1];
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

	if (find_mount(name, &target, &device))
		errx(UMOUNT_EX_FAIL, "%s: not mounted", name);
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
		free(target);
		return rc;
	}
	/* a lazy unmount keeps the device busy; the detach then defers it */
	if (device && device_teardown(device) != 0) {
		warnx("%s: unmounted, but detaching %s failed", target, device);
		rc = UMOUNT_EX_FAIL;
	}
	free(device);
	free(target);
	return rc;
}
