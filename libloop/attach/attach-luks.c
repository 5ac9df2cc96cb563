// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * loop_attach() with -e luks, luks1 or luks2: a LUKS1 or LUKS2 volume (as
 * cryptsetup makes them) opened through the dm engine, with the
 * passphrase from the usual sources or a key file, and the header in the
 * image or detached (--header). The options of the loop formats that a
 * LUKS header decides itself are refused by name. And the other way
 * round: a loop cipher is not run over a LUKS image, which would attach
 * its ciphertext as garbage.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "attach/attach-luks.h"
#include "attach/attach-msg.h"
#include "base/private.h"
#include "engine/engine-private.h"

bool attach_luks_requested(const struct loop_attach_opts *o)
{
	return o->encryption && loop_luks_version(o->encryption) >= 0;
}

/* The first option given that a LUKS header makes meaningless ("--keybits"),
 * and the words losetup names it with; NULL if none. */
static const char *refused(const struct loop_attach_opts *o, const char **words)
{
	static const char *const names[][2] = {
		{ "--keybits", "--keybits (-k)" },
		{ "--phash", "--phash (-H)" },
		{ "--gpgkey", "--gpgkey (-K)" },
		{ "--gpghome", "--gpghome (-G)" },
		{ "--pseed", "--pseed (-S)" },
		{ "--itercountk", "--itercountk (-C)" },
		{ "--loinit", "--loinit (-I)" },
		{ "--offset", "--offset (-o)" },
		{ "--sizelimit", "--sizelimit" },
		{ "--sector-size", "--sector-size (-b)" },
	};
	const bool given[] = {
		o->keybits, o->phash, o->gpgkey, o->gpghome, o->seed, o->itercountk,
		o->loinit >= 0, o->offset, o->sizelimit, o->block_size,
	};
	size_t i;

	for (i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		if (given[i]) {
			*words = names[i][1];
			return names[i][0];
		}
	return NULL;
}

static int open_failed(struct loop_attach_msg *m, int rc, enum loop_err_object who,
		       struct loopdev *ld, const struct loop_attach_opts *o)
{
	const char *hdr = o->header ? o->header : o->image;

	switch (rc) {
	case -EPERM:
		return attach_msg(m, rc, o->cleartext ? "--cleartext-keyfile" : NULL,
				  "%s: no LUKS keyslot opens with this %s", o->image,
				  o->cleartext ? "key file" : "passphrase");
	case -EINVAL:
		return attach_msg(m, rc, o->header ? "--header" : "--encryption",
				  "%s: not a %s header", hdr,
				  loop_luks_version(o->encryption) ? o->encryption : "LUKS");
	case -ENOTSUP:
		return attach_msg(m, rc, "--engine", "%s: LUKS opens through the dm engine, "
				  "which this build or this system lacks", o->image);
	case -ENOPKG:
		return attach_msg(m, rc, "--engine", "%s: LUKS opens through the dm engine, "
				  "and device-mapper has no dm-crypt target here", o->image);
	case -ENODEV:
		return attach_msg(m, rc, "--engine", "%s: LUKS opens through the dm engine, "
				  "and there is no device-mapper here (/dev/mapper/control is "
				  "missing)", o->image);
	case -EBUSY:
		if (who == LOOP_ERR_IMAGE)
			return attach_msg(m, rc, "--force", "%s: the image is already in use "
					  "(attached read-write, or read-only while this would "
					  "write); " MSG_OPT("force", "--force") " attaches it anyway",
					  o->image);
		return attach_msg(m, rc, NULL, "%s: in use (mounted, swap, or held by another "
				  "mapping)", o->image);
	case -EEXIST:
		return attach_msg(m, rc, NULL, "%s: a device-mapper device of the name the dm "
				  "engine gives this device exists already", o->image);
	default:
		if (who == LOOP_ERR_DEVICE && loopdev_get_path(ld))
			return attach_msg_errno(m, rc, NULL, "%s: failed to set up loop device",
						loopdev_get_path(ld));
		return attach_msg_errno(m, rc, NULL, "%s: failed to open the LUKS volume",
					o->image);
	}
}

/* The options alone, and the header: all before any passphrase is read. */
static int check(const struct loop_attach_opts *o, struct loop_attach_msg *m)
{
	const char *words = NULL, *bad = refused(o, &words);
	const char *hdr = o->header ? o->header : o->image;
	int rc;

	/* no fstab option sets the sector size: its words are not an option's */
	if (bad && !strcmp(bad, "--sector-size"))
		return attach_msg(m, -EINVAL, bad, "%s: %s does not apply to LUKS (its header "
				  "says where the data is and how it is encrypted)", o->image, words);
	if (bad)
		return attach_msg(m, -EINVAL, bad, "%s: " MSG_OPT_S " does not apply to LUKS "
				  "(its header says where the data is and how it is encrypted)",
				  o->image, bad + 2, words);
	if (o->engine && strcasecmp(o->engine, "dm") && strcasecmp(o->engine, "auto"))
		return attach_msg(m, -EINVAL, "--engine", "%s: LUKS opens through the dm "
				  "engine only, not " MSG_OPT_ARG("engine", "--engine ", "%s"),
				  o->image, o->engine);
	rc = loop_engine_is_luks(o->image, o->header);
	if (rc < 0)
		return attach_msg_errno(m, rc, o->header ? "--header" : NULL, "%s", hdr);
	if (rc == 0 && o->header)
		return attach_msg(m, -EINVAL, "--header", "%s: no LUKS header", hdr);
	if (rc == 0)
		return attach_msg(m, -EINVAL, "--encryption", "%s: no LUKS header (a detached "
				  "one is given with " MSG_OPT("header", "--header") ")", hdr);
	return 0;
}

int attach_luks(struct loopdev *ld, const struct loop_attach_opts *o,
		char *device, size_t size, struct loop_attach_msg *m)
{
	struct loop_luks_config luks = { .type = o->encryption, .header = o->header };
	struct loop_engine_config cfg;
	struct loop_cipher_spec spec;
	struct loop_pass *pass = NULL;
	struct loop_state st;
	enum loop_err_object who;
	char fdpath[32];
	int rc = check(o, m);

	if (rc)
		return rc;
	if (o->cleartext) {
		/* cryptsetup's --key-file: the whole file is the passphrase,
		 * read by libcryptsetup itself */
		luks.key_file = o->cleartext;
		/* libcryptsetup takes only a name: the one of the caller's
		 * descriptor, which is that file and nothing a path could
		 * lead to since */
		if (o->keyfile_fd >= 0) {
			snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", o->keyfile_fd);
			luks.key_file = fdpath;
		}
	} else {
		/* one passphrase line, as for the single-key formats */
		rc = loop_cipher_spec_parse(&spec, "aes", 0, 0);
		if (rc)
			return attach_msg_errno(m, rc < 0 ? rc : -EINVAL, NULL, "%s: cannot set "
						"up the passphrase entry", o->image);
		rc = loop_attach_read_secret(o, &spec, "Password: ", false, o->image, &pass, m);
		if (rc)
			return rc;
		luks.pass = pass;
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.image = o->image;
	cfg.lo_flags = o->lo_flags;
	cfg.force = o->force;
	cfg.engine = LOOP_ENGINE_DM;
	cfg.ref = o->ref;
	rc = loop_engine_attach_luks(ld, &cfg, &luks, &st, &who);
	loop_pass_free(pass);
	if (rc)
		return open_failed(m, rc, who, ld, o);
	snprintf(device, size, "%s", st.device);
	return 0;
}

int attach_luks_refuse(const struct loop_attach_opts *o, bool unencrypted,
		       struct loop_attach_msg *m)
{
	if (o->header)
		return attach_msg(m, -EINVAL, "--header", MSG_OPT("header", "--header")
				  ": a detached header is for "
				  MSG_OPT_ARG("encryption", "-e ", "luks") " only");
	/* the ciphertext of a LUKS volume read as a loop format is garbage */
	if (!unencrypted && !o->force && !o->offset && loop_engine_is_luks(o->image, NULL) == 1)
		return attach_msg(m, -EINVAL, "--force", "%s: has a LUKS header: open it with "
				  MSG_OPT_ARG("encryption", "-e ", "luks") ", not "
				  MSG_OPT_ARG("encryption", "-e ", "%s")
				  MSG_ASIDE(" (" MSG_OPT("force", "--force") " reads it as %s anyway)"),
				  o->image, o->encryption, o->encryption);
	return 0;
}
