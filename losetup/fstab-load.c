// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "losetup -F DEVICE" loads the fstab reader (fstab.c, a module linked
 * with libmount) only when it is asked for: every other run of losetup
 * starts without libmount, libblkid, libselinux and pcre2.
 */
#include "config.h"

#include <dlfcn.h>
#include <err.h>
#include <stdlib.h>

#include "losetup.h"
#include "base/module.h"

void setup_from_fstab(const char *device, int argc, char **argv)
{
	void (*reader)(const char *, int, char **);
	void *handle;

	if (loop_module_open("losetup-fstab", &handle))
		errx(EXIT_FAILURE, "-F: cannot load the fstab reader losetup-fstab.so "
		     "(it is installed next to libloop, in its cryptoloop/ directory)");
	*(void **)&reader = dlsym(handle, "setup_from_fstab");
	if (!reader)
		errx(EXIT_FAILURE, "-F: losetup-fstab.so has no setup_from_fstab: %s", dlerror());
	reader(device, argc, argv);
	/* the reader execs losetup again, or exits */
	errx(EXIT_FAILURE, "-F: the fstab reader returned");
}
