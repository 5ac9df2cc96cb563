/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the engine and state sources of libloop; not installed. */
#ifndef LIBLOOP_ENGINE_PRIVATE_H
#define LIBLOOP_ENGINE_PRIVATE_H

#include <limits.h>
#include <linux/limits.h>	/* PATH_MAX */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libloop.h"
#include "base/private.h"

/*
 * One attached encrypted device, as recorded in LOOP_STATE_DIR/<id>/state.
 * Opaque to users (include/libloop-engine.h); engine-dm.so, built with
 * libloop from the same tree, shares this layout.
 */
struct loop_state {
	char id[64];			/* directory name under LOOP_STATE_DIR */
	char device[64];		/* /dev/loopN, /dev/cryptoloopN or
					 * /dev/mapper/cryptoloop-loopN */
	char image[PATH_MAX];		/* canonical path of the real image */
	char ref[LO_NAME_SIZE];		/* --loop-ref, "" for none (the image) */
	dev_t image_dev;
	ino_t image_ino;
	uint64_t offset;		/* as the user gave them */
	uint64_t sizelimit;
	char cipher[32];		/* spec name, "" for passthrough */
	unsigned int key_bits;
	unsigned int key_count;		/* 1, 64, 65; 0 for passthrough */
	int encrypt_type;		/* lo_encrypt_type of the old tools */
	enum loop_engine_kind engine;
	int read_only;
	pid_t pid;			/* the fuse daemon, 0 for kmod */
	unsigned long long pid_start;	/* its start time, against pid reuse */
	char mount[PATH_MAX];		/* the FUSE mount point, "" for kmod */
	dev_t fuse_dev;			/* the served file's identity, which */
	ino_t fuse_ino;			/* survives a lazy unmount of its path */
	char boot_id[40];
};

/* The file the daemon serves, inside its mount point. */
#define LOOP_FUSE_FILE "data"

/*
 * What every engine implements. engine.c and state-walk.c get the table
 * by the kind a record or a request names (table.c) and never look
 * inside an engine; the engines never call either. Every function
 * returns 0 or -errno.
 */
struct loop_engine_ops {
	enum loop_engine_kind kind;
	/* 0 when it can run here; -ENODEV, -ENOENT, -ENOPKG (see probe) */
	int (*probe)(const char *fuse_daemon);
	/* 0 when it can take this spec and key (NULL: passthrough) */
	int (*takes)(const struct loop_cipher_spec *spec, const struct loop_key *key);
	/*
	 * Attach and write the record; st is filled in by the caller except
	 * id, device and the engine's own fields. On failure nothing stays.
	 */
	int (*attach)(struct loopdev *ld, const struct loop_engine_config *cfg,
		      struct loop_state *st, enum loop_err_object *errpos);
	/*
	 * attach with the LUKS volume to open; fills in the record's cipher
	 * and key size from the header. NULL: the engine opens no LUKS.
	 */
	int (*attach_luks)(struct loopdev *ld, const struct loop_engine_config *cfg,
			   const struct loop_luks_config *luks, struct loop_state *st,
			   enum loop_err_object *errpos);
	/*
	 * Take the device apart (@ld is bound to the loop device the
	 * record stands on). NULL: LOOP_CLR_FD, then release once the
	 * kernel has let go.
	 */
	int (*detach)(struct loopdev *ld, const struct loop_state *st);
	/* Follow a grown or shrunk image (losetup -c). */
	int (*resize)(struct loopdev *ld, const struct loop_state *st);
	/*
	 * resize with the key a LUKS2 mapping needs (@luks, may be NULL:
	 * -ENOKEY when it does). *@targets: the mapping's table targets,
	 * more than one refused with -EINPROGRESS. NULL: resize is enough.
	 */
	int (*resize_luks)(struct loopdev *ld, const struct loop_state *st,
			   const struct loop_luks_config *luks, unsigned int *targets);
	/* 1 when what serves the device (daemon, mapping) is alive. */
	int (*alive)(const struct loop_state *st);
	/* 1 when the device still holds what the record says. */
	int (*owns)(const struct loop_state *st);
	/* Free what outlives the device (daemon, mount); may be NULL. */
	void (*release)(const struct loop_state *st);
	/* The loop device under the record's device (its own for most). */
	void (*loop_device)(const struct loop_state *st, char *buf, size_t size);
};

extern const struct loop_engine_ops loop_engine_fuse_ops;
extern const struct loop_engine_ops loop_engine_kmod_ops;
extern const struct loop_engine_ops loop_engine_xfer_ops;
extern const struct loop_engine_ops loop_engine_dm_ops;

/* table.c: the table for @kind, or NULL (AUTO, or not built). */
const struct loop_engine_ops *loop_engine_ops_get(enum loop_engine_kind kind);
/* backing.c: @lc for a loop device on @cfg's image, its window and
 * block size, named by @st's record; of the caller's flags only
 * @keep_flags pass */
LIBLOOP_PRIVATE_EXPORT void loop_engine_image_config(struct loopdev_config *lc,
						     const struct loop_engine_config *cfg,
						     const struct loop_state *st,
						     uint32_t keep_flags);
/* backing.c: @device is the loop device that holds @st's image, by the
 * kernel's name for it or by its device and inode (the engines on a loop
 * device); 1 when it cannot tell */
LIBLOOP_PRIVATE_EXPORT int loop_engine_backing_is(const char *device, const struct loop_state *st);

/* state.c: the records, and nothing else */
int loop_boot_id(char *buf, size_t size);
int loop_state_read(const char *id, struct loop_state *st);
int loop_state_format(const struct loop_state *st, char *buf, size_t size);
int loop_state_parse(struct loop_state *st, const char *buf, size_t len);
int loop_state_write(const struct loop_state *st);
/* create LOOP_STATE_DIR/<st->id> and write the record into it */
LIBLOOP_PRIVATE_EXPORT int loop_state_create(const struct loop_state *st);
/* remove the record and its directory */
LIBLOOP_PRIVATE_EXPORT void loop_state_unlink(const struct loop_state *st);
/* an id's directory whose record never got written (attach died) */
int loop_state_dir_is_orphan(const char *id);
/* Call @fn with each record's id; stops at a non-zero return. */
int loop_state_each_id(int (*fn)(const char *id, void *data), void *data);

/* state-walk.c: the records walked and judged against their engines */
int loop_state_is_stale(const struct loop_state *st);
/* the engine's release, then the record */
void loop_state_remove(const struct loop_state *st);

/* fuse-record.c: what ties a FUSE record to its daemon and mount */
/* start time (clock ticks since boot) of @pid, 0 when gone or a zombie */
unsigned long long loop_pid_start(pid_t pid);
/* 1 when st->mount is the record's own mount point */
int loop_state_owns_mount(const struct loop_state *st);
/* 1 when /proc/PID/exe is cryptoloop-fuse */
int loop_pid_is_daemon(pid_t pid);
/* 1 when the record proves its daemon: same boot, pid, start time, exe */
int loop_state_proves_daemon(const struct loop_state *st);

/* fuse.c, for the orphan directories state-walk.c cleans up */
/* unmount @mnt if something is mounted there (a dead FUSE mount too) */
void loop_fuse_unmount(const char *mnt);
/* @path, or the installed daemon */
const char *loop_fuse_daemon_path(const char *path);

#endif
