/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internals shared by the libloop sources; not installed. */
#ifndef LIBLOOP_PRIVATE_H
#define LIBLOOP_PRIVATE_H

#include <limits.h>
#include <stdbool.h>
#include "libloop.h"

#define LIBLOOP_EXPORT __attribute__((visibility("default")))

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

/* Debug tracing, enabled by LIBLOOP_DEBUG in the environment. */
bool loop_debug_enabled(void);
void loop_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define DBG(...) do { if (loop_debug_enabled()) loop_debug(__VA_ARGS__); } while (0)

/* sysfs attribute access (sysfs.c) */
int loop_sysfs_read_string(const char *dir, const char *attr, char **res);
int loop_sysfs_read_u64(const char *dir, const char *attr, uint64_t *res);
int loop_sysfs_parse_u64(const char *text, uint64_t *res);
int loop_sysfs_chomp(char *text);
const char *loopdev_sysfs_dir(struct loopdev *ld);

/* Forget cached status after the device changed. */
void loopdev_invalidate(struct loopdev *ld);

/* Sleep for @usec microseconds (a seam for the retry loops). */
void loop_usleep(unsigned long usec);

#endif
