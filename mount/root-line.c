// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The root line of cryptoloop-unlock: found in an fstab, its
 * x-cryptoloop.* options read and checked, and printed for the initramfs
 * scripts' eval.  Every message names the line.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <libmount.h>

#include "root-line.h"
#include "xopts.h"

/* fstab's field, or the first field's device: a shell word for eval */
static void put_value(const char *name, const char *value)
{
	const char *p;

	printf("%s='", name);
	for (p = value ? value : ""; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*p);
	}
	puts("'");
}

/* The value of losetup long option @opt among the request's arguments. */
char **root_line_arg(struct mount_request *req, const char *opt)
{
	size_t i;

	for (i = 0; i + 1 < req->nargs; i += 2)
		if (!strcmp(req->losetup_args[i], opt))
			return &req->losetup_args[i + 1];
	return NULL;
}

int root_line_push_arg(struct mount_request *req, const char *a, const char *b)
{
	if (req->nargs + 2 >= sizeof(req->losetup_args) / sizeof(req->losetup_args[0]))
		return -E2BIG;
	req->losetup_args[req->nargs] = strdup(a);
	req->losetup_args[req->nargs + 1] = strdup(b);
	req->nargs += 2;
	return req->losetup_args[req->nargs - 2] && req->losetup_args[req->nargs - 1] ?
	       0 : -ENOMEM;
}

int root_line_error(const struct root_line *l, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", program_invocation_short_name, l->where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* The first line of @fstab for @target with x-cryptoloop.source=. */
struct libmnt_fs *root_line_find(struct libmnt_table *tb, const char *target)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs, *found = NULL;

	if (!it)
		return NULL;
	while (!found && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *opts = mnt_fs_get_options(fs);

		if (mnt_fs_get_target(fs) && !strcmp(mnt_fs_get_target(fs), target) && opts &&
		    strstr(opts, XOPT_PREFIX "source="))
			found = fs;
	}
	mnt_free_iter(it);
	return found;
}

static int parse_timeout(const struct root_line *l, const char *v, unsigned int *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (!*v || *end || errno || n > 3600 || *v == '-' || *v == '+')
		return root_line_error(l, "x-cryptoloop.keydev-timeout=%s: not a number of "
				  "seconds from 0 to 3600", v);
	*out = (unsigned int)n;
	return 0;
}

/* Read and check the line's options into @l; messages name the line. */
int root_line_read(struct root_line *l, struct libmnt_fs *fs)
{
	char *ours = NULL, *bad = NULL, **v;
	int rc = -1;

	l->device = mnt_fs_get_source(fs);
	l->fstype = mnt_fs_get_fstype(fs);
	if (!l->device || !l->fstype)
		return root_line_error(l, "the line needs a device and a filesystem type");
	if (xopts_collect(mnt_fs_get_options(fs), &l->source, &ours) < 0)
		return root_line_error(l, "x-cryptoloop.source= is empty or repeated");
	if (mopt_parse(&l->req, ours, &bad) < 0) {
		root_line_error(l, "bad option x-cryptoloop.%s (unknown value, missing or repeated)",
			   bad ? bad : "?");
		goto out;
	}
	if (l->req.fs_options || l->req.fstype || l->req.readonly) {
		root_line_error(l, "x-cryptoloop.%s is not an encryption option",
			   l->req.fs_options ? l->req.fs_options :
			   l->req.fstype ? "fstype=" : "ro");
		goto out;
	}
	if (l->req.passfd >= 0) {
		root_line_error(l, "x-cryptoloop.passfd= has no meaning at boot: the passphrase "
			   "is asked for");
		goto out;
	}
	if (!mopt_given(&l->req, "cipher")) {
		root_line_error(l, "no cipher: add x-cryptoloop.encryption=NAME");
		goto out;
	}
	v = root_line_arg(&l->req, "--phash");
	if (v && !strcasecmp(*v, "random")) {
		root_line_error(l, "x-cryptoloop.phash=random: a new key on every boot "
			   "cannot hold a filesystem");
		goto out;
	}
	v = root_line_arg(&l->req, "--engine");
	l->engine = v ? *v : "auto";
	if (!strcasecmp(l->engine, "fuse") || !strcasecmp(l->engine, "xfer")) {
		root_line_error(l, "x-cryptoloop.engine=%s: only kmod or dm can hold a root "
			   "filesystem (%s)", l->engine, !strcasecmp(l->engine, "fuse") ?
			   "the FUSE daemon does not outlive the initramfs" :
			   "xfer is a loop-AES module the kernel must carry");
		goto out;
	}
	if (strcasecmp(l->engine, "kmod") && strcasecmp(l->engine, "dm") &&
	    strcasecmp(l->engine, "auto")) {
		root_line_error(l, "x-cryptoloop.engine=%s: kmod, dm or auto", l->engine);
		goto out;
	}
	v = root_line_arg(&l->req, "--gpgkey");
	l->gpgkey = v ? *v : NULL;
	v = root_line_arg(&l->req, "--cleartext-keyfile");
	l->keyfile = v ? *v : NULL;
	/* libloop would read keyfile= and ignore gpgkey=, and only one of
	 * them would be looked for on the key device */
	if (l->gpgkey && l->keyfile) {
		root_line_error(l, "x-cryptoloop.gpgkey= and x-cryptoloop.keyfile= both name "
				"the key file: give one");
		goto out;
	}
	l->keydev_timeout = KEYDEV_TIMEOUT_SEC;
	if (l->req.keydev_timeout && parse_timeout(l, l->req.keydev_timeout,
						   &l->keydev_timeout) < 0)
		goto out;
	if (l->req.keydev && !l->gpgkey && !l->keyfile) {
		root_line_error(l, "x-cryptoloop.keydev= names where the key file is: add "
			   "x-cryptoloop.gpgkey= or x-cryptoloop.keyfile=");
		goto out;
	}
	if (l->req.keydev && ((l->gpgkey && *l->gpgkey != '/') ||
			      (l->keyfile && *l->keyfile != '/'))) {
		root_line_error(l, "with x-cryptoloop.keydev= the key file is an absolute "
			   "path on that device");
		goto out;
	}
	rc = 0;
out:
	free(ours);
	free(bad);
	return rc;
}

void root_line_print(const struct root_line *l)
{
	char timeout[16];

	snprintf(timeout, sizeof(timeout), "%u", l->keydev_timeout);
	put_value("device", l->device);
	put_value("fstype", l->fstype);
	put_value("source", l->source);
	put_value("engine", l->engine);
	put_value("gpgkey", l->gpgkey);
	put_value("keyfile", l->keyfile);
	put_value("keydev", l->req.keydev);
	put_value("keydev_timeout", timeout);
}
