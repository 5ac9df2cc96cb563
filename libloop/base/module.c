// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Parts loaded on first use. The dm engine pulls in libcryptsetup,
 * libdevmapper and a dozen libraries behind them; losetup -F pulls in
 * libmount and libblkid. Loading them costs a plain attach more than the
 * attach itself, so they are modules that only their users load.
 *
 * A module is looked up next to the libloop.so that is running, so an
 * installed library (PKGLIBDIR/libloop.so.N with PKGLIBDIR/NAME.so), a
 * DESTDIR copy of it and a build tree (libloop/.libs/) each find their
 * own: no environment variable can point a root process at another file.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/private.h"

static int module_dir(char *buf, size_t size)
{
	Dl_info info;
	char *slash;

	if (!dladdr((void *)module_dir, &info) || !info.dli_fname ||
	    snprintf(buf, size, "%s", info.dli_fname) >= (int)size)
		return -ENOENT;
	slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	return 0;
}

int loop_module_open(const char *name, void **handle)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int rc = module_dir(dir, sizeof(dir)), n;

	if (rc) {
		DBG(SETUP, name, "module: cannot tell where libloop is");
		return rc;
	}
	n = snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	*handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (*handle) {
		DBG(SETUP, name, "module: loaded %s", path);
		return 0;
	}
	DBG(SETUP, name, "module: %s", dlerror());
	return -ENOENT;
}
