/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside the dm engine module: what dm.c asks dm-luks.c. */
#ifndef LIBLOOP_ENGINE_DM_H
#define LIBLOOP_ENGINE_DM_H

#include <libcryptsetup.h>

#include "engine-private.h"

/*
 * Open the LUKS volume on @dev (a loop device of ours, or the block
 * device itself) as mapping @name: the header from luks->header or @dev,
 * the key from luks->key_file or luks->pass. @shared: our mappings of
 * other ranges hold @dev (cryptsetup --shared). Fills in @st's cipher
 * ("luks2-aes-xts-plain64") and key size from the header.
 * Returns 0; -EINVAL not a LUKS header (of the asked type); -EPERM no
 * keyslot opens with the key; -EEXIST the name is taken; -errno.
 */
int dm_activate_luks(const char *dev, const char *name, const struct loop_engine_config *cfg,
		     const struct loop_luks_config *luks, int shared, struct loop_state *st);

/*
 * The active LUKS mapping @name, ready for crypt_resize() in *@cd: its
 * header (@luks->header, or on the mapping's device) loaded and checked
 * against the mapping's UUID, no reencryption in progress, and a volume
 * key that dm-crypt takes from the kernel keyring loaded into this
 * thread's keyring with @luks's passphrase or key file. @luks may be NULL.
 * Nothing changes until the caller resizes. Returns 0; -ENODATA no LUKS
 * header of this mapping there; -EINPROGRESS the header says a
 * reencryption is in progress; -ENOKEY the key is needed and @luks gives
 * none; -EPERM no keyslot opens with it; -errno.
 */
int dm_luks_unlock_active(const char *name, const struct loop_luks_config *luks,
			  struct crypt_device **cd);

#endif
