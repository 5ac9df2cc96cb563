// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Encrypted devices: choosing an engine, refusing a second writer of an
 * image, and handing attach, detach and resize to the engine's table.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/private.h"
#include "engine/engine-private.h"

/* How long a detach may take once the device is closed: 1 s. */
#define DETACH_WAIT_TRIES	100
#define DETACH_WAIT_US		10000

LIBLOOP_EXPORT int loop_engine_probe(enum loop_engine_kind kind, const char *fuse_daemon)
{
	const struct loop_engine_ops *ops = loop_engine_ops_get(kind);

	if (!ops)
		return -ENOTSUP;
	return ops->probe(fuse_daemon);
}

LIBLOOP_EXPORT int loop_engine_available(enum loop_engine_kind kind, const char *fuse_daemon)
{
	return loop_engine_probe(kind, fuse_daemon) == 0;
}

/* Fastest first: the module; the transfer module on old kernels; dm-crypt
 * in the stock kernel; the FUSE daemon, which runs anywhere. */
static const enum loop_engine_kind auto_order[] = {
	LOOP_ENGINE_KMOD, LOOP_ENGINE_XFER, LOOP_ENGINE_DM, LOOP_ENGINE_FUSE,
};

LIBLOOP_EXPORT int loop_engine_choose(const struct loop_cipher_spec *spec,
				      const struct loop_key *key, const char *fuse_daemon)
{
	size_t i;

	for (i = 0; i < sizeof(auto_order) / sizeof(auto_order[0]); i++) {
		const struct loop_engine_ops *ops = loop_engine_ops_get(auto_order[i]);

		if (ops && ops->takes(spec, key) == 0 && ops->probe(fuse_daemon) == 0) {
			DBG(ENGINE, loop_engine_name(auto_order[i]), "auto: chosen");
			return auto_order[i];
		}
		DBG(ENGINE, loop_engine_name(auto_order[i]), "auto: %s",
		    !ops ? "not built" : ops->takes(spec, key) ? "cannot take this key" : "cannot run here");
	}
	return -ENODEV;
}

static int ranges_overlap(uint64_t a_off, uint64_t a_len, uint64_t b_off, uint64_t b_len)
{
	uint64_t a_end = a_len ? a_off + a_len : UINT64_MAX;
	uint64_t b_end = b_len ? b_off + b_len : UINT64_MAX;

	return a_off < b_end && b_off < a_end;
}

struct busy_ctx {
	const struct stat *img;
	const struct loop_engine_config *cfg;
	int busy;
};

static int busy_cb(const struct loop_state *st, void *data)
{
	struct busy_ctx *b = data;
	int we_ro = !!(b->cfg->lo_flags & LO_FLAGS_READ_ONLY);

	if (st->image_dev != b->img->st_dev || st->image_ino != b->img->st_ino)
		return 0;
	if (!ranges_overlap(st->offset, st->sizelimit, b->cfg->offset, b->cfg->sizelimit))
		return 0;
	/* two readers are fine; any writer conflicts */
	if (!we_ro || !st->read_only)
		b->busy = 1;
	return b->busy;
}

/*
 * -EBUSY when the image is attached (by us, encrypted, or as a plain loop
 * device) over an overlapping range and one of the two would write.
 */
static int check_busy(const struct loop_engine_config *cfg, const struct stat *img)
{
	struct busy_ctx b = { img, cfg, 0 };
	struct loopdev *other;
	int rc;

	loop_state_foreach(busy_cb, &b);
	if (b.busy)
		return -EBUSY;
	if (loopdev_new(&other))
		return -ENOMEM;
	rc = loopdev_find_overlap(other, LOOPDEV_KIND_LOOP, cfg->image,
				  cfg->offset, cfg->sizelimit);
	if (rc > 0 && (!(cfg->lo_flags & LO_FLAGS_READ_ONLY) ||
		       !loopdev_has_flag(other, LO_FLAGS_READ_ONLY)))
		rc = -EBUSY;
	else if (rc > 0)
		rc = 0;
	loopdev_free(other);
	return rc < 0 ? rc : 0;
}

