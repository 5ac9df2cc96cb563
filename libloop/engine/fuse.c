// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The FUSE engine: start cryptoloop-fuse on a private mount point, hand
 * it the key over a socket, wait until it reports the mount ready, then
 * attach a kernel loop device to the one file it serves.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/private.h"
#include "crypto/crypto-internal.h"
#include "engine/engine-private.h"
#include "engine/key-handover.h"
#include "base/spawn.h"

/* The daemon opens the image and mounts in well under a second. */
#define READY_TIMEOUT_MS	30000
/* After the loop device lets go, the daemon unmounts and exits quickly. */
#define EXIT_WAIT_MS		5000

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait up to @ms for @pid (started at @start) to be gone. 1 if gone. */
static int wait_gone(pid_t pid, unsigned long long start, int ms)
{
	long long end = now_ms() + ms;

	while (loop_pid_start(pid) == start) {
		if (now_ms() >= end)
			return 0;
		loop_usleep(10000);
	}
	return 1;
}

static int fuse_alive(const struct loop_state *st)
{
	return st->pid > 0 && loop_pid_start(st->pid) == st->pid_start;
}

/* Wait for the daemon to exit by itself, then TERM, then KILL it. */
static void stop_daemon(const struct loop_state *st)
{
	if (st->pid <= 0 || !st->pid_start)
		return;
	if (wait_gone(st->pid, st->pid_start, EXIT_WAIT_MS))
		return;
	/* the daemon ignores SIGTERM (a shutdown's kill spree must not take
	 * a device's backing away); here nothing holds its file any more */
	kill(st->pid, SIGKILL);
	wait_gone(st->pid, st->pid_start, EXIT_WAIT_MS);
}

void loop_fuse_unmount(const char *mnt)
{
	/* a dead daemon's mount fails stat() with ENOTCONN: still unmount it */
	if (umount2(mnt, UMOUNT_NOFOLLOW) < 0 && errno == EBUSY)
		umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW);
}

/*
 * Start the daemon, detached from us (its own session; init reaps it),
 * with fds 3 (key) and 4 (ready), nothing else, no tty, and none of the
 * caller's environment (LD_*, locale, ... are not for a process that
 * holds the key). Returns the socket for the key, the pipe for
 * readiness, and the daemon's pid (so that one stuck before readiness
 * can be stopped).
 */
