// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mount helper sets devices up through libloop's loop_attach(), the
 * call losetup -e makes, so that every engine, key derivation and
 * passphrase rule lives in one place. The passphrase and the key stay
 * in libloop's locked memory and are wiped before it returns.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blkid.h>
#include <libloop.h>

#include "device.h"
#include "messages.h"
#include "cli/size.h"

/* libloop's warnings name no option: told as they are */
static void tell_warning(const char *text, void *where)
{
	fprintf(stderr, "%s: %s%s%s\n", program_invocation_short_name,
		where ? (const char *)where : "", where ? ": " : "", text);
}

/* offset= and sizelimit=, with losetup's words for a bad number */
static int size_opt(const char *name, const char *arg, uint64_t *v, struct loop_attach_msg *m)
{
	int rc = loop_parse_size(arg, v);

	if (rc) {
		snprintf(m->text, sizeof(m->text), "failed to parse %s: '%s': %s",
			 !strcmp(name, "offset") ? "offset" : "size", arg, strerror(-rc));
		m->option = name;
	}
	return rc;
}

/* The options of @req as loop_attach() takes them. */
static int fill_opts(struct loop_attach_opts *o, const struct mount_request *req,
		     const char *image, struct loop_attach_msg *m)
{
	size_t i;
	int rc = 0;

	loop_attach_opts_init(o);
	o->image = image;
	o->pass_fd = req->passfd;
	o->keyfile_fd = req->keyfd;
	if (req->readonly)
		o->lo_flags |= LO_FLAGS_READ_ONLY;
	/* pairs of losetup's long option ("--keybits") and its value */
	for (i = 0; rc == 0 && i + 1 < req->nargs; i += 2) {
		const char *name = req->losetup_args[i] + 2, *arg = req->losetup_args[i + 1];

		if (!strcmp(name, "offset"))
			rc = size_opt(name, arg, &o->offset, m);
		else if (!strcmp(name, "sizelimit"))
			rc = size_opt(name, arg, &o->sizelimit, m);
		else if (loop_attach_opt_set(o, name, arg, m) == 1)
			rc = -EINVAL;	/* the option table names no other */
	}
	return rc;
}

/* cipher=none: a plain loop device, as losetup gives one. */
static int attach_plain(struct loopdev *ld, const struct loop_attach_opts *o,
			struct loop_attach_msg *m)
{
	struct loopdev_config cfg = {
		.backing_file = o->image,
		.backing_fd = -1,
		.offset = o->offset,
		.sizelimit = o->sizelimit,
		.lo_flags = o->lo_flags,
	};
	int rc = loopdev_attach_free(ld, LOOPDEV_KIND_LOOP, &cfg, NULL);

	if (rc && !loopdev_get_path(ld))
		snprintf(m->text, sizeof(m->text), "cannot find an unused loop device");
	else if (rc)
		snprintf(m->text, sizeof(m->text), "%s: failed to set up loop device: %s",
			 o->image, strerror(-rc));
	return rc;
}

int device_setup(const struct mount_request *req, const char *image, char **device,
		 const char *where)
{
	struct loop_attach_opts o;
	struct loop_attach_msg m = { .text = "" };
	struct loopdev *ld;
	char shown[PATH_MAX];
	int rc = loopdev_new(&ld);

	if (rc)
		return rc;
	if (req->device) {
		rc = loopdev_set_device(ld, req->device);
		if (rc) {
			loopdev_free(ld);
			return rc;
		}
	}
	rc = fill_opts(&o, req, image, &m);
	o.warn = tell_warning;
	o.warn_data = (void *)where;
	if (!rc) {
		rc = loop_attach(ld, &o, shown, sizeof(shown), &m);
		if (rc == 1) {
			rc = attach_plain(ld, &o, &m);
			if (!rc)
				snprintf(shown, sizeof(shown), "%s", loopdev_get_path(ld));
		}
	}
	loopdev_free(ld);
	if (rc) {
		if (*m.text)
			tell_in_fstab_words(where, &m);
		return rc;
	}
	*device = strdup(shown);
	return *device ? 0 : -ENOMEM;
}

int device_teardown(const char *device)
{
	return loop_device_detach(device);
}

int device_image(const char *device, char **image)
{
	return loop_device_image(device, image);
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
