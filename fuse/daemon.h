/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cryptoloop-fuse: state shared by the daemon's main and its FUSE ops. */
#ifndef CRYPTOLOOP_FUSE_DAEMON_H
#define CRYPTOLOOP_FUSE_DAEMON_H

/* 3.12: fuse_session_loop_mt() takes the v2 loop config we build (with
 * 3.5, the same call reads it as the old v1 struct and the thread pool
 * churns: a new thread per request) */
#define FUSE_USE_VERSION 312

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "libloop.h"

/* The one file in the mount, and the largest request we negotiate. */
#define CLF_FILE_NAME	"data"
#define CLF_ROOT_INO	1
#define CLF_FILE_INO	2
#define CLF_MAX_IO	(1u << 20)

struct clf {
	int img_fd;
	const char *image;		/* its path, for the log */
	uint64_t offset;		/* where the device's data starts in the image */
	uint64_t sizelimit;		/* 0: up to the image's end */
	/* bytes exposed, a multiple of 512; "losetup -c" changes it */
	_Atomic uint64_t size;
	bool read_only;
	struct loop_crypt *crypt;		/* NULL: passthrough */
	struct fuse_session *se;
	atomic_int opens;		/* open FUSE files; the loop device holds one */
	atomic_bool opened;		/* the loop device (or anyone) has opened it */
	pthread_mutex_t rmw_lock;	/* serialises partial-sector writes */
	/* a helper thread shares the cipher work of big requests */
	struct clf_helper *helper;
	atomic_uint busy;		/* reads and writes in progress */
	/* the image mapped for reading (map.c); NULL: pread() only */
	void *map_base;
	size_t map_total;
	const char *map;		/* the view's byte 0 */
	uint64_t map_len;		/* view bytes mapped: the size at start */
	size_t map_page;
	bool map_decrypt;		/* decrypt straight from the mapping */
};

/* ops.c */
extern const struct fuse_lowlevel_ops clf_ops;

/* io.c: read and decrypt (@write false) or encrypt and write whole
 * sectors [@pos, @pos + @len) of the device through @buf, which is
 * scratch afterwards when writing; big ranges use both cores.
 * Returns 0 or -errno of the image's I/O. */
int clf_io(struct clf *c, bool write, char *buf, uint64_t pos, size_t len);
int clf_helper_start(struct clf *c);
void clf_helper_stop(struct clf *c);

/* map.c: map the image for reads (best effort: without it, pread());
 * read whole sectors [@pos, @pos + @len) of the view through the mapping,
 * decrypted, into @buf: 0, -EIO (the page is gone or unreadable) or
 * -errno of the cipher */
void clf_map_setup(struct clf *c, bool locked_on_fault);
void clf_map_release(struct clf *c);
bool clf_map_covers(const struct clf *c, uint64_t pos, size_t len);
int clf_map_read(struct clf *c, char *buf, uint64_t pos, size_t len);

/* size.c: the view's size from the image's now, -errno (-ERANGE: not
 * one whole sector past @offset); refreshing c->size from it */
int clf_view_size(int img_fd, uint64_t offset, uint64_t sizelimit, uint64_t *size);
void clf_refresh_size(struct clf *c);
/* swap-guard.c: true (and logged) when this write would put a swap
 * signature on the device: swap over the daemon can deadlock. */
bool clf_refuse_swap_write(const char *image, const char *data, uint64_t pos, size_t size);

/* signals.c: ignore shutdown's signals; our own exit request; the pid
 * in /run/sendsigs.omit.d */
int clf_signals_setup(struct fuse_session *se);
void clf_request_exit(void);
void clf_omit_register(void);
void clf_omit_unregister(void);

#endif
