/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside the dm engine module: what engine-dm.c asks engine-dm-luks.c. */
#ifndef LIBLOOP_ENGINE_DM_H
#define LIBLOOP_ENGINE_DM_H

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

#endif
