// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Walking the devices of one kind. /sys/block is read in directory order
 * because that is the order util-linux prints "losetup -a" in, and our
 * listing must be indistinguishable from it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/private.h"

struct loopdev_iter {
	DIR *dir;
	enum loopdev_kind kind;
	int flags;
};

LIBLOOP_EXPORT int loopdev_iter_new(struct loopdev_iter **it, enum loopdev_kind kind,
				    int flags)
{
	struct loopdev_iter *i = calloc(1, sizeof(*i));

	if (!i)
		return -ENOMEM;
	i->dir = opendir("/sys/block");
	if (!i->dir) {
		int rc = -errno;

		free(i);
		return rc;
	}
	i->kind = kind;
	i->flags = flags;
	*it = i;
	return 0;
}

/* Is @name "<stem><digits>"? */
static bool is_device_name(const char *name, const char *stem)
{
	size_t n = strlen(stem);

	if (strncmp(name, stem, n) || !name[n])
		return false;
	for (name += n; *name; name++)
		if (*name < '0' || *name > '9')
			return false;
	return true;
}

LIBLOOP_EXPORT int loopdev_iter_next(struct loopdev_iter *it, struct loopdev *ld)
{
	const char *stem = loopdev_kind_stem(it->kind);
	struct dirent *d;
	char attr[NAME_MAX + 32];

	while ((d = readdir(it->dir))) {
		bool ours = is_device_name(d->d_name, stem);

		if (!ours && (it->flags & LOOPDEV_ITER_ANY_KIND)) {
			int k;

			for (k = LOOPDEV_KIND_LOOP; k <= LOOPDEV_KIND_CRYPTOLOOP && !ours; k++)
				ours = is_device_name(d->d_name, loopdev_kind_stem(k));
		}
		if (!ours)
			continue;
		if (it->flags & LOOPDEV_ITER_USED) {
			snprintf(attr, sizeof(attr), "%s/loop/backing_file", d->d_name);
			if (faccessat(dirfd(it->dir), attr, F_OK, 0) != 0)
				continue;
		}
		return loopdev_set_device(ld, d->d_name);
	}
	return 1;
}

LIBLOOP_EXPORT void loopdev_iter_free(struct loopdev_iter *it)
{
	if (!it)
		return;
	closedir(it->dir);
	free(it);
}
