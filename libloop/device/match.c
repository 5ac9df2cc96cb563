// SPDX-License-Identifier: LGPL-2.1-or-later
/* Which devices use a given backing file, and do their ranges overlap. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/private.h"

LIBLOOP_EXPORT int loopdev_is_backed_by(struct loopdev *ld, const struct stat *st,
					const char *file, uint64_t offset,
					uint64_t sizelimit, int match)
{
	dev_t dev;
	ino_t ino;
	uint64_t v;

	if (st && loopdev_get_backing_dev(ld, &dev, &ino) == 0) {
		/* inode identity is exact; never fall back to names then */
		if (ino != st->st_ino || dev != st->st_dev)
			return 0;
	} else {
		char *name = NULL;
		bool same;

		if (!file || loopdev_get_backing_file(ld, &name))
			return 0;
		same = strcmp(name, file) == 0;
		free(name);
		if (!same)
			return 0;
	}
	if (match & LOOPDEV_MATCH_OFFSET) {
		if (loopdev_get_offset(ld, &v) || v != offset)
			return 0;
		if ((match & LOOPDEV_MATCH_SIZELIMIT) &&
		    (loopdev_get_sizelimit(ld, &v) || v != sizelimit))
			return 0;
	}
	return 1;
}

LIBLOOP_EXPORT int loopdev_find_overlap(struct loopdev *ld, enum loopdev_kind kind,
					const char *file, uint64_t offset,
					uint64_t sizelimit)
{
	struct loopdev_iter *it;
	struct stat st;
	bool has_st;
	int rc, found = 0;

	if (!file)
		return -EINVAL;
	has_st = stat(file, &st) == 0;
	rc = loopdev_iter_new(&it, kind, LOOPDEV_ITER_USED);
	if (rc)
		return rc;
	while ((rc = loopdev_iter_next(it, ld)) == 0) {
		uint64_t lo_off, lo_size;

		/* a device that vanishes meanwhile (autoclear) is skipped */
		if (loopdev_is_backed_by(ld, has_st ? &st : NULL, file, 0, 0, 0) <= 0)
			continue;
		if (loopdev_get_offset(ld, &lo_off) || loopdev_get_sizelimit(ld, &lo_size))
			continue;
		if (lo_off == offset && lo_size == sizelimit) {
			found = 2;
			break;
		}
		if (lo_size && offset >= lo_off + lo_size)
			continue;
		if (sizelimit && offset + sizelimit <= lo_off)
			continue;
		found = 1;
		break;
	}
	loopdev_iter_free(it);
	return rc < 0 ? rc : found;
}
