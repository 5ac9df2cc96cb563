/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libloop: control of Linux loop devices and of cryptoloop devices.
 *
 * Every function returns 0 (or a documented non-negative value) on
 * success and -errno on failure. The library never prints and never
 * exits; LIBLOOP_DEBUG in the environment traces it on stderr: a list of
 * areas (setup, engine, crypto, state), "all", a mask of their bits
 * (libloop/base/private.h), or "help" for the list.
 */
#ifndef LIBLOOP_H
#define LIBLOOP_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <linux/loop.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Device families that speak the loop ioctl ABI. The kernel's own loop
 * driver, and the cryptoloop module's /dev/cryptoloopN devices.
 */
enum loopdev_kind {
	LOOPDEV_KIND_LOOP = 0,		/* /dev/loopN, /dev/loop-control */
	LOOPDEV_KIND_CRYPTOLOOP,	/* /dev/cryptoloopN, /dev/cryptoloop-control */
};

/* ------------------------------------------------------------ a device */

struct loopdev;

/* Allocate a handle bound to no device yet. Returns 0 or -ENOMEM. */
int loopdev_new(struct loopdev **ld);
/* Close the device and free the handle. NULL is allowed. */
void loopdev_free(struct loopdev *ld);

/*
 * Bind the handle to a device: "/dev/loop3", "loop3" (relative to /dev)
 * or "/dev/cryptoloop1". The device need not exist yet. Drops cached
 * status and any open descriptor. Returns 0, -EINVAL or -ENAMETOOLONG.
 */
int loopdev_set_device(struct loopdev *ld, const char *name);
/* The bound path, or NULL. */
const char *loopdev_get_path(const struct loopdev *ld);
/* The device's kind (decided from its name). */
enum loopdev_kind loopdev_get_kind(const struct loopdev *ld);
/* The device number N of .../loopN, or -EINVAL. */
int loopdev_get_number(const struct loopdev *ld);

/*
 * 1 if @path is a block device of the loop or cryptoloop family, 0 if not
 * (then errno is ENODEV), never negative.
 */
int loopdev_is_loop_device(const char *path);

/*
 * Return a descriptor open on the bound device (read-write when @rw),
 * reopening if the mode differs. The handle owns it. -errno on failure.
 */
int loopdev_get_fd(struct loopdev *ld, int rw);

/* ------------------------------------------------------------ control */

/*
 * Ask the control device of @kind for a free device and bind @ld to it.
 * Returns 0, or -errno from opening the control device or the ioctl.
 */
int loopdev_find_free(struct loopdev *ld, enum loopdev_kind kind);
/* Create the bound device through the control device (LOOP_CTL_ADD). */
int loopdev_ctl_add(struct loopdev *ld);
/* Remove the bound device through the control device (LOOP_CTL_REMOVE). */
int loopdev_ctl_remove(struct loopdev *ld);

/* ------------------------------------------------------------ setup */

struct loopdev_config {
	const char *backing_file;	/* path, canonicalized by attach */
	int backing_fd;			/* or an already open fd (>= 0) */
	uint64_t offset;
	uint64_t sizelimit;		/* 0: to the end of the file */
	uint32_t block_size;		/* 0: the kernel default (512) */
	uint32_t lo_flags;		/* LO_FLAGS_READ_ONLY | _AUTOCLEAR | _PARTSCAN | _DIRECT_IO */
	/* encryption fields of the loop ABI, for engines that honour them */
	uint32_t encrypt_type;
	const char *crypt_name;
	const unsigned char *key;
	uint32_t key_size;
	uint64_t init[2];		/* lo_init; engines read [0] as a signed IV bias */
	/* name recorded in lo_file_name (the device's reference, cut to 63
	 * bytes); NULL or "": the backing file's canonical path */
	const char *file_name;
};

/*
 * Attach the backing file to the bound device, atomically with
 * LOOP_CONFIGURE, falling back to LOOP_SET_FD + LOOP_SET_STATUS64 on
 * kernels without it. A backing file that cannot be opened read-write
 * (EROFS, EACCES) is attached read-only. On success @lo_flags_out (may be
 * NULL) receives the flags in effect. On failure nothing stays attached.
 * Returns 0, -EBUSY when the device is in use, or -errno.
 */
int loopdev_attach(struct loopdev *ld, const struct loopdev_config *cfg,
		   uint32_t *lo_flags_out);

/*
 * Find a free device of @kind and attach to it, retrying when another
 * process wins the race for the same device (EBUSY/EAGAIN), as
 * util-linux does: up to 64 tries, 200 ms apart.
 */
int loopdev_attach_free(struct loopdev *ld, enum loopdev_kind kind,
			const struct loopdev_config *cfg, uint32_t *lo_flags_out);

/* LOOP_CLR_FD. Returns 0, -ENXIO when not attached, or -errno. */
int loopdev_detach(struct loopdev *ld);
/* LOOP_SET_CAPACITY: reread the backing file size. */
int loopdev_set_capacity(struct loopdev *ld);
/* LOOP_SET_DIRECT_IO. */
int loopdev_set_direct_io(struct loopdev *ld, int on);
/*
 * cryptoloop devices (kmod engine): @on pins the backing file and sends
 * I/O straight to its blocks, as swapon does for a swap file; needed
 * before a device backed by a file carries swap.  Returns 0,
 * -EOPNOTSUPP when the device has no such switch (not a bound
 * cryptoloop device), -EINVAL when the file has holes or unwritten or
 * shared blocks or no fixed block map, -EBUSY when it is pinned already,
 * or -errno.
 */
