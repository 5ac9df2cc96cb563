/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CRYPTOLOOP_KEYDEV_H
#define CRYPTOLOOP_KEYDEV_H

#include "root-line.h"

/* the key device's mount point: a dot name, which libloop's walk over
 * its records in the same directory passes by */
#define KEYDEV_DIR_TEMPLATE	LOOP_STATE_DIR "/.keydev-XXXXXX"

struct keydev {
	char dir[sizeof(KEYDEV_DIR_TEMPLATE)];
	bool made, mounted;
	int fd;			/* the key file, -1: not open */
};

#define KEYDEV_INIT { .made = false, .mounted = false, .fd = -1 }

/*
 * @spec (TAG=value or a path) as a path, waiting up to @timeout seconds
 * for it after saying so once (@what names it); NULL when it never came.
 */
char *wait_for_device(const char *spec, unsigned int timeout, const char *what);
/* Wait for @l's key device, mount it read-only, open the key file on it
 * for the request (the option's value then only names it). 0, or -1
 * (told). */
int keydev_mount(struct root_line *l, struct keydev *k);
/* Undo keydev_mount(), as far as it went. */
void keydev_release(const struct root_line *l, struct keydev *k);

#endif
