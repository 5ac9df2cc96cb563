// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mount helper sets devices up by running losetup, so that every
 * engine, key derivation and passphrase rule lives in one place, and
 * the helper never holds a key itself.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>
#include <blkid.h>

#include "device.h"

/* The test suite's losetup; never when we run setuid (secure_getenv):
 * the user must not choose what runs as root with the passphrase. */
const char *losetup_path(void)
{
	const char *p = secure_getenv("CRYPTOLOOP_LOSETUP");

	return p && *p ? p : LOSETUP_PATH;
}

/* Setuid-invoked, losetup runs with a clean environment: the user's
 * CRYPTOLOOP_FUSE_DAEMON, LIBLOOP_DEBUG or LD_* must not reach it. */
static void exec_losetup(char *const argv[])
{
	static char *const clean[] = { (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };

	if (getauxval(AT_SECURE))
		execve(losetup_path(), argv, clean);
	else
		execv(losetup_path(), argv);
}

/* Run losetup with @argv; its stdout (one line) into *out when asked,
 * its stderr to @errfd when that is not -1. */
static int run_losetup(char *const argv[], char **out, int errfd)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	int pipefd[2] = { -1, -1 };
	int status;
	pid_t pid;

	if (out && pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int rc = -errno;

		if (out) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return rc;
	}
	if (pid == 0) {
		if (out && dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(127);
		if (errfd >= 0 && dup2(errfd, STDERR_FILENO) < 0)
			_exit(127);
		exec_losetup(argv);
		fprintf(stderr, "mount.cryptoloop: cannot run %s: %s\n",
			losetup_path(), strerror(errno));
		_exit(127);
	}
	if (out) {
		close(pipefd[1]);
		while ((n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)n;
		close(pipefd[0]);
		buf[len] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return 128;
	if (WEXITSTATUS(status) == 0 && out) {
		*out = strdup(buf);
		if (!*out)
			return -ENOMEM;
	}
	return WEXITSTATUS(status);
}

int device_setup(const struct mount_request *req, const char *image, char **device,
		 int errfd)
{
	char *argv[80], fdbuf[16];
	size_t n = 0, i;

	argv[n++] = (char *)"losetup";
	argv[n++] = (char *)"--show";
	argv[n++] = (char *)"-f";
	for (i = 0; i < req->nargs; i++)
		argv[n++] = req->losetup_args[i];
	if (req->readonly)
		argv[n++] = (char *)"--read-only";
	if (req->passfd >= 0) {
		snprintf(fdbuf, sizeof(fdbuf), "%d", req->passfd);
		argv[n++] = (char *)"--pass-fd";
		argv[n++] = fdbuf;
	}
	argv[n++] = (char *)image;
	argv[n] = NULL;
	return run_losetup(argv, device, errfd);
}

int device_teardown(const char *device)
{
	char *argv[] = { (char *)"losetup", (char *)"-d", (char *)device, NULL };

	return run_losetup(argv, NULL, -1);
}

int device_image(const char *device, char **image)
{
	char *argv[] = { (char *)"losetup", (char *)"--list", (char *)"--noheadings",
			 (char *)"--output", (char *)"BACK-FILE", (char *)device, NULL };
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	/* a device that is not ours, or no loop device at all: no image */
	rc = run_losetup(argv, image, devnull);
	if (devnull >= 0)
		close(devnull);
	if (rc == 0 && !**image) {
		free(*image);
		rc = 1;
	}
	return rc;
}

int device_probe_fstype(const char *device, char **type)
{
	const char *value = NULL;
	blkid_probe pr;
	int rc;

	/* read-only: a wrong key must never lead to a write */
	pr = blkid_new_probe_from_filename(device);
	if (!pr)
		return errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0 && blkid_probe_lookup_value(pr, "TYPE", &value, NULL) == 0 && value) {
		*type = strdup(value);
		rc = *type ? 0 : -ENOMEM;
	} else if (rc == 1 || rc == -2) {
		/* 1: nothing found; -2: ambiguous, which garbage can also be */
		rc = 1;
	} else {
		rc = -EIO;
	}
	blkid_free_probe(pr);
	return rc;
}
