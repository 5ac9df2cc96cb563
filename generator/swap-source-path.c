// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The random-key swap unit checks its source in one process and losetup
 * opens it again by name in the next: what the check saw must be what
 * losetup gets. The name cannot be handed over as a descriptor between
 * two ExecStart lines, so the path itself must be one only root can
 * change; a user who could rename an entry on it, or plant a symbolic
 * link, would get the check passed on an empty file and then any file
 * of root's overwritten with swap.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "swap-source-path.h"

/* Can anyone but root change @dir's entry @entry? */
static int dir_safe(const char *dir, const struct stat *d, const struct stat *entry,
		    char *why, size_t size)
{
	if (d->st_uid != 0) {
		snprintf(why, size, "%s belongs to uid %u, not root", dir, (unsigned)d->st_uid);
		return -1;
	}
	if (!(d->st_mode & S_IWOTH) && (!(d->st_mode & S_IWGRP) || d->st_gid == 0))
		return 0;
	/* a sticky directory (/tmp): only the owner renames a root entry */
	if ((d->st_mode & S_ISVTX) && entry->st_uid == 0)
		return 0;
	snprintf(why, size, "%s is writable by users other than root", dir);
	return -1;
}

/*
 * Each directory of @path from / down, with its entry on the path. The
 * path as written may hold symbolic links only under /dev (udev's); the
 * canonical one holds none.
 */
static int walk(const char *path, char *why, size_t size)
{
	struct stat d, e;
	size_t i;

	for (i = 0; path[i]; i++) {
		char dir[PATH_MAX], entry[PATH_MAX];
		const char *next;

		if (path[i] != '/' || !path[i + 1])
			continue;
		next = strchr(path + i + 1, '/');
		snprintf(dir, sizeof(dir), "%.*s", i ? (int)i : 1, path);
		snprintf(entry, sizeof(entry), "%.*s",
			 (int)(next ? (size_t)(next - path) : strlen(path)), path);
		if (lstat(dir, &d) < 0 || lstat(entry, &e) < 0) {
			snprintf(why, size, "%s: %s", entry, strerror(errno));
			return -1;
		}
		if (dir_safe(dir, &d, &e, why, size) < 0)
			return -1;
		if (S_ISLNK(e.st_mode) && strncmp(entry, "/dev/", 5)) {
			snprintf(why, size, "%s is a symbolic link (only /dev's are taken)", entry);
			return -1;
		}
	}
	return 0;
}

int swap_source_path_safe(const char *source, int fd, char *why, size_t size)
{
	struct stat opened, named;
	char *real;
	int rc = -1;

	if (source[0] != '/') {
		snprintf(why, size, "not an absolute path");
		return -1;
	}
	if (walk(source, why, size) < 0)
		return -1;
	real = realpath(source, NULL);
	if (!real) {
		snprintf(why, size, "cannot resolve the path: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &opened) < 0 || stat(real, &named) < 0 ||
	    opened.st_dev != named.st_dev || opened.st_ino != named.st_ino)
		snprintf(why, size, "the path changed while it was checked");
	else
		rc = walk(real, why, size);
	free(real);
	return rc;
}
