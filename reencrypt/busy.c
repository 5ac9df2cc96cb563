// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Is the image in use? Re-encrypting under a device that serves it would
 * corrupt both, so every engine is asked: loop and cryptoloop devices
 * (sysfs backing_file, and the loop ioctl through libloop), FUSE daemons
 * (the records libloop keeps), and for a block device its holders (dm)
 * and the kernel's exclusive open (mounts).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "reencrypt.h"
#include "libloop-engine.h"

struct want {
	struct stat st;
	char *who;
	size_t whosz;
};

static bool same_file(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode))
		return S_ISBLK(b->st_mode) && a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* /sys/block/X/loop/backing_file of every loop-like device */
static int check_sysfs(struct want *w)
{
	char path[PATH_MAX], back[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dir = opendir("/sys/block");
	int busy = 0;

	if (!dir)
		return 0;
	while (!busy && (d = readdir(dir))) {
		FILE *f;
		size_t n;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fread(back, 1, sizeof(back) - 1, f);
		fclose(f);
		back[n] = '\0';
		while (n && back[n - 1] == '\n')
			back[--n] = '\0';
		if (n && stat(back, &st) == 0 && same_file(&w->st, &st)) {
			snprintf(w->who, w->whosz, "/dev/%s", d->d_name);
			busy = 1;
		}
	}
	closedir(dir);
	return busy;
}

/* loop and cryptoloop devices through the loop ioctl */
static int check_loopdevs(struct want *w, const char *image)
{
	struct loopdev_iter *it;
	struct loopdev *ld;
	int busy = 0;

	if (S_ISBLK(w->st.st_mode))
		return 0;
	if (loopdev_new(&ld))
		return 0;
	if (loopdev_iter_new(&it, LOOPDEV_KIND_LOOP,
			     LOOPDEV_ITER_USED | LOOPDEV_ITER_ANY_KIND) == 0) {
		while (!busy && loopdev_iter_next(it, ld) == 0) {
			if (loopdev_is_backed_by(ld, &w->st, image, 0, 0, 0) == 1) {
				snprintf(w->who, w->whosz, "%s", loopdev_get_path(ld));
				busy = 1;
			}
		}
		loopdev_iter_free(it);
	}
	loopdev_free(ld);
	return busy;
}

static int fuse_record(const struct loop_state *st, void *data)
{
	struct want *w = data;

	if (S_ISBLK(w->st.st_mode) || loop_state_get_image_dev(st) != w->st.st_dev ||
	    loop_state_get_image_ino(st) != w->st.st_ino || !loop_state_alive(st))
		return 0;
	snprintf(w->who, w->whosz, "%s (%s engine)", loop_state_get_device(st),
		 loop_engine_name(loop_state_get_engine(st)));
	return 1;
}

/* a block device: anything stacked on it (dm-crypt, md, a partition in use) */
static int check_holders(struct want *w)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int busy = 0;

	if (!S_ISBLK(w->st.st_mode))
		return 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders",
		 major(w->st.st_rdev), minor(w->st.st_rdev));
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!busy && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(w->who, w->whosz, "/dev/%s", d->d_name);
		busy = 1;
	}
	closedir(dir);
	return busy;
}

int image_in_use(const char *image, int fd, char *who, size_t whosz)
{
	struct want w = { .who = who, .whosz = whosz };

	if (fstat(fd, &w.st) < 0)
		return -errno;
	if (check_sysfs(&w) || check_loopdevs(&w, image) ||
	    loop_state_foreach(fuse_record, &w) == 1 || check_holders(&w))
		return -EBUSY;
	return 0;
}