static int spawn(const char *daemon, char **argv, int *key_fd, int *ready_fd,
		 pid_t *pid)
{
	/* our own crypto switches are the one setting the daemon inherits:
	 * they pick the cipher path, and the daemon must take the path its
	 * caller would; each goes over as the value libloop read from it */
	char *envp[5] = { (char *)LOOP_SPAWN_PATH };
	char width[48], lanes[48];
	struct loop_spawn_fd fds[2];
	int sv[2], rp[2], rc, n = 1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if (pipe2(rp, O_CLOEXEC) < 0) {
		rc = -errno;
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (getenv("LIBLOOP_CRYPTO_NO_AESNI"))
		envp[n++] = (char *)"LIBLOOP_CRYPTO_NO_AESNI=1";
	if (getenv("LIBLOOP_CRYPTO_AES_WIDTH")) {
		snprintf(width, sizeof(width), "LIBLOOP_CRYPTO_AES_WIDTH=%u", loop_aes_width());
		envp[n++] = width;
	}
	if (getenv("LIBLOOP_CRYPTO_MD5_LANES")) {
		snprintf(lanes, sizeof(lanes), "LIBLOOP_CRYPTO_MD5_LANES=%u", loop_md5_lanes());
		envp[n++] = lanes;
	}
	fds[0] = (struct loop_spawn_fd){ sv[1], 3 };	/* --key-fd 3 */
	fds[1] = (struct loop_spawn_fd){ rp[1], 4 };	/* --ready-fd 4 */
	rc = loop_spawn(daemon, argv, envp, fds, 2, LOOP_SPAWN_DAEMON, pid);
	close(sv[1]);
	close(rp[1]);
	if (rc) {
		close(sv[0]);
		close(rp[0]);
		return rc;
	}
	*key_fd = sv[0];
	*ready_fd = rp[0];
	return 0;
}

/*
 * Read the daemon's one-line report. Returns 0 with its pid and mode, or
 * the -errno it reported (it has exited then).
 */
static int await_ready(int fd, pid_t *pid, int *read_only)
{
	char line[256], mode[8] = "";
	size_t used = 0;
	long long end = now_ms() + READY_TIMEOUT_MS;
	long p;
	int e;

	while (used < sizeof(line) - 1 && !memchr(line, '\n', used)) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		long long left = end - now_ms();
		ssize_t n;

		int ready;

		if (left <= 0)
			return -ETIMEDOUT;
		ready = poll(&pfd, 1, (int)left);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* nothing yet: never block in read() past the deadline */
		if (ready == 0)
			continue;
		n = read(fd, line + used, sizeof(line) - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	line[used] = '\0';
	if (sscanf(line, "OK %ld %7s", &p, mode) == 2) {
		*pid = (pid_t)p;
		*read_only = !strcmp(mode, "ro");
		return 0;
	}
	if (sscanf(line, "ERR %d", &e) == 1 && e > 0)
		return -e;
	return -EPROTO;	/* died without a word */
}

/* Which object a daemon error is about, for the caller's message. */
static enum loop_err_object daemon_err_object(int rc)
{
	switch (rc) {
	case -ENOENT: case -EACCES: case -EROFS: case -ERANGE: case -EISDIR:
	case -EINVAL: case -ENOTDIR: case -ELOOP:
		return LOOP_ERR_IMAGE;
	default:
		return LOOP_ERR_DAEMON;
	}
}

static int start_daemon(const struct loop_engine_config *cfg, struct loop_state *st,
			const char *dir)
{
	char off[32], lim[32];
	const char *daemon = loop_fuse_daemon_path(cfg->fuse_daemon);
	char *argv[20];
	pid_t pid = 0;
	int n = 0, key_fd = -1, ready_fd = -1, ro = 0, rc;

	snprintf(off, sizeof(off), "%ju", (uintmax_t)cfg->offset);
	snprintf(lim, sizeof(lim), "%ju", (uintmax_t)cfg->sizelimit);
	/* '@' first: systemd's mark of a storage daemon that its final
	 * killing spree must spare (the root file system may need it) */
	argv[n++] = (char *)"@cryptoloop-fuse";
	argv[n++] = (char *)"--image";
	argv[n++] = st->image;
	argv[n++] = (char *)"--mountpoint";
	argv[n++] = st->mount;
	argv[n++] = (char *)"--state-dir";
	argv[n++] = (char *)dir;
	argv[n++] = (char *)"--key-fd";
	argv[n++] = (char *)"3";
	argv[n++] = (char *)"--ready-fd";
	argv[n++] = (char *)"4";
	argv[n++] = (char *)"--offset";
	argv[n++] = off;
	argv[n++] = (char *)"--sizelimit";
	argv[n++] = lim;
	if (cfg->lo_flags & LO_FLAGS_READ_ONLY)
		argv[n++] = (char *)"--read-only";
	argv[n] = NULL;

	if (access(daemon, X_OK) < 0)
		return -errno;
	rc = spawn(daemon, argv, &key_fd, &ready_fd, &pid);
	if (rc)
		return rc;
	/* known now, so that a daemon stuck before readiness (a hung NFS
	 * image) is stopped and does not keep the key */
	st->pid = pid;
	st->pid_start = loop_pid_start(pid);
	rc = loop_keymsg_send(key_fd, cfg->spec, cfg->key, cfg->iv_offset);
	close(key_fd);
	/* on a send error the daemon fails too, and says why */
	rc = await_ready(ready_fd, &pid, &ro);
	close(ready_fd);
	if (rc)
		return rc;
	st->pid = pid;
	st->pid_start = loop_pid_start(st->pid);
	st->read_only = ro;
	return 0;
}

/* Put a loop device on the daemon's file; the kernel gets the user's
 * reference, else the real image's name, in lo_file_name, never the
 * daemon's file. */
static int attach_loop(struct loopdev *ld, const struct loop_engine_config *cfg,
		       struct loop_state *st)
{
	struct loopdev_config lc;
	char file[PATH_MAX + 8];
	struct stat sb;
	int fd, rc;

	snprintf(file, sizeof(file), "%s/%s", st->mount, LOOP_FUSE_FILE);
	fd = open(file, (st->read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) == 0) {
		st->fuse_dev = sb.st_dev;
		st->fuse_ino = sb.st_ino;
	}
	memset(&lc, 0, sizeof(lc));
	lc.backing_fd = fd;
	lc.file_name = st->ref[0] ? st->ref : st->image;
	lc.block_size = cfg->block_size;
	/* direct I/O on the FUSE file: the loop driver then submits requests
	 * asynchronously, several at once, which keeps the daemon's threads
	 * (and both cores) busy; and plaintext is not cached twice */
	lc.lo_flags = (cfg->lo_flags & LO_FLAGS_PARTSCAN) | LO_FLAGS_DIRECT_IO |
		      (st->read_only ? LO_FLAGS_READ_ONLY : 0);
	if (loopdev_get_path(ld)) {
		loopdev_ctl_add(ld);	/* create /dev/loopN on demand */
		rc = loopdev_attach(ld, &lc, NULL);
	} else {
		rc = loopdev_attach_free(ld, LOOPDEV_KIND_LOOP, &lc, NULL);
	}
	/* the loop device holds its own reference now */
	close(fd);
	return rc;
}

/* Everything but the loop device: the daemon, then its mount. */
/* Only what the record proves to be its own (see fuse-record.c). */
static void fuse_release(const struct loop_state *st)
{
	char path[64];

	if (loop_state_proves_daemon(st))
		stop_daemon(st);
	/* a daemon killed with -9 could not take its pid out of the
	 * shutdown scripts' spare list: do it, unless that pid runs a
	 * daemon again */
	if (st->pid > 0 && !loop_pid_is_daemon(st->pid)) {
		snprintf(path, sizeof(path), "/run/sendsigs.omit.d/cryptoloop-fuse.%ld",
			 (long)st->pid);
		unlink(path);
	}
	if (st->mount[0] && loop_state_owns_mount(st)) {
		loop_fuse_unmount(st->mount);
		rmdir(st->mount);
	}
}

static int fuse_attach(struct loopdev *ld, const struct loop_engine_config *cfg,
		     struct loop_state *st, enum loop_err_object *errpos)
{
	char dir[sizeof(LOOP_STATE_DIR) + 16];
	int rc;

	if (mkdir(LOOP_STATE_DIR, 0700) < 0 && errno != EEXIST)
		return -errno;
	snprintf(dir, sizeof(dir), "%s/fuse.XXXXXX", LOOP_STATE_DIR);
	if (!mkdtemp(dir))
		return -errno;
	snprintf(st->id, sizeof(st->id), "%s", dir + strlen(LOOP_STATE_DIR) + 1);
	snprintf(st->mount, sizeof(st->mount), "%s/mnt", dir);
	if (mkdir(st->mount, 0700) < 0) {
		rc = -errno;
		rmdir(dir);
		return rc;
	}

	rc = start_daemon(cfg, st, dir);
	if (rc) {
		*errpos = daemon_err_object(rc);
		/* a daemon that reported an error has exited; one that timed
		 * out is stopped */
		if (st->pid > 0)
			stop_daemon(st);
		loop_fuse_unmount(st->mount);
		rmdir(st->mount);
		rmdir(dir);
		return rc;
	}

	rc = attach_loop(ld, cfg, st);
	if (rc) {
		*errpos = LOOP_ERR_DEVICE;
		/* our open file is closed: the daemon sees the release, exits,
		 * unmounts and removes its directory; make sure of it */
		fuse_release(st);
		loop_state_unlink(st);
		return rc;
	}
	snprintf(st->device, sizeof(st->device), "%s", loopdev_get_path(ld));
	rc = loop_state_write(st);
	if (rc) {
		loopdev_detach(ld);
		fuse_release(st);
		loop_state_unlink(st);
		*errpos = LOOP_ERR_NONE;
		return rc;
	}
	return 0;
}

const char *loop_fuse_daemon_path(const char *path)
{
	return path ? path : LIBEXECDIR "/cryptoloop-fuse";
}

static int fuse_probe(const char *fuse_daemon)
{
	if (access("/dev/fuse", R_OK | W_OK) < 0)
		return -ENODEV;
	if (access(loop_fuse_daemon_path(fuse_daemon), X_OK) < 0)
		return -ENOENT;
	return 0;
}

/* The daemon takes any key libloop derives, and none (passthrough). */
static int fuse_takes(const struct loop_cipher_spec *spec, const struct loop_key *key)
{
	(void)spec;
	(void)key;
	return 0;
}

/* The loop device still holds the daemon's file. */
static int fuse_owns(const struct loop_state *st)
{
	struct loopdev *ld;
	char *file = NULL, expect[PATH_MAX + 8];
	int ok = 0;

	if (loopdev_new(&ld))
		return 1;	/* cannot tell: keep the record */
	if (loopdev_set_device(ld, st->device) == 0 &&
	    loopdev_get_backing_file(ld, &file) == 0) {
		dev_t dev = 0;
		ino_t ino = 0;

		snprintf(expect, sizeof(expect), "%s/%s", st->mount, LOOP_FUSE_FILE);
		ok = !strcmp(file, expect);
		/* a lazily unmounted file loses its path, not its identity */
		if (!ok && st->fuse_dev && loopdev_get_backing_dev(ld, &dev, &ino) == 0)
			ok = dev == st->fuse_dev && ino == st->fuse_ino;
	}
	free(file);
	loopdev_free(ld);
	return ok;
}

/*
 * The loop device takes the FUSE file's size from the kernel's inode,
 * which caches the daemon's answer for a day: make the kernel ask again
 * (the daemon then sizes the image anew), then have loop re-read it.
 */
static int fuse_resize(struct loopdev *ld, const struct loop_state *st)
{
	char path[PATH_MAX + 8];
	struct statx stx;

	snprintf(path, sizeof(path), "%s/%s", st->mount, LOOP_FUSE_FILE);
	if (statx(AT_FDCWD, path, AT_STATX_FORCE_SYNC, STATX_SIZE, &stx) < 0)
		return -errno;
	return loopdev_set_capacity(ld);
}

const struct loop_engine_ops loop_engine_fuse_ops = {
	.kind = LOOP_ENGINE_FUSE,
	.probe = fuse_probe,
	.takes = fuse_takes,
	.attach = fuse_attach,
	.resize = fuse_resize,
	.alive = fuse_alive,
	.owns = fuse_owns,
	.release = fuse_release,
};
