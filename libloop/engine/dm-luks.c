// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LUKS1 and LUKS2 volumes through the dm engine. libcryptsetup does what
 * "cryptsetup open" does: it reads the header (in the image, or detached),
 * unlocks a keyslot with the passphrase or key file, and loads the
 * dm-crypt table the header describes. The passphrase stays in the
 * caller's locked memory; libcryptsetup keeps the volume key in its own.
 * Growing a LUKS2 mapping (losetup -c) unlocks the volume again: its
 * volume key is in dm-crypt, and no table holds it.
 */
#include "config.h"

#include <errno.h>
#include <ctype.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <string.h>

#include "engine/dm.h"

/* libloop never prints */
static void quiet_log(int level, const char *msg, void *usrptr)
{
	(void)level;
	(void)msg;
	(void)usrptr;
}

/* a LUKS name (loop_luks_version()) as libcryptsetup's type; NULL: either */
static int luks_type(const char *name, const char **type)
{
	switch (name ? loop_luks_version(name) : 0) {
	case 0:
		*type = CRYPT_LUKS;
		return 0;
	case 1:
		*type = CRYPT_LUKS1;
		return 0;
	case 2:
		*type = CRYPT_LUKS2;
		return 0;
	default:
		return -EINVAL;
	}
}

/* "luks2-aes-xts-plain64": the version the header has, then its cipher */
static void record_cipher(struct crypt_device *cd, struct loop_state *st)
{
	const char *type = crypt_get_type(cd);
	size_t i;

	snprintf(st->cipher, sizeof(st->cipher), "%s-%s-%s", type ? type : "luks",
		 crypt_get_cipher(cd), crypt_get_cipher_mode(cd));
	for (i = 0; st->cipher[i]; i++)
		st->cipher[i] = (char)tolower((unsigned char)st->cipher[i]);
	st->key_bits = (unsigned int)crypt_get_volume_key_size(cd) * 8;
	st->key_count = 1;
	st->encrypt_type = 0;
}

/* Activate @name, or with @name NULL load the volume key into the kernel
 * keyring (CRYPT_ACTIVATE_KEYRING_KEY) for crypt_resize(). */
static int unlock(struct crypt_device *cd, const char *name,
		  const struct loop_luks_config *luks, uint32_t flags)
{
	const char *pw;
	size_t len = 0;

	if (luks->key_file)
		return crypt_activate_by_keyfile_device_offset(cd, name, CRYPT_ANY_SLOT,
							       luks->key_file, 0, 0, flags);
	pw = loop_pass_line(luks->pass, 0, &len);
	/* no line at all (--allow-empty-passphrase): the empty passphrase */
	if (!pw) {
		pw = "";
		len = 0;
	}
	return crypt_activate_by_passphrase(cd, name, CRYPT_ANY_SLOT, pw, len, flags);
}

int dm_activate_luks(const char *dev, const char *name, const struct loop_engine_config *cfg,
		     const struct loop_luks_config *luks, int shared, struct loop_state *st)
{
	struct crypt_device *cd = NULL;
	const char *type;
	uint32_t flags = 0;
	int rc;

	rc = luks_type(luks->type, &type);
	if (rc)
		return rc;
	if (cfg->lo_flags & LO_FLAGS_READ_ONLY)
		flags |= CRYPT_ACTIVATE_READONLY;
	if (shared)
		flags |= CRYPT_ACTIVATE_SHARED;
	crypt_set_log_callback(NULL, quiet_log, NULL);
	rc = luks->header ? crypt_init_data_device(&cd, luks->header, dev) : crypt_init(&cd, dev);
	if (rc < 0)
		goto restore_log;
	crypt_set_log_callback(cd, quiet_log, NULL);
	rc = crypt_load(cd, type, NULL);
	if (rc < 0)
		goto free_device;
	record_cipher(cd, st);
	/* libcryptsetup's default, said out loud: a LUKS2 volume key goes
	 * into this thread's keyring as a "logon" key (which user space
	 * cannot read back), the table names it and dm-crypt copies it at
	 * the load, so no table dump shows it; the key in the keyring dies
	 * with the thread. LUKS1 volumes keep theirs in the table, as with
	 * cryptsetup. */
	rc = crypt_volume_key_keyring(cd, 1);
	if (rc < 0)
		goto free_device;
	rc = unlock(cd, name, luks, flags);
free_device:
	crypt_free(cd);
restore_log:
	crypt_set_log_callback(NULL, NULL, NULL);
	return rc < 0 ? rc : 0;
}

int dm_luks_unlock_active(const char *name, const struct loop_luks_config *luks,
			  struct crypt_device **out)
{
	struct crypt_active_device active;
	struct crypt_device *cd = NULL;
	const char *type;
	int rc;

	*out = NULL;
	crypt_set_log_callback(NULL, quiet_log, NULL);
	rc = crypt_init_by_name_and_header(&cd, name, luks ? luks->header : NULL);
	if (rc < 0)
		goto restore_log;
	crypt_set_log_callback(cd, quiet_log, NULL);
	/* no type: the header is not there, or it is another volume's
	 * (libcryptsetup compares its UUID with the mapping's) */
	type = crypt_get_type(cd);
	if (!type || (strcmp(type, CRYPT_LUKS1) && strcmp(type, CRYPT_LUKS2))) {
		rc = -ENODATA;
		goto free_device;
	}
	/* a table for one segment over a volume whose segments are moving */
	if (crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE) {
		rc = -EINPROGRESS;
		goto free_device;
	}
	rc = crypt_get_active_device(cd, name, &active);
	if (rc < 0)
		goto free_device;
	if (active.flags & CRYPT_ACTIVATE_KEYRING_KEY) {
		if (!luks || (!luks->key_file && !luks->pass)) {
			rc = -ENOKEY;
			goto free_device;
		}
		rc = unlock(cd, NULL, luks, CRYPT_ACTIVATE_KEYRING_KEY);
		if (rc < 0)
			goto free_device;
	}
	*out = cd;
	rc = 0;
	goto restore_log;
free_device:
	crypt_free(cd);
restore_log:
	crypt_set_log_callback(NULL, NULL, NULL);
	return rc < 0 ? rc : 0;
}