int loopdev_set_swap(struct loopdev *ld, int on);
/* LOOP_SET_BLOCK_SIZE, retried while the kernel says EAGAIN. */
int loopdev_set_block_size(struct loopdev *ld, uint32_t size);
/* LOOP_SET_STATUS64, retried while the kernel says EAGAIN. */
int loopdev_set_status(struct loopdev *ld, const struct loop_info64 *info);

/* ------------------------------------------------------------ status */

/*
 * LOOP_GET_STATUS64 (cached until the handle is rebound). -ENXIO when
 * the device is not attached.
 */
int loopdev_get_status(struct loopdev *ld, struct loop_info64 *info);

/*
 * Backing file path. Where the device has a sysfs directory, sysfs
 * loop/backing_file is authoritative (full length; -ENOENT when nothing
 * is attached), as it is for util-linux. Without sysfs, lo_file_name from
 * the ioctl (cut to 63 bytes, marked with '*'; -ENXIO when not attached).
 * *path is malloc'ed.
 */
int loopdev_get_backing_file(struct loopdev *ld, char **path);
/*
 * The device's reference: lo_file_name from the ioctl (util-linux's REF
 * column, set with losetup --loop-ref; the backing file's path when none
 * was given), at most 63 bytes. *ref is malloc'ed. -ENXIO when not
 * attached, -EACCES without permission for the ioctl.
 */
int loopdev_get_ref(struct loopdev *ld, char **ref);
/*
 * The device number: the node's rdev, else (a "lost" device, whose node
 * is gone) /sys/block/NAME/dev. -ENOENT when neither exists.
 */
int loopdev_get_devno(struct loopdev *ld, dev_t *devno);
/*
 * 1 when the device is "lost": the kernel has it (/sys/block/NAME) but
 * its node in /dev is gone; 0 otherwise.
 */
int loopdev_is_lost(struct loopdev *ld);
/* Backing file device and inode numbers (ioctl only, needs permission). */
int loopdev_get_backing_dev(struct loopdev *ld, dev_t *dev, ino_t *ino);
/* Offset, sizelimit: from sysfs where it exists, else the ioctl. */
int loopdev_get_offset(struct loopdev *ld, uint64_t *offset);
int loopdev_get_sizelimit(struct loopdev *ld, uint64_t *sizelimit);
/* Logical block size: sysfs queue/logical_block_size, then BLKSSZGET. */
int loopdev_get_block_size(struct loopdev *ld, uint64_t *size);
/*
 * 1 when the flag (one LO_FLAGS_* bit) is set, 0 when not, from sysfs
 * where it exists, else the ioctl. Returns 0 when neither can tell.
 */
int loopdev_has_flag(struct loopdev *ld, uint32_t lo_flag);

/* 1 if the bound device has a backing file, 0 if not. */
int loopdev_is_attached(struct loopdev *ld);

/* ------------------------------------------------------------ matching */

#define LOOPDEV_MATCH_OFFSET	(1 << 0)
#define LOOPDEV_MATCH_SIZELIMIT	(1 << 1)

/*
 * 1 when the bound device is backed by the file (by st_dev/st_ino when
 * @st is given and the ioctl works, by name otherwise) and, with
 * LOOPDEV_MATCH_*, at the given offset / sizelimit. 0 otherwise.
 */
int loopdev_is_backed_by(struct loopdev *ld, const struct stat *st,
			 const char *file, uint64_t offset,
			 uint64_t sizelimit, int match);

/*
 * Look for an attached device of @kind backed by @file whose range
 * overlaps [offset, offset+sizelimit). Returns 0 when there is none,
 * 1 for an overlap, 2 for an exact offset+sizelimit match (then @ld is
 * bound to that device), or -errno.
 */
int loopdev_find_overlap(struct loopdev *ld, enum loopdev_kind kind,
			 const char *file, uint64_t offset, uint64_t sizelimit);

/* ------------------------------------------------------------ iteration */

struct loopdev_iter;

#define LOOPDEV_ITER_USED	(1 << 0)	/* only attached devices */
#define LOOPDEV_ITER_ANY_KIND	(1 << 1)	/* loop and cryptoloop devices alike */

/*
 * Iterate over devices of @kind, in /sys/block directory order (the
 * order util-linux lists them in). Returns 0 or -errno.
 */
int loopdev_iter_new(struct loopdev_iter **it, enum loopdev_kind kind, int flags);
/*
 * Bind @ld to the next device. Returns 0, 1 at the end, or -errno.
 */
int loopdev_iter_next(struct loopdev_iter *it, struct loopdev *ld);
void loopdev_iter_free(struct loopdev_iter *it);

#ifdef __cplusplus
}
#endif

/* The encryption core: cipher specs, keys, passphrases, sector transfer. */
#include "libloop-crypto.h"
/* Encrypted devices: the fuse, kmod, xfer and dm engines and their records. */
#include "libloop-engine.h"
/* One call from the key options to an attached device. */
#include "libloop-attach.h"

#endif /* LIBLOOP_H */
