// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "losetup -e": attach with the key options through loop_attach(), which
 * reads the secret, derives the key and picks the engine, and print its
 * message on failure; and what listing and detaching need of the records.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uapi/cryptoloop_abi.h"
#include "losetup.h"


bool crypt_is_luks(const char *name)
{
	return name && loop_luks_version(name) >= 0;
}

int list_ciphers(void)
{
	const struct loop_cipher_info *list;
	int i, n = loop_cipher_list(&list);

	for (i = 0; i < n; i++)
		printf("%-16s %s\n", list[i].name, list[i].description);
	n = loop_luks_names(&list);
	for (i = 0; i < n; i++)
		printf("%-16s %s\n", list[i].name, list[i].description);
	return 0;
}

static void print_warning(const char *text, void *data)
{
	(void)data;
	warnx("%s", text);
}

int create_encrypted(struct loopdev *ld, const struct create_opts *c,
		     const struct loop_attach_opts *k, char *shown, size_t size)
{
	struct loop_attach_opts o = *k;
	struct loop_attach_msg m;
	int rc;

	o.image = c->file;
	o.ref = c->refname;
	o.offset = c->offset;
	o.sizelimit = c->sizelimit;
	o.lo_flags = c->lo_flags;
	o.block_size = (uint32_t)c->blocksize;
	o.warn = print_warning;
	rc = loop_attach(ld, &o, shown, size, &m);
	if (rc == 1)		/* "-e none" */
		return create_loop(ld, c);
	if (rc)
		warnx("%s", m.text);
	return rc;
}

static int warn_corrupt(const char *path, void *data)
{
	(void)data;
	warnx("%s: corrupt record, left alone (its device, daemon and mount "
	      "are not touched; remove it by hand once they are gone)", path);
	return 0;
}

void crypt_gc(void)
{
	loop_state_gc();
	loop_state_foreach_corrupt(warn_corrupt, NULL);
}

const struct loop_state *crypt_state(struct loopdev *ld)
{
	static struct loop_state *st;
	static char cached[64];
	static int found;

	if (!st && loop_state_new(&st))
		err(EXIT_FAILURE, "failed to allocate a record");
	/* one lookup per device per listing */
	if (strcmp(cached, loopdev_get_path(ld))) {
		snprintf(cached, sizeof(cached), "%s", loopdev_get_path(ld));
		found = loop_state_lookup(ld, st) == 0;
	}
	return found ? st : NULL;
}

int resize_device(struct loopdev *ld, const struct loop_attach_opts *k)
{
	struct loop_attach_msg m;
	int rc = loop_device_resize(ld, k, &m);

	if (rc)
		warnx("%s", m.text);
	return rc;
}

bool crypt_unlock_only(const struct loop_attach_opts *k)
{
	struct loop_attach_opts rest = *k;

	rest.pass_fd = -1;
	rest.cleartext = NULL;
	rest.header = NULL;
	rest.allow_empty = false;
	return !loop_attach_requested(&rest);
}

const char *crypt_multikey_name(const struct loop_state *cs)
{
	switch (loop_state_get_key_count(cs)) {
	case CLO_MULTI_KEYS:
		return "multi-key-v2";
	case CLO_MULTI_KEYS_V3:
		return "multi-key-v3";
	default:
		return NULL;
	}
}

const char *crypt_device_name(struct loopdev *ld)
{
	const struct loop_state *cs = crypt_state(ld);

	return cs ? loop_state_get_device(cs) : loopdev_get_path(ld);
}

int detach_device(struct loopdev *ld)
{
	int rc = loop_engine_detach(ld);

	if (rc == -ENOENT)
		rc = loopdev_detach(ld);
	if (rc) {
		errno = -rc;
		warn("%s: detach failed", loopdev_get_path(ld));
	}
	return rc;
}
