// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * loop_device_resize(): losetup -c in one call. Most devices follow their
 * image by themselves once asked (the engines' resize, or the loop
 * driver's LOOP_SET_CAPACITY). A LUKS2 mapping of the dm engine keeps its
 * volume key in dm-crypt only, loaded through the kernel keyring, so
 * growing it unlocks the volume again: the passphrase (or key file) is
 * read only once the engine has said nothing else stands in the way.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach/attach-msg.h"
#include "base/private.h"
#include "engine/engine-private.h"

/* The options that unlock a LUKS volume again: what -c takes. */
static const char *unlock_option(const struct loop_attach_opts *o)
{
	if (o->header)
		return "--header";
	if (o->cleartext)
		return "--cleartext-keyfile";
	if (o->pass_fd >= 0)
		return "--pass-fd";
	return NULL;
}

static int is_luks_record(const struct loop_state *st)
{
	return st->engine == LOOP_ENGINE_DM && !strncmp(st->cipher, "luks", 4);
}

static int resize_failed(struct loop_attach_msg *m, int rc, struct loopdev *ld,
			 const struct loop_state *st, const struct loop_attach_opts *o,
			 unsigned int targets)
{
	const char *dev = st ? st->device : loopdev_get_path(ld);
	bool luks = st && is_luks_record(st);

	if (rc == -EINPROGRESS && targets > 1)
		return attach_msg(m, rc, NULL, luks ?
				  "%s: not resized: a LUKS2 reencryption is in progress (the "
				  "mapping's table has %u targets); finish it first "
				  "(cryptsetup reencrypt --resume-only)" :
				  "%s: not resized: the mapping's table has %u targets, not the "
				  "one crypt target the dm engine loaded", dev, targets);
	if (rc == -EINPROGRESS && luks)
		return attach_msg(m, rc, NULL, "%s: not resized: its LUKS2 header says a "
				  "reencryption is in progress; finish it first (cryptsetup "
				  "reencrypt --resume-only)", dev);
	if (rc == -ENODATA && luks && o->header)
		return attach_msg(m, rc, "--header", "%s: not the LUKS header of %s",
				  o->header, dev);
	if (rc == -ENODATA && luks)
		return attach_msg(m, rc, "--header", "%s: its LUKS header is not on the "
				  "device under it (a detached header is given with --header)",
				  dev);
	if (rc == -EPERM && luks)
		return attach_msg(m, rc, o->cleartext ? "--cleartext-keyfile" : NULL,
				  "%s: no LUKS keyslot opens with this %s", dev,
				  o->cleartext ? "key file" : "passphrase");
	/* util-linux's words for everything else */
	return attach_msg_errno(m, rc, NULL, "%s: set capacity failed", loopdev_get_path(ld));
}

/* The passphrase line, as -e luks reads it, then the engine again. */
static int resize_with_passphrase(struct loopdev *ld, const struct loop_attach_opts *o,
				  const struct loop_state *st, struct loop_luks_config *luks,
				  unsigned int *targets, struct loop_attach_msg *m)
{
	struct loop_cipher_spec spec;
	struct loop_pass *pass = NULL;
	int rc = loop_cipher_spec_parse(&spec, "aes", 0, 0);

	if (rc)
		return attach_msg_errno(m, rc < 0 ? rc : -EINVAL, NULL, "%s: cannot set up the "
					"passphrase entry", st->device);
	rc = loop_attach_read_secret(o, &spec, "Password: ", false, st->image, &pass, m);
	if (rc)
		return rc;
	luks->pass = pass;
	rc = loop_engine_resize_luks(ld, luks, targets);
	luks->pass = NULL;
	loop_pass_free(pass);
	return rc ? resize_failed(m, rc, ld, st, o, *targets) : 0;
}

LIBLOOP_EXPORT int loop_device_resize(struct loopdev *ld, const struct loop_attach_opts *o,
				      struct loop_attach_msg *m)
{
	struct loop_luks_config luks = { .header = o->header, .key_file = o->cleartext };
	struct loop_state *st = calloc(1, sizeof(*st));
	unsigned int targets = 0;
	int rc;

	m->option = NULL;
	m->text[0] = '\0';
	if (!st)
		return attach_msg_errno(m, -ENOMEM, NULL, "%s: set capacity failed",
					loopdev_get_path(ld));
	rc = loop_state_lookup(ld, st);
	if (rc == -ENOENT) {
		free(st);
		st = NULL;
	} else if (rc) {
		rc = resize_failed(m, rc, ld, NULL, o, 0);
		goto free_state;
	}
	if (unlock_option(o) && !(st && is_luks_record(st))) {
		rc = attach_msg(m, -EINVAL, unlock_option(o), "%s: %s with -c is for a LUKS "
				"mapping of the dm engine, which this is not",
				st ? st->device : loopdev_get_path(ld), unlock_option(o));
		goto free_state;
	}
	if (!st) {
		rc = loopdev_set_capacity(ld);
		if (rc)
			rc = resize_failed(m, rc, ld, NULL, o, 0);
		goto free_state;
	}
	rc = loop_engine_resize_luks(ld, &luks, &targets);
	if (rc == -ENOKEY && !luks.key_file)
		rc = resize_with_passphrase(ld, o, st, &luks, &targets, m);
	else if (rc)
		rc = resize_failed(m, rc, ld, st, o, targets);
free_state:
	free(st);
	return rc;
}
