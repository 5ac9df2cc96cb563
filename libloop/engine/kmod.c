// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kmod engine: the cryptoloop module's /dev/cryptoloopN honours the
 * loop ABI's encryption fields, so attaching is loopdev_attach() with
 * lo_encrypt_type, lo_crypt_name and the first key filled in; a loop-AES
 * multi-key set (64 or 65 keys) then goes in with loop-AES's own ioctl,
 * as doc/kernel-abi.md describes.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/private.h"
#include "uapi/cryptoloop_abi.h"
#include "engine/engine-private.h"
#include "base/secure-mem.h"

/* Hand 64/65 keys to the bound device; the buffer is locked and wiped. */
static int set_multi_key(struct loopdev *ld, const struct loop_key *key)
{
	unsigned int n = loop_key_count(key), i;
	size_t len = (size_t)n * CLO_KEY_SLOT;
	unsigned char *buf;
	int fd, rc = 0;

	buf = loop_secure_alloc(len);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		memcpy(buf + (size_t)i * CLO_KEY_SLOT, loop_key_data(key, i), loop_key_size(key));
	fd = loopdev_get_fd(ld, 1);
	if (fd < 0)
		rc = fd;
	else if (ioctl(fd, n == CLO_MULTI_KEYS_V3 ? CLO_MULTI_KEY_SETUP_V3 : CLO_MULTI_KEY_SETUP, buf) < 0)
		rc = -errno;
	loop_secure_free(buf, len);
	return rc;
}

/* The loop ABI carries keys of at most 32 bytes (64/65 of them through
 * the multi-key ioctl); passthrough is the plain loop driver's job. */
static int kmod_takes(const struct loop_cipher_spec *spec, const struct loop_key *key)
{
	if (!spec || !key || loop_key_size(key) > CLO_KEY_SLOT)
		return -EOPNOTSUPP;
	return 0;
}

static int kmod_attach(struct loopdev *ld, const struct loop_engine_config *cfg,
		       struct loop_state *st, int stock_loop)
{
	struct loopdev_config lc;
	int64_t bias;
	int rc;

	if (kmod_takes(cfg->spec, cfg->key))
		return -EOPNOTSUPP;

	loop_engine_image_config(&lc, cfg, st,
				 LO_FLAGS_READ_ONLY | LO_FLAGS_PARTSCAN | LO_FLAGS_DIRECT_IO);
	lc.encrypt_type = (uint32_t)cfg->spec->lo_encrypt_type;
	lc.crypt_name = cfg->spec->lo_crypt_name;
	lc.key = loop_key_data(cfg->key, 0);
	lc.key_size = loop_key_size(cfg->key);
	/* the module counts IV sectors from the start of the backing file
	 * and adds lo_init[0] as a signed bias (kmod/ioctl.c) */
	bias = (int64_t)cfg->iv_offset - (int64_t)(cfg->offset / LOOP_SECTOR_SIZE);
	lc.init[0] = (uint64_t)bias;	/* two's complement: the module reads it signed */
	lc.init[1] = 0;

	if (loopdev_get_path(ld)) {
		loopdev_ctl_add(ld);
		rc = loopdev_attach(ld, &lc, NULL);
	} else {
		rc = loopdev_attach_free(ld, stock_loop ? LOOPDEV_KIND_LOOP :
				 LOOPDEV_KIND_CRYPTOLOOP, &lc, NULL);
	}
	if (rc)
		return rc;
	if (loop_key_count(cfg->key) > 1) {
		rc = set_multi_key(ld, cfg->key);
		if (rc) {
			loopdev_detach(ld);
			return rc;
		}
	}
	snprintf(st->device, sizeof(st->device), "%s", loopdev_get_path(ld));
	st->pid = 0;
	st->mount[0] = '\0';
	snprintf(st->id, sizeof(st->id), "%s.%s", stock_loop ? "xfer" : "kmod",
		 strrchr(st->device, '/') + 1);
	/* the record lets listings show the cipher and key size */
	rc = loop_state_create(st);
	if (rc) {
		loopdev_detach(ld);
		loop_state_unlink(st);
	}
	return rc;
}

static int kmod_attach_op(struct loopdev *ld, const struct loop_engine_config *cfg,
			  struct loop_state *st, enum loop_err_object *errpos)
{
	int rc = kmod_attach(ld, cfg, st, 0);

	if (rc)
		*errpos = LOOP_ERR_DEVICE;
	return rc;
}

static int xfer_attach_op(struct loopdev *ld, const struct loop_engine_config *cfg,
			  struct loop_state *st, enum loop_err_object *errpos)
{
	int rc = kmod_attach(ld, cfg, st, 1);

	if (rc)
		*errpos = LOOP_ERR_DEVICE;
	return rc;
}

static int kmod_probe(const char *fuse_daemon)
{
	(void)fuse_daemon;
	return access(loopdev_kind_control(LOOPDEV_KIND_CRYPTOLOOP), F_OK) == 0 ?
	       0 : -ENODEV;
}

static int xfer_probe(const char *fuse_daemon)
{
	(void)fuse_daemon;
	/* the transfer module only loads on kernels with loop transfers */
	return access("/sys/module/cryptoloop_xfer", F_OK) == 0 ? 0 : -ENODEV;
}

static int kmod_owns(const struct loop_state *st)
{
	return loop_engine_backing_is(st->device, st);
}

/* The module and loop.c re-read the backing file's size on request. */
static int kmod_resize(struct loopdev *ld, const struct loop_state *st)
{
	(void)st;
	return loopdev_set_capacity(ld);
}

const struct loop_engine_ops loop_engine_kmod_ops = {
	.kind = LOOP_ENGINE_KMOD,
	.probe = kmod_probe,
	.takes = kmod_takes,
	.attach = kmod_attach_op,
	.resize = kmod_resize,
	.owns = kmod_owns,
};

const struct loop_engine_ops loop_engine_xfer_ops = {
	.kind = LOOP_ENGINE_XFER,
	.probe = xfer_probe,
	.takes = kmod_takes,
	.attach = xfer_attach_op,
	.resize = kmod_resize,
	.owns = kmod_owns,
};
