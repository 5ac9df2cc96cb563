/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside the dm engine module: what dm.c asks dm-direct.c and dm-luks.c. */
#ifndef LIBLOOP_ENGINE_DM_H
#define LIBLOOP_ENGINE_DM_H

#include <libcryptsetup.h>

#include "engine/engine-private.h"

#define ID_PREFIX	"dm."
/* A direct mapping's record id is ID_PREFIX and the mapping's name. */
#define ID_DIRECT	ID_PREFIX LOOP_DM_PREFIX

/*
 * Where the ciphertext is on the device under the mapping, in 512-byte
 * sectors: from @start for @length (0: to its end). The loop device
 * applies the offset and size limit itself; a direct mapping has them here.
 */
struct dm_range {
	uint64_t start;
	uint64_t length;
};

/* dm-direct.c: mappings straight on a block device */
/* 1 when the record's mapping sits straight on a block device. */
int dm_is_direct(const struct loop_state *st);
/* Size of the block device @path in 512-byte sectors. */
int dm_device_sectors(const char *path, uint64_t *sectors);
/* The kernel's name of block device @dev ("sda2", "dm-3", "nvme0n1p2"). */
int dm_kernel_name(dev_t dev, char *buf, size_t size);
/* The range of @dev the user asked for, as the loop driver would give it. */
int dm_direct_range(const char *dev, uint64_t offset, uint64_t sizelimit,
		    struct dm_range *r);
/*
 * Whether block device @dev (@path) may take another mapping: -EBUSY
 * when anything but our own mappings of its other ranges holds it or has
 * it open exclusively; *@shared: 1 when our mappings hold it.
 */
int dm_direct_may_share(const char *path, dev_t dev, int *shared);

/* dm-luks.c */
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
