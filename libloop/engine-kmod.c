// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kmod engine: the cryptoloop module's /dev/cryptoloopN honours the
 * loop ABI's encryption fields, so attaching is loopdev_attach() with
 * lo_encrypt_type, lo_crypt_name and the key filled in. The module and
 * its multi-key ioctls are another part of the tree; until libloop can
 * drive those, a 64/65-key set is refused here (auto then picks fuse).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "private.h"
#include "engine-private.h"

int loop_kmod_attach(struct loopdev *ld, const struct loop_engine_config *cfg,
		     struct loop_state *st)
{
	struct loopdev_config lc;
	char dir[PATH_MAX];
	int64_t bias;
	int rc;

	if (!cfg->spec || !cfg->key)
		return -EOPNOTSUPP;	/* passthrough is the plain loop driver's job */
	if (loop_key_count(cfg->key) != 1 || loop_key_size(cfg->key) > LO_KEY_SIZE)
		return -EOPNOTSUPP;

	memset(&lc, 0, sizeof(lc));
	lc.backing_file = cfg->image;
	lc.backing_fd = -1;
	lc.offset = cfg->offset;
	lc.sizelimit = cfg->sizelimit;
	lc.block_size = cfg->block_size;
	lc.lo_flags = cfg->lo_flags & (LO_FLAGS_READ_ONLY | LO_FLAGS_PARTSCAN | LO_FLAGS_DIRECT_IO);
	lc.encrypt_type = (uint32_t)cfg->spec->lo_encrypt_type;
	lc.crypt_name = cfg->spec->lo_crypt_name;
	lc.key = loop_key_data(cfg->key, 0);
	lc.key_size = loop_key_size(cfg->key);
	/* the module counts IV sectors from the start of the backing file
	 * and adds lo_init[0] as a signed bias (kmod/ioctl.c) */
	bias = (int64_t)cfg->iv_offset - (int64_t)(cfg->offset / LOOP_SECTOR_SIZE);
	/* struct loopdev_config carries lo_init as 32 bits: a negative or
	 * huge bias would arrive as another number */
	if (bias < 0 || bias > UINT32_MAX)
		return -EOPNOTSUPP;
	lc.init[0] = (uint32_t)bias;
	lc.init[1] = 0;

	if (loopdev_get_path(ld)) {
		loopdev_ctl_add(ld);
		rc = loopdev_attach(ld, &lc, NULL);
	} else {
		rc = loopdev_attach_free(ld, LOOPDEV_KIND_CRYPTOLOOP, &lc, NULL);
	}
	if (rc)
		return rc;
	snprintf(st->device, sizeof(st->device), "%s", loopdev_get_path(ld));
	st->pid = 0;
	st->mount[0] = '\0';
	snprintf(st->id, sizeof(st->id), "kmod.%s", strrchr(st->device, '/') + 1);
	/* the record lets listings show the cipher and key size */
	snprintf(dir, sizeof(dir), "%s/%s", LOOP_STATE_DIR, st->id);
	if ((mkdir(LOOP_STATE_DIR, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(dir, 0700) < 0 && errno != EEXIST))
		rc = -errno;
	else
		rc = loop_state_write(st);
	if (rc)
		loopdev_detach(ld);
	return rc;
}
