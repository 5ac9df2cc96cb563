// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "losetup -e luks": open a LUKS1 or LUKS2 volume (as cryptsetup makes
 * them) through the dm engine, with the passphrase from losetup's usual
 * sources or a key file, and the header in the image or detached
 * (--header). The options of the loop formats that a LUKS header decides
 * itself are refused by name. And the other way round: a loop cipher is
 * not run over a LUKS image, which would attach its ciphertext as garbage.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "losetup.h"
#include "keyopts.h"
#include "luks.h"

bool luks_requested(const struct crypt_opts *k)
{
	return k->encryption && (!strcasecmp(k->encryption, "luks") ||
				 !strcasecmp(k->encryption, "luks1") ||
				 !strcasecmp(k->encryption, "luks2"));
}

/* The first option given that a LUKS header makes meaningless, or NULL. */
static const char *luks_refused(const struct create_opts *c, const struct crypt_opts *k)
{
	if (k->keybits)
		return "--keybits (-k)";
	if (k->phash)
		return "--phash (-H)";
	if (k->gpgkey)
		return "--gpgkey (-K)";
	if (k->gpghome)
		return "--gpghome (-G)";
	if (k->seed)
		return "--pseed (-S)";
	if (k->itercountk)
		return "--itercountk (-C)";
	if (k->loinit >= 0)
		return "--loinit (-I)";
	if (c->offset)
		return "--offset (-o)";
	if (c->sizelimit)
		return "--sizelimit";
	if (c->blocksize)
		return "--sector-size (-b)";
	return NULL;
}

static void report_luks(int rc, enum loop_err_object who, struct loopdev *ld,
			const struct create_opts *c, const struct crypt_opts *k)
{
	const char *hdr = k->header ? k->header : c->file;

	errno = -rc;
	switch (rc) {
	case -EPERM:
		warnx("%s: no LUKS keyslot opens with this %s", c->file,
		      k->cleartext ? "key file" : "passphrase");
		break;
	case -EINVAL:
		warnx("%s: not a %s header", hdr, strcasecmp(k->encryption, "luks") ?
		      k->encryption : "LUKS");
		break;
	case -ENOTSUP:
		warnx("%s: LUKS opens through the dm engine, which this build "
		      "or this system lacks", c->file);
		break;
	case -ENOPKG:
		warnx("%s: LUKS opens through the dm engine, and device-mapper has "
		      "no dm-crypt target here", c->file);
		break;
	case -ENODEV:
		warnx("%s: LUKS opens through the dm engine, and there is no "
		      "device-mapper here (/dev/mapper/control is missing)", c->file);
		break;
	case -EBUSY:
		if (who == LOOP_ERR_IMAGE)
			warnx("%s: the image is already in use (attached read-write, or "
			      "read-only while this would write); --force attaches it anyway",
			      c->file);
		else
			warnx("%s: in use (mounted, swap, or held by another mapping)", c->file);
		break;
	case -EEXIST:
		warnx("%s: a device-mapper device of the name the dm engine "
		      "gives this device exists already", c->file);
		break;
	default:
		if (who == LOOP_ERR_DEVICE && loopdev_get_path(ld))
			warn("%s: failed to set up loop device", loopdev_get_path(ld));
		else
			warn("%s: failed to open the LUKS volume", c->file);
	}
}

int create_luks(struct loopdev *ld, const struct create_opts *c,
		const struct crypt_opts *k, char *shown, size_t size)
{
	struct loop_luks_config luks = { .type = k->encryption, .header = k->header };
	struct loop_engine_config cfg;
	struct loop_cipher_spec spec;
	struct loop_pass *pass = NULL;
	struct loop_state *st = NULL;
	enum loop_err_object who;
	const char *bad = luks_refused(c, k);
	int rc;

	if (bad)
		errx(EXIT_FAILURE, "%s: %s does not apply to LUKS (its header says "
		     "where the data is and how it is encrypted)", c->file, bad);
	if (k->engine && strcasecmp(k->engine, "dm") && strcasecmp(k->engine, "auto"))
		errx(EXIT_FAILURE, "%s: LUKS opens through the dm engine only, not "
		     "--engine %s", c->file, k->engine);
	rc = loop_engine_is_luks(c->file, k->header);
	if (rc < 0) {
		errno = -rc;
		err(EXIT_FAILURE, "%s", k->header ? k->header : c->file);
	}
	if (rc == 0)
		errx(EXIT_FAILURE, "%s: no LUKS header%s", k->header ? k->header : c->file,
		     k->header ? "" : " (a detached one is given with --header)");

	if (k->cleartext) {
		/* cryptsetup's --key-file: the whole file is the passphrase */
		luks.key_file = k->cleartext;
	} else {
		/* one passphrase line, as for the single-key formats */
		if (loop_cipher_spec_parse(&spec, "aes", 0, 0))
			errx(EXIT_FAILURE, "cannot set up the passphrase entry");
		pass = crypt_read_secret_for(k, &spec, "Password: ", false, c->file);
		luks.pass = pass;
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.image = c->file;
	cfg.lo_flags = c->lo_flags;
	cfg.force = k->force;
	cfg.engine = LOOP_ENGINE_DM;
	rc = loop_state_new(&st);
	if (rc == 0)
		rc = loop_engine_attach_luks(ld, &cfg, &luks, st, &who);
	else
		who = LOOP_ERR_IMAGE;
	loop_pass_free(pass);
	if (rc) {
		loop_state_free(st);
		report_luks(rc, who, ld, c, k);
		return rc;
	}
	snprintf(shown, size, "%s", loop_state_get_device(st));
	loop_state_free(st);
	return 0;
}

void luks_refuse_loop_cipher(const struct create_opts *c, const struct crypt_opts *k,
			     bool unencrypted)
{
	if (k->header)
		errx(EXIT_FAILURE, "--header: a detached header is for -e luks only");
	/* the ciphertext of a LUKS volume read as a loop format is garbage */
	if (!unencrypted && !k->force && !c->offset && loop_engine_is_luks(c->file, NULL) == 1)
		errx(EXIT_FAILURE, "%s: has a LUKS header: open it with -e luks, not -e %s "
		     "(--force reads it as %s anyway)", c->file, k->encryption, k->encryption);
}
