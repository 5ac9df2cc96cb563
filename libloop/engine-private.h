/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the engine and state sources of libloop; not installed. */
#ifndef LIBLOOP_ENGINE_PRIVATE_H
#define LIBLOOP_ENGINE_PRIVATE_H

#include <stddef.h>
#include <sys/types.h>

#include "libloop.h"

/* The file the daemon serves, inside its mount point. */
#define LOOP_FUSE_FILE "data"

/* state.c */
int loop_boot_id(char *buf, size_t size);
unsigned long long loop_pid_start(pid_t pid);
int loop_state_read(const char *id, struct loop_state *st);
int loop_state_format(const struct loop_state *st, char *buf, size_t size);
int loop_state_parse(struct loop_state *st, const char *buf, size_t len);
int loop_state_proves_daemon(const struct loop_state *st);
int loop_state_write(const struct loop_state *st);
int loop_state_is_stale(const struct loop_state *st);
/* stop the daemon, unmount, remove the record and its directory */
void loop_state_remove(const struct loop_state *st);

/* engine-fuse.c */
int loop_fuse_attach(struct loopdev *ld, const struct loop_engine_config *cfg,
		     struct loop_state *st, enum loop_err_object *errpos);
/* wait for the daemon to exit by itself, then TERM, then KILL it */
void loop_fuse_stop_daemon(const struct loop_state *st);
/* unmount @mnt if something is mounted there (a dead FUSE mount too) */
void loop_fuse_unmount(const char *mnt);
/* @path, or the installed daemon */
const char *loop_fuse_daemon_path(const char *path);

/* engine-kmod.c */
/* @stock_loop: the xfer engine, /dev/loopN with cryptoloop_xfer (<= 5.15) */
int loop_kmod_attach(struct loopdev *ld, const struct loop_engine_config *cfg,
		     struct loop_state *st, int stock_loop);

#endif
