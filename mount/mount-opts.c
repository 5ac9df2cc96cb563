// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Option table of the cryptoloop mount helper. Names follow the old
 * "encryption=" world where libmount lets them through; where libmount
 * would act on a name itself ("offset=", "sizelimit=" make it set up a
 * plain loop device, "encryption=" is stripped) the fstab form uses a
 * crypt_ name and the legacy one still works wherever the helper sees it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmount.h>

#include "mount-opts.h"

const struct mopt_desc mopt_table[] = {
	{ "cipher",          "encryption", MOPT_LOSETUP,  "-e",   true },
	{ "keybits",         NULL,         MOPT_LOSETUP,  "-k",   true },
	{ "phash",           NULL,         MOPT_LOSETUP,  "-H",   true },
	{ "pseed",           NULL,         MOPT_LOSETUP,  "-S",   true },
	{ "itercountk",      NULL,         MOPT_LOSETUP,  "-C",   true },
	{ "gpgkey",          NULL,         MOPT_LOSETUP,  "-K",   true },
	{ "gpghome",         NULL,         MOPT_LOSETUP,  "-G",   true },
	{ "loinit",          NULL,         MOPT_LOSETUP,  "-I",   true },
	{ "crypt_offset",    "offset",     MOPT_LOSETUP,  "-o",   true },
	{ "crypt_sizelimit", "sizelimit",  MOPT_LOSETUP,  "--sizelimit", true },
	{ "engine",          NULL,         MOPT_LOSETUP,  "--engine", true },
	{ "keyfile",         NULL,         MOPT_LOSETUP,  "--cleartext-keyfile", true },
	{ "passfd",          NULL,         MOPT_PASSFD,   "-p",   true },
	{ "fstype",          NULL,         MOPT_FSTYPE,   NULL,   true },
	{ "ro",              NULL,         MOPT_READONLY, "-r",   false },
};

const size_t mopt_table_size = sizeof(mopt_table) / sizeof(mopt_table[0]);

void mopt_init(struct mount_request *req)
{
	memset(req, 0, sizeof(*req));
	req->passfd = -1;
}

void mopt_free(struct mount_request *req)
{
	size_t i;

	for (i = 0; i < req->nargs; i++)
		free(req->losetup_args[i]);
	free(req->fstype);
	free(req->fs_options);
	mopt_init(req);
}

bool mopt_given(const struct mount_request *req, const char *name)
{
	size_t i;

	for (i = 0; i < mopt_table_size; i++)
		if (!strcmp(mopt_table[i].name, name))
			return req->seen & (1UL << i);
	return false;
}

static const struct mopt_desc *lookup(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < mopt_table_size; i++) {
		const struct mopt_desc *d = &mopt_table[i];

		if ((strlen(d->name) == len && !strncmp(d->name, name, len)) ||
		    (d->legacy && strlen(d->legacy) == len && !strncmp(d->legacy, name, len)))
			return d;
	}
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

static int take(struct mount_request *req, const struct mopt_desc *d,
		const char *val, size_t vlen)
{
	int rc;

	switch (d->target) {
	case MOPT_LOSETUP:
		rc = push_arg(req, d->losetup, strlen(d->losetup));
		return rc ? rc : push_arg(req, val, vlen);
	case MOPT_PASSFD:
		return parse_fd(val, vlen, &req->passfd);
	case MOPT_FSTYPE:
		req->fstype = strndup(val, vlen);
		return req->fstype ? 0 : -ENOMEM;
	case MOPT_READONLY:
		req->readonly = true;
		return mnt_optstr_append_option(&req->fs_options, "ro", NULL);
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
		const struct mopt_desc *d = lookup(name, nlen);
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
		bit = 1UL << (d - mopt_table);
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
