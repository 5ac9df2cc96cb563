/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CRYPTOLOOP_ROOT_LINE_H
#define CRYPTOLOOP_ROOT_LINE_H

#include <libmount.h>

#include "mount-opts.h"

#define KEYDEV_TIMEOUT_SEC	30

struct root_line {
	const char *fstab;
	const char *target;
	char *where;		/* "FSTAB:N", or "FSTAB: the line of TARGET" */
	const char *device;	/* first field */
	const char *fstype;	/* third field */
	char *source;
	const char *engine;	/* "auto" when not given */
	const char *gpgkey, *keyfile;
	unsigned int keydev_timeout;
	struct mount_request req;
};

/* The first line of the table for @target with x-cryptoloop.source=, or NULL. */
struct libmnt_fs *root_line_find(struct libmnt_table *tb, const char *target);
/* Read and check @fs's options into @l. 0, or -1 (told, naming the line). */
int root_line_read(struct root_line *l, struct libmnt_fs *fs);
/* --check: the line as shell name='value' lines on standard output. */
void root_line_print(const struct root_line *l);
/* The message "PROG: LINE: ..." on standard error; returns -1. */
int root_line_error(const struct root_line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The value of losetup long option @opt among the request's, or NULL. */
char **root_line_arg(struct mount_request *req, const char *opt);
/* Add losetup long option @a with value @b to the request. */
int root_line_push_arg(struct mount_request *req, const char *a, const char *b);

#endif
