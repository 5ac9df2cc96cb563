// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options of fstab type "cryptoloop" (the table is fstab-options.c),
 * split into what sets the device up and what goes to the filesystem.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmount.h>

#include "mount-opts.h"

void mopt_init(struct mount_request *req)
{
	memset(req, 0, sizeof(*req));
	req->passfd = -1;
	req->keyfd = -1;
}

void mopt_free(struct mount_request *req)
{
	size_t i;

	for (i = 0; i < req->nargs; i++)
		free(req->losetup_args[i]);
	free(req->fstype);
	free(req->fs_options);
	free(req->keydev);
	free(req->keydev_timeout);
	free(req->device);
	mopt_init(req);
}

bool mopt_given(const struct mount_request *req, const char *name)
{
	size_t i;

	for (i = 0; i < fstab_opts_count; i++)
		if (!strcmp(fstab_opts[i].name, name))
			return req->seen & (1UL << i);
	return false;
}

const char *mopt_unlock_only(const struct mount_request *req)
{
	size_t i;

	for (i = 0; i < fstab_opts_count; i++)
		if (fstab_opts[i].kind == FOPT_UNLOCK && (req->seen & (1UL << i)))
			return fstab_opts[i].name;
	return NULL;
}

static int push_arg(struct mount_request *req, const char *arg, size_t len)
{
	if (req->nargs + 1 >= sizeof(req->losetup_args) / sizeof(req->losetup_args[0]))
		return -E2BIG;
	req->losetup_args[req->nargs] = strndup(arg, len);
	if (!req->losetup_args[req->nargs])
		return -ENOMEM;
	req->nargs++;
	return 0;
}

static int parse_fd(const char *val, size_t len, int *fd)
{
	char buf[16], *end;
	long v;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, val, len);
	buf[len] = '\0';
	v = strtol(buf, &end, 10);
	if (*end || v < 0 || v > 1024)
		return -EINVAL;
	*fd = (int)v;
	return 0;
}

static int take(struct mount_request *req, const struct fstab_opt *d,
		const char *val, size_t vlen)
{
	int rc;

	switch (d->kind) {
	case FOPT_LOSETUP:
		rc = push_arg(req, d->losetup, strlen(d->losetup));
		return rc ? rc : push_arg(req, val, vlen);
	case FOPT_PASSFD:
		return parse_fd(val, vlen, &req->passfd);
	case FOPT_FSTYPE:
		req->fstype = strndup(val, vlen);
		return req->fstype ? 0 : -ENOMEM;
	case FOPT_READONLY:
		req->readonly = true;
		return mnt_optstr_append_option(&req->fs_options, "ro", NULL);
	case FOPT_UNLOCK: {
		char **to = !strcmp(d->name, "keydev") ? &req->keydev : &req->keydev_timeout;

		*to = strndup(val, vlen);
		return *to ? 0 : -ENOMEM;
	}
	}
	return -EINVAL;
}

static char *dup_name(const char *name, size_t len)
{
	return strndup(name, len);
}

int mopt_parse(struct mount_request *req, const char *optstr, char **bad)
{
	char *str, *p, *name, *val;
	size_t nlen, vlen;
	int rc = 0;

	*bad = NULL;
	if (!optstr)
		return 0;
	str = strdup(optstr);
	if (!str)
		return -ENOMEM;
	p = str;
	while (rc == 0 && mnt_optstr_next_option(&p, &name, &nlen, &val, &vlen) == 0) {
		const struct fstab_opt *d = fstab_opt_find(name, nlen);
		unsigned long bit;

		if (!d) {
			char *o = dup_name(name, val ? (size_t)(val + vlen - name) : nlen);

			if (nlen == 6 && !strncmp(name, "nofail", 6))
				req->nofail = true;
			/* "rw" and friends, and the filesystem's own options */
			rc = o ? mnt_optstr_append_option(&req->fs_options, o, NULL) : -ENOMEM;
			free(o);
			continue;
		}
		bit = 1UL << (d - fstab_opts);
		if ((d->has_value && ((req->seen & bit) || !val || !vlen)) ||
		    (!d->has_value && val)) {
			*bad = dup_name(name, val ? (size_t)(val + vlen - name) : nlen);
			rc = -EINVAL;
			break;
		}
		req->seen |= bit;
		rc = take(req, d, val, vlen);
		if (rc == -EINVAL)
			*bad = dup_name(name, val ? (size_t)(val + vlen - name) : nlen);
	}
	free(str);
	return rc;
}
