/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internals shared by the libloop sources; not installed. */
#ifndef LIBLOOP_PRIVATE_H
#define LIBLOOP_PRIVATE_H

#include <limits.h>
#include <stdbool.h>
#include "libloop.h"

#include "base/export.h"

struct loopdev {
	char path[PATH_MAX];
	enum loopdev_kind kind;
	int fd;
	int fd_rw;			/* the mode fd was opened with */
	bool has_info;
	struct loop_info64 info;	/* cached LOOP_GET_STATUS64 */
	char sysfs[PATH_MAX];		/* /sys/dev/block/M:m, or "" */
	bool sysfs_probed;
	bool from_control;		/* just handed out by the control device */
};

/*
 * Debug tracing (debug.c), as util-linux's LOOPDEV_DEBUG: LIBLOOP_DEBUG
 * is a comma-separated list of the names below, "all", or a number (the
 * mask). Each line names its area and the object it is about:
 *   12345: libloop:    SETUP: [/dev/loop0]: LOOP_CONFIGURE ok
 * Never pass key material or passphrases.
 */
#define LOOP_DEBUG_INIT		(1 << 1)	/* the mask itself */
#define LOOP_DEBUG_SETUP	(1 << 2)	/* loop devices: ioctls, control */
#define LOOP_DEBUG_ENGINE	(1 << 3)	/* engine choice, attach, detach */
#define LOOP_DEBUG_CRYPTO	(1 << 4)	/* cipher specs, key shapes, back ends */
#define LOOP_DEBUG_STATE	(1 << 5)	/* the records under LOOP_STATE_DIR */
#define LOOP_DEBUG_ALL		0xffff

LIBLOOP_PRIVATE_EXPORT int loop_debug_mask(void);
LIBLOOP_PRIVATE_EXPORT void loop_debug_obj(const char *area, const char *obj,
					   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define DBG(area, obj, ...) do { \
	if (loop_debug_mask() & LOOP_DEBUG_##area) \
		loop_debug_obj(#area, (obj), __VA_ARGS__); \
} while (0)

#include "base/module.h"

/* sysfs attribute access (sysfs.c) */
int loop_sysfs_read_string(const char *dir, const char *attr, char **res);
int loop_sysfs_read_u64(const char *dir, const char *attr, uint64_t *res);
int loop_sysfs_parse_u64(const char *text, uint64_t *res);
int loop_sysfs_chomp(char *text);
const char *loopdev_sysfs_dir(struct loopdev *ld);

/* Name stem ("loop", "cryptoloop") and control device path of a kind. */
const char *loopdev_kind_stem(enum loopdev_kind kind);
const char *loopdev_kind_control(enum loopdev_kind kind);

/* Forget cached status after the device changed. */
void loopdev_invalidate(struct loopdev *ld);

/* Sleep for @usec microseconds (a seam for the retry loops). */
LIBLOOP_PRIVATE_EXPORT void loop_usleep(unsigned long usec);

#endif
