// SPDX-License-Identifier: GPL-2.0-or-later
/* "losetup [-f | DEVICE] FILE": attaching, with util-linux's messages. */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "losetup.h"

/*
 * util-linux 2.40 and later name the device in a failed setup on a given
 * device whenever that device was not opened: the backing file is opened
 * first, so a file that cannot be opened names the device too.
 */
static bool device_was_opened(struct loopdev *ld, const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return loopdev_get_fd(ld, 0) >= 0;
}

/*
 * -L without a device: reuse an identical device, or refuse an
 * overlapping one. Returns 1 when a device was reused, 0 to go on.
 */
static int reuse_overlap(struct loopdev *ld, const struct create_opts *c)
{
	struct loop_info64 info;
	int rc = loopdev_find_overlap(ld, LOOPDEV_KIND_LOOP, c->file,
				      c->offset, c->sizelimit);

	switch (rc) {
	case 0:
		return 0;
	case 1:
		errx(EXIT_FAILURE, "%s: overlapping loop device exists", c->file);
	case 2:
		/* a read-only device cannot be made writable */
		if (loopdev_has_flag(ld, LO_FLAGS_READ_ONLY) &&
		    !(c->lo_flags & LO_FLAGS_READ_ONLY))
			errx(EXIT_FAILURE, "%s: overlapping read-only loop device exists",
			     c->file);
		if (loopdev_get_status(ld, &info) == 0 &&
		    info.lo_encrypt_type != LO_CRYPT_NONE)
			errx(EXIT_FAILURE, "%s: overlapping encrypted loop device exists",
			     c->file);
		info.lo_flags &= ~LO_FLAGS_AUTOCLEAR;
		rc = loopdev_set_status(ld, &info);
		explicit_bzero(&info, sizeof(info));
		if (rc)
			errx(EXIT_FAILURE, "%s: failed to re-use loop device", c->file);
		return 1;
	default:
		errno = -rc;
		errx(EXIT_FAILURE, "failed to inspect loop devices");
	}
}

static void fill_config(struct loopdev_config *cfg, const struct create_opts *c)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backing_file = c->file;
	cfg->backing_fd = -1;
	cfg->offset = c->offset;
	cfg->sizelimit = c->sizelimit;
	cfg->block_size = (uint32_t)c->blocksize;
	cfg->lo_flags = c->lo_flags;
	cfg->file_name = c->refname;
}

int create_loop(struct loopdev *ld, const struct create_opts *c)
{
	struct loopdev_config cfg;
	bool hasdev = loopdev_get_path(ld) != NULL;
	int rc;

	if (!hasdev && c->nooverlap && reuse_overlap(ld, c))
		return 0;

	if (hasdev) {
		/* creates /dev/loopN on demand; already existing is fine */
		loopdev_ctl_add(ld);
		if (c->nooverlap) {
			struct loopdev *other;

			if (loopdev_new(&other))
				err(EXIT_FAILURE, "failed to initialize loopcxt");
			rc = loopdev_find_overlap(other, LOOPDEV_KIND_LOOP, c->file,
						  c->offset, c->sizelimit);
			loopdev_free(other);
			if (rc > 0)
				errx(EXIT_FAILURE, "%s: overlapping loop device exists", c->file);
			if (rc < 0) {
				errno = -rc;
				err(EXIT_FAILURE, "%s: failed to check for conflicting loop devices",
				    c->file);
			}
		}
	}

	fill_config(&cfg, c);
	if (hasdev) {
		rc = loopdev_attach(ld, &cfg, NULL);
	} else {
		rc = loopdev_attach_free(ld, LOOPDEV_KIND_LOOP, &cfg, NULL);
		if (rc && !loopdev_get_path(ld)) {
			errno = -rc;
			warn("cannot find an unused loop device");
			return rc;
		}
	}
	if (rc) {
		errno = -rc;
		warn("%s: failed to set up loop device",
		     hasdev && !device_was_opened(ld, c->file) ? loopdev_get_path(ld) : c->file);
	}
	return rc;
}

void warn_size(const char *file, uint64_t sizelimit, uint64_t offset, bool has_offset)
{
	uint64_t size = sizelimit;
	struct stat st;

	if (!size) {
		if (stat(file, &st) || S_ISBLK(st.st_mode))
			return;
		size = (uint64_t)st.st_size;
		if (has_offset)
			size -= offset;
	}
	if (size < 512)
		warnx("%s: Warning: file is smaller than 512 bytes; the loop device "
		      "may be useless or invisible for system tools.", file);
	else if (size % 512)
		warnx("%s: Warning: file does not end on a 512-byte sector boundary; "
		      "the remaining end of the file will be ignored.", file);
}
