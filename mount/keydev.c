// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Devices cryptoloop-unlock waits for at boot (udev may still be making
 * their links), and the key device: mounted read-only on a private
 * directory for the time of the unlock.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <blkid.h>
#include <libloop-engine.h>

#include "device.h"
#include "keydev.h"
#include "keyfile.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* @spec (TAG=value or a path) as a path that exists, or NULL. */
static char *resolve(const char *spec)
{
	char *path = blkid_evaluate_spec(spec, NULL);

	if (path && access(path, F_OK) < 0) {
		free(path);
		path = NULL;
	}
	return path;
}

/*
 * @spec as a path, waiting up to @timeout seconds for it to appear (udev
 * may still be making the disk's links) after saying so once: @what
 * names it for that message.
 */
char *wait_for_device(const char *spec, unsigned int timeout, const char *what)
{
	double end = now() + timeout;
	char *path = resolve(spec);

	if (path || !timeout)
		return path;
	fprintf(stderr, "%s: waiting up to %u s for %s\n", program_invocation_short_name,
		timeout, what);
	while (!path && now() < end) {
		struct timespec half = { 0, 500000000L };

		nanosleep(&half, NULL);
		path = resolve(spec);
	}
	return path;
}

void keydev_release(const struct root_line *l, struct keydev *k)
{
	/* an open file keeps the mount busy */
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	if (k->mounted && umount2(k->dir, 0) < 0)
		root_line_error(l, "cannot unmount the key device from %s: %s", k->dir,
			   strerror(errno));
	else if (k->made && rmdir(k->dir) < 0)
		root_line_error(l, "cannot remove %s: %s", k->dir, strerror(errno));
}

/*
 * Wait for the key device, mount it read-only on a private directory, and
 * open the key file on it for libloop: by descriptor, since a path would
 * be opened again, following whatever the stick put there.
 */
int keydev_mount(struct root_line *l, struct keydev *k)
{
	const char *key = l->gpgkey ? l->gpgkey : l->keyfile;
	char what[PATH_MAX + 200], why[200], *dev, *type = NULL, *path, **v;
	int rc;

	snprintf(what, sizeof(what), "the key device %s holding %s for %s", l->req.keydev,
		 key, l->target);
	dev = wait_for_device(l->req.keydev, l->keydev_timeout, what);
	if (!dev)
		return root_line_error(l, "the key device %s did not appear within %u s",
				  l->req.keydev, l->keydev_timeout);
	rc = device_probe_fstype(dev, &type);
	if (rc) {
		root_line_error(l, "key device %s (%s): %s", l->req.keydev, dev,
			   rc > 0 ? "no filesystem found" : strerror(-rc));
		goto out;
	}
	if (mkdir(LOOP_STATE_DIR, 0700) < 0 && errno != EEXIST) {
		rc = root_line_error(l, "cannot make %s: %s", LOOP_STATE_DIR, strerror(errno));
		goto out;
	}
	memcpy(k->dir, KEYDEV_DIR_TEMPLATE, sizeof(k->dir));
	if (!mkdtemp(k->dir)) {
		rc = root_line_error(l, "cannot make a directory in %s: %s", LOOP_STATE_DIR,
				strerror(errno));
		goto out;
	}
	k->made = true;
	if (mount(dev, k->dir, type, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		rc = root_line_error(l, "cannot mount the key device %s (%s, %s) read-only: %s",
				l->req.keydev, dev, type, strerror(errno));
		goto out;
	}
	k->mounted = true;
	k->fd = keyfile_open(k->dir, key, why, sizeof(why));
	if (k->fd < 0) {
		rc = root_line_error(l, "key device %s (%s): the key file %s: %s", l->req.keydev,
				     dev, key, why);
		goto out;
	}
	l->req.keyfd = k->fd;
	/* the option's value names the file in libloop's messages */
	v = root_line_arg(&l->req, l->gpgkey ? "--gpgkey" : "--cleartext-keyfile");
	if (asprintf(&path, "%s%s", k->dir, key) < 0) {
		rc = root_line_error(l, "%s", strerror(ENOMEM));
		goto out;
	}
	free(*v);
	*v = path;
	rc = 0;
out:
	free(type);
	free(dev);
	return rc;
}