/*
 * What loop_engine_attach() and loop_engine_attach_luks() share: the
 * image, what is busy, the engine, the record's common fields. @luks:
 * NULL, or the LUKS volume to open (dm engine only).
 */
static int attach_image(struct loopdev *ld, const struct loop_engine_config *cfg,
			const struct loop_luks_config *luks, struct loop_state *out,
			enum loop_err_object *errpos)
{
	const struct loop_engine_ops *ops;
	struct loop_state *st;
	enum loop_err_object dummy;
	struct stat sb;
	int kind = cfg->engine, rc;

	if (!errpos)
		errpos = &dummy;
	*errpos = LOOP_ERR_NONE;
	if (!cfg->image || (!cfg->spec) != (!cfg->key) || (cfg->offset % LOOP_SECTOR_SIZE))
		return -EINVAL;
	/* a LUKS header says where its data is and how it is encrypted */
	if (luks && (cfg->spec || cfg->offset || cfg->sizelimit || cfg->iv_offset ||
		     (kind != LOOP_ENGINE_AUTO && kind != LOOP_ENGINE_DM)))
		return -EINVAL;
	if (stat(cfg->image, &sb) < 0) {
		*errpos = LOOP_ERR_IMAGE;
		return -errno;
	}
	if (!S_ISREG(sb.st_mode) && !S_ISBLK(sb.st_mode)) {
		*errpos = LOOP_ERR_IMAGE;
		return -EINVAL;
	}
	/* clean up after dead daemons before judging what is busy */
	loop_state_gc();
	if (!cfg->force) {
		rc = check_busy(cfg, &sb);
		if (rc) {
			*errpos = LOOP_ERR_IMAGE;
			return rc;
		}
	}
	if (luks) {
		kind = LOOP_ENGINE_DM;
		ops = loop_engine_ops_get(LOOP_ENGINE_DM);
		if (!ops || !ops->attach_luks)
			return -ENOTSUP;
		rc = ops->probe(NULL);
		if (rc)
			return rc;
	} else {
		if (kind == LOOP_ENGINE_AUTO) {
			kind = loop_engine_choose(cfg->spec, cfg->key, cfg->fuse_daemon);
			if (kind < 0)
				return kind;
		}
		ops = loop_engine_ops_get((enum loop_engine_kind)kind);
		if (!ops)
			return -ENOTSUP;
		rc = ops->takes(cfg->spec, cfg->key);
		if (rc)
			return rc;
	}

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	if (!realpath(cfg->image, st->image))
		snprintf(st->image, sizeof(st->image), "%s", cfg->image);
	/* the kernel's 64 bytes: what the loop device under it says too */
	snprintf(st->ref, sizeof(st->ref), "%s", cfg->ref ? cfg->ref : "");
	st->image_dev = sb.st_dev;
	st->image_ino = sb.st_ino;
	st->offset = cfg->offset;
	st->sizelimit = cfg->sizelimit;
	st->engine = (enum loop_engine_kind)kind;
	st->read_only = !!(cfg->lo_flags & LO_FLAGS_READ_ONLY);
	if (cfg->spec) {
		snprintf(st->cipher, sizeof(st->cipher), "%s", cfg->spec->name);
		st->key_bits = loop_key_size(cfg->key) * 8;
		st->key_count = loop_key_count(cfg->key);
		st->encrypt_type = cfg->spec->lo_encrypt_type;
	}
	loop_boot_id(st->boot_id, sizeof(st->boot_id));

