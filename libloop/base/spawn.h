/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one way libloop starts a program: the FUSE daemon, gpg. Not
 * installed; exported for the project's own programs (LIBLOOP_PRIVATE).
 */
#ifndef LIBLOOP_SPAWN_H
#define LIBLOOP_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* Descriptor @fd of the caller becomes descriptor @target of the child. */
struct loop_spawn_fd {
	int fd;
	int target;
};

enum {
	/* a daemon: its own session, and a grandchild of the caller that
	 * init reaps; *pid is the daemon's */
	LOOP_SPAWN_DAEMON = 1 << 0,
};

/* The environment a child gets when the caller gives none. */
#define LOOP_SPAWN_PATH "PATH=/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * loop_spawn - run @path with @argv and the environment @envp (NULL: only
 * LOOP_SPAWN_PATH; never the caller's, whose LD_*, locale and the like are
 * not for a program that sees a key or a passphrase).
 *
 * The child has exactly the descriptors of @fds (@nfds of them) at their
 * targets, /dev/null as whichever of 0, 1 and 2 is not among them, and
 * nothing else: every other descriptor is closed, CLOEXEC or not.
 *
 * Returns 0 with the child's pid in *pid once it has executed @path
 * (the caller waits for it unless LOOP_SPAWN_DAEMON), or -errno: the
 * fork's, or the exec's as the child saw it (-ENOENT for a missing
 * program); the child has exited then.
 */
int loop_spawn(const char *path, char *const argv[], char *const envp[],
	       const struct loop_spawn_fd *fds, size_t nfds, unsigned int flags,
	       pid_t *pid);

#endif