	/* the shape of the key, never its bytes */
	if (cfg->spec)
		DBG(CRYPTO, st->image, "cipher %s, type %d, %u key(s) of %u bits",
		    st->cipher, st->encrypt_type, st->key_count, st->key_bits);
	DBG(ENGINE, st->image, "attach through %s, offset %llu, sizelimit %llu%s",
	    loop_engine_name(st->engine), (unsigned long long)st->offset,
	    (unsigned long long)st->sizelimit, st->read_only ? ", read-only" : "");
	/* LUKS: the module fills in the cipher from the header */
	rc = luks ? ops->attach_luks(ld, cfg, luks, st, errpos) : ops->attach(ld, cfg, st, errpos);
	DBG(ENGINE, st->image, "attach: %s%s%s", rc ? strerror(-rc) : "ok",
	    rc ? "" : ", ", rc ? "" : st->device);
	if (rc == 0 && out)
		*out = *st;
	free(st);
	return rc;
}

LIBLOOP_EXPORT int loop_engine_attach(struct loopdev *ld, const struct loop_engine_config *cfg,
				      struct loop_state *out, enum loop_err_object *errpos)
{
	return attach_image(ld, cfg, NULL, out, errpos);
}

LIBLOOP_EXPORT int loop_engine_attach_luks(struct loopdev *ld,
					   const struct loop_engine_config *cfg,
					   const struct loop_luks_config *luks,
					   struct loop_state *out, enum loop_err_object *errpos)
{
	if (!luks || (!luks->key_file && !luks->pass))
		return -EINVAL;
	return attach_image(ld, cfg, luks, out, errpos);
}

/*
 * The loop engines' detach: the loop device first; the kernel lets go of
 * the file when the last opener closes the device, and we are one, so
 * close and give it a moment; then whatever served it.
 */
static int detach_loop(struct loopdev *ld, const struct loop_state *st)
{
	int rc = loopdev_detach(ld), i;

	if (rc && rc != -ENXIO)
		return rc;
	loopdev_set_device(ld, st->device);
	for (i = 0; i < DETACH_WAIT_TRIES && !loop_state_is_stale(st); i++)
		loop_usleep(DETACH_WAIT_US);
	/* Still held open by someone (mounted): the detach happens at their
	 * last close (autoclear), and a daemon then exits and cleans up by
	 * itself. Otherwise: daemon, mount, record. */
	if (loop_state_is_stale(st))
		loop_state_remove(st);
	return 0;
}

LIBLOOP_EXPORT int loop_engine_detach(struct loopdev *ld)
{
	const struct loop_engine_ops *ops;
	struct loop_state *st = malloc(sizeof(*st));
	int rc;

	if (!st)
		return -ENOMEM;
	rc = loop_state_lookup(ld, st);
	if (rc == 0) {
		ops = loop_engine_ops_get(st->engine);
		if (!ops)
			rc = -ENOTSUP;
		else if (ops->detach)
			rc = ops->detach(ld, st);
		else
			rc = detach_loop(ld, st);
		DBG(ENGINE, st->device, "detach (%s): %s", loop_engine_name(st->engine),
		    rc ? strerror(-rc) : "ok");
	}
	free(st);
	return rc;
}

LIBLOOP_EXPORT int loop_engine_resize_luks(struct loopdev *ld,
					   const struct loop_luks_config *luks,
					   unsigned int *targets)
{
	const struct loop_engine_ops *ops;
	struct loop_state *st = malloc(sizeof(*st));
	unsigned int dummy;
	int rc;

	if (!st)
		return -ENOMEM;
	if (!targets)
		targets = &dummy;
	*targets = 0;
	rc = loop_state_lookup(ld, st);
	if (rc == 0) {
		ops = loop_engine_ops_get(st->engine);
		if (!ops)
			rc = -ENOTSUP;
		else if (ops->resize_luks)
			rc = ops->resize_luks(ld, st, luks, targets);
		else
			rc = ops->resize(ld, st);
	}
	free(st);
	return rc;
}

LIBLOOP_EXPORT int loop_engine_resize(struct loopdev *ld)
{
	return loop_engine_resize_luks(ld, NULL, NULL);
}
