// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The dm engine: no module of ours. A stock /dev/loopN carries an image
 * file (offset, sizelimit, read-only, direct I/O as asked), and a dm-crypt
 * mapping /dev/mapper/cryptoloop-loopN on top of it decrypts. An image that
 * is a block device (partition, disk, LV) gets the mapping straight on it,
 * /dev/mapper/cryptoloop-<kernel name>, with the offset and size limit in
 * the crypt table: no loop layer, whose writeback throttling and worker
 * would sit between dm-crypt and the disk (swap on a partition stalls
 * there under memory pressure). The mapping:
 *  - one key: libcryptsetup's CRYPT_PLAIN, activated by volume key, with
 *    <alg>-cbc-plain (util-linux 2.12 cryptoloop, 32-bit IV) or
 *    <alg>-cbc-plain64 (plain64, loop-AES single key);
 *  - 64 or 65 keys (loop-AES multi-key v2/v3): dm-crypt's
 *    <alg>:64-cbc-lmk with the keys concatenated (the 65th is lmk's seed),
 *    loaded with libdevmapper. libcryptsetup cannot do that from raw
 *    keys: CRYPT_LOOPAES activates only from a key file it hashes itself,
 *    and CRYPT_PLAIN refuses volume keys over 1024 bytes.
 * The IV offset is the mapping's iv_offset (cryptsetup --skip): dm-crypt
 * adds it to the sector number for the IV and for the multi-key index,
 * exactly as our transfer does. The loop device gets autoclear once the
 * mapping holds it, so removing the mapping by any tool frees it.
 * A LUKS volume (dm-luks.c) goes the same way, on the same loop
 * device or straight on the block device, under the same names; only the
 * activation differs: its header says what the mapping is, and a LUKS2
 * volume key reaches dm-crypt through the kernel keyring, not the table,
 * so resizing it takes the key again.
 * libcryptsetup and libdevmapper log through callbacks here that drop
 * everything: libloop never prints.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libcryptsetup.h>
#include <libdevmapper.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/private.h"
#include "engine/engine-private.h"
#include "engine/dm.h"
#include "base/secure-mem.h"
#include "uapi/cryptoloop_abi.h"

#define DM_CONTROL	"/dev/mapper/control"
#define DM_DIR		"/dev/mapper"
/* libcryptsetup's UUID prefix, so cryptsetup status names the type */
#define DM_UUID_LOOPAES	"CRYPT-LOOPAES-"
/* cryptoloop-sda2, then cryptoloop-sda2.1 ... for more ranges of one disk */
#define DIRECT_NAMES	100
/* How long the loop device may take to let go after the mapping: 1 s. */
#define RELEASE_TRIES	100
#define RELEASE_US	10000

static void quiet_crypt_log(int level, const char *msg, void *usrptr)
{
	(void)level;
	(void)msg;
	(void)usrptr;
}

static void quiet_dm_log(int level, const char *file, int line, int dm_errno_or_class,
			 const char *f, ...)
{
	(void)level;
	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	(void)f;
}

static void dm_quiet(void)
{
	dm_log_with_errno_init(quiet_dm_log);
}

static const char *alg_name(enum loop_cipher_alg alg)
{
	switch (alg) {
	case LOOP_CIPHER_AES:
		return "aes";
	case LOOP_CIPHER_TWOFISH:
		return "twofish";
	case LOOP_CIPHER_SERPENT:
		return "serpent";
	case LOOP_CIPHER_BLOWFISH:
		return "blowfish";
	default:
		return NULL;
	}
}

/* dm-crypt's IV mode for a single-key format. */
static const char *iv_mode(const struct loop_cipher_spec *spec)
{
	return spec->format == LOOP_FORMAT_CRYPTOLOOP ? "cbc-plain" : "cbc-plain64";
}

static int dm_takes(const struct loop_cipher_spec *spec, const struct loop_key *key)
{
	unsigned int n;

	if (!spec || !key || !alg_name(spec->alg))
		return -EOPNOTSUPP;	/* passthrough is the plain loop driver's */
	n = loop_key_count(key);
	if (n == 1)
		return 0;
	/* lmk computes a 16-byte IV: multi-key needs a 16-byte block */
	if ((n == CLO_MULTI_KEYS || n == CLO_MULTI_KEYS_V3) && spec->format == LOOP_FORMAT_LOOPAES &&
	    spec->block_bytes == 16)
		return 0;
	return -EOPNOTSUPP;
}

/* 1 when @path (modules.dep or modules.builtin) lists dm-crypt.ko. */
static int modules_list_dm_crypt(const char *release, const char *file)
{
	char path[512], line[1024];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/lib/modules/%s/%s", release, file);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (colon)
			*colon = '\0';
		line[strcspn(line, "\n")] = '\0';
		found = strstr(line, "/dm-crypt.ko") != NULL;
	}
	fclose(f);
	return found;
}

/* 1 when device-mapper already has the crypt target (loaded or built in). */
static int crypt_target_registered(void)
{
	struct dm_versions *v;
	struct dm_task *dmt;
	int found = 0;

	dm_quiet();
	dmt = dm_task_create(DM_DEVICE_LIST_VERSIONS);
	if (!dmt)
		return 0;
	if (dm_task_run(dmt)) {
		v = dm_task_get_versions(dmt);
		while (v && !found) {
			unsigned int next = v->next;

			found = !strcmp(v->name, "crypt");
			if (!next)
				break;
			v = (struct dm_versions *)((char *)v + next);
		}
	}
	dm_task_destroy(dmt);
	return found;
}

/*
 * device-mapper must be there; dm-crypt may still be a module, which the
 * kernel loads by itself on the first crypt table ("dm-crypt" alias).
 */
static int dm_probe(const char *fuse_daemon)
{
	struct utsname u;

	(void)fuse_daemon;
	if (access(DM_CONTROL, R_OK | W_OK) < 0)
		return -ENODEV;
	if (access("/sys/module/dm_crypt", F_OK) == 0 || crypt_target_registered())
		return 0;
	if (uname(&u) == 0 && (modules_list_dm_crypt(u.release, "modules.dep") ||
			       modules_list_dm_crypt(u.release, "modules.builtin")))
		return 0;
	return -ENOPKG;
}

/* "/dev/loop3" -> "cryptoloop-loop3" */
static void mapping_name(const char *loopdev, char *buf, size_t size)
{
	const char *base = strrchr(loopdev, '/');

	snprintf(buf, size, "%s%s", LOOP_DM_PREFIX, base ? base + 1 : loopdev);
}

static void record_mapping_name(const struct loop_state *st, char *buf, size_t size)
{
	const char *base = strrchr(st->device, '/');

	snprintf(buf, size, "%s", base ? base + 1 : st->device);
}

/* The loop device under the mapping; a direct mapping has none: itself. */
static void dm_loop_device(const struct loop_state *st, char *buf, size_t size)
{
	if (dm_is_direct(st))
		snprintf(buf, size, "%s", st->device);
	else
		snprintf(buf, size, "/dev/%s", st->id + strlen(ID_PREFIX));
}

/* One key: CRYPT_PLAIN by volume key. */
static int activate_plain(const char *loopdev, const char *name,
			  const struct loop_engine_config *cfg, const struct dm_range *r,
			  int shared)
{
	struct crypt_params_plain params = {
		.hash = NULL,
		.offset = r->start,
		.skip = cfg->iv_offset,
		.size = r->length,
		.sector_size = LOOP_SECTOR_SIZE,
	};
	struct crypt_device *cd = NULL;
	size_t len = loop_key_size(cfg->key);
	uint32_t flags = 0;
	int rc;

	if (cfg->lo_flags & LO_FLAGS_READ_ONLY)
		flags |= CRYPT_ACTIVATE_READONLY;
	if (shared)
		flags |= CRYPT_ACTIVATE_SHARED;
	rc = crypt_init(&cd, loopdev);
	if (rc < 0)
		return rc;
	crypt_set_log_callback(cd, quiet_crypt_log, NULL);
	rc = crypt_format(cd, CRYPT_PLAIN, alg_name(cfg->spec->alg), iv_mode(cfg->spec),
			  NULL, NULL, len, &params);
	if (rc == 0)
		rc = crypt_activate_by_volume_key(cd, name,
				(const char *)loop_key_data(cfg->key, 0), len, flags);
	crypt_free(cd);
	return rc < 0 ? rc : 0;
}

/* The keys as the hex string of a crypt table, in locked memory. */
static char *hex_keys(const struct loop_key *key, size_t *size)
{
	static const char digits[] = "0123456789abcdef";
	unsigned int n = loop_key_count(key), i;
	size_t klen = loop_key_size(key), j, len = (size_t)n * klen * 2 + 1;
	char *hex, *p;

	hex = loop_secure_alloc(len);
	if (!hex)
		return NULL;
	p = hex;
	for (i = 0; i < n; i++) {
		const unsigned char *k = loop_key_data(key, i);

		for (j = 0; j < klen; j++) {
			*p++ = digits[k[j] >> 4];
			*p++ = digits[k[j] & 15];
		}
	}
	*p = '\0';
	*size = len;
	return hex;
}

/*
 * Run a task that changes a mapping and wait for udev (or let
 * libdevmapper make the node itself where no udev runs).
 */
static int run_with_udev(struct dm_task *dmt)
{
	uint32_t cookie = 0;
	int ok;

	if (!dm_task_set_cookie(dmt, &cookie, 0))
		return -ENOMEM;
	ok = dm_task_run(dmt);
	dm_udev_wait(cookie);
	return ok ? 0 : -(dm_task_get_errno(dmt) ? dm_task_get_errno(dmt) : EINVAL);
}

/* "<alg>:64-cbc-lmk <keys> <iv_offset> <device> <start>" */
static int lmk_table(const struct loop_cipher_spec *spec, const char *hex,
		     uint64_t iv_offset, const char *loopdev, uint64_t start,
		     char **params, size_t *size)
{
	size_t len = strlen(hex) + strlen(loopdev) + 96;
	char *p;

	p = loop_secure_alloc(len);
	if (!p)
		return -ENOMEM;
	snprintf(p, len, "%s:%d-cbc-lmk %s %" PRIu64 " %s %" PRIu64,
		 alg_name(spec->alg), CLO_MULTI_KEYS, hex, iv_offset, loopdev, start);
	*params = p;
	*size = len;
	return 0;
}

/* 64/65 keys: a crypt table through libdevmapper. */
static int activate_lmk(const char *loopdev, const char *name,
			const struct loop_engine_config *cfg, const struct dm_range *r)
{
	char uuid[160], *hex, *params = NULL;
	size_t hexlen = 0, plen = 0;
	struct dm_task *dmt;
	uint64_t sectors = r->length;
	int rc;

	if (!sectors) {
		rc = dm_device_sectors(loopdev, &sectors);
		if (rc)
			return rc;
	}
	if (!sectors)
		return -ERANGE;
	hex = hex_keys(cfg->key, &hexlen);
	if (!hex)
		return -ENOMEM;
	rc = lmk_table(cfg->spec, hex, cfg->iv_offset, loopdev, r->start, &params, &plen);
	loop_secure_free(hex, hexlen);
	if (rc)
		return rc;

	dm_quiet();
	rc = -ENOMEM;
	dmt = dm_task_create(DM_DEVICE_CREATE);
	if (!dmt)
		goto free_params;
	snprintf(uuid, sizeof(uuid), "%s%s", DM_UUID_LOOPAES, name);
	if (!dm_task_secure_data(dmt) || !dm_task_set_name(dmt, name) ||
	    !dm_task_set_uuid(dmt, uuid) ||
	    ((cfg->lo_flags & LO_FLAGS_READ_ONLY) && !dm_task_set_ro(dmt)) ||
	    !dm_task_add_target(dmt, 0, sectors, "crypt", params))
		goto destroy_task;
	rc = run_with_udev(dmt);
destroy_task:
	dm_task_destroy(dmt);
free_params:
	loop_secure_free(params, plen);
	return rc;
}

/*
 * The mapping @name on @dev: the LUKS volume @luks when not NULL, else the
 * loop format @cfg asks for (one key, or multi-key).
 */
static int activate(const char *dev, const char *name, const struct loop_engine_config *cfg,
		    const struct dm_range *r, int shared, const struct loop_luks_config *luks,
		    struct loop_state *st)
{
	if (luks)
		return dm_activate_luks(dev, name, cfg, luks, shared, st);
	if (loop_key_count(cfg->key) == 1)
		return activate_plain(dev, name, cfg, r, shared);
	return activate_lmk(dev, name, cfg, r);
}

/* 1 when the mapping @name exists. */
static int mapping_exists(const char *name)
{
	struct dm_task *dmt;
	struct dm_info info;
	int exists = 0;

	dm_quiet();
	dmt = dm_task_create(DM_DEVICE_INFO);
	if (!dmt)
		return 1;	/* cannot tell: keep the record */
	if (dm_task_set_name(dmt, name) && dm_task_run(dmt) &&
	    dm_task_get_info(dmt, &info))
		exists = info.exists;
	else
		exists = 1;
	dm_task_destroy(dmt);
	return exists;
}

/* Remove the mapping; -EBUSY while it is open (mounted). */
static int deactivate(const char *name)
{
	int rc;

	if (!mapping_exists(name))
		return 0;
	crypt_set_log_callback(NULL, quiet_crypt_log, NULL);
	rc = crypt_deactivate_by_name(NULL, name, 0);
	crypt_set_log_callback(NULL, NULL, NULL);
	if (rc == -ENODEV)
		return 0;
	return rc < 0 ? rc : 0;
}

/* Now that the mapping holds the loop device, let its last close free it. */
static int set_autoclear(struct loopdev *ld)
{
	struct loop_info64 info;
	int fd = loopdev_get_fd(ld, 0), rc = 0;

	if (fd < 0)
		return fd;
	if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
		return -errno;
	info.lo_flags |= LO_FLAGS_AUTOCLEAR;
	if (ioctl(fd, LOOP_SET_STATUS64, &info) < 0)
		rc = -errno;
	explicit_bzero(&info, sizeof(info));
	return rc;
}

/* 1 when mapping @name sits on block device @dev (its table's only device). */
static int mapping_sits_on(const char *name, dev_t dev)
{
	struct dm_task *dmt;
	struct dm_deps *deps;
	int on = 0;

	dm_quiet();
	dmt = dm_task_create(DM_DEVICE_DEPS);
	if (!dmt)
		return 1;	/* cannot tell: keep the record */
	if (dm_task_set_name(dmt, name) && dm_task_run(dmt)) {
		deps = dm_task_get_deps(dmt);
		on = deps && deps->count == 1 &&
		     major(deps->device[0]) == major(dev) &&
		     minor(deps->device[0]) == minor(dev);
	}
	dm_task_destroy(dmt);
	return on;
}

/*
 * A mapping straight on the block device @cfg->image. The name is the
 * device's kernel name, with ".N" for a further range of the same device
 * (two read-only users, or ranges that do not overlap).
 */
static int attach_direct(struct loopdev *ld, const struct loop_engine_config *cfg,
			 const struct loop_luks_config *luks, struct loop_state *st,
			 enum loop_err_object *errpos, dev_t rdev)
{
	char kname[32], name[48];
	struct dm_range r;
	int rc, i, shared = 0;

	*errpos = LOOP_ERR_IMAGE;
	rc = dm_kernel_name(rdev, kname, sizeof(kname));
	if (rc)
		return rc;
	rc = dm_direct_range(st->image, cfg->offset, cfg->sizelimit, &r);
	if (rc)
		return rc;
	*errpos = LOOP_ERR_DEVICE;
	rc = dm_direct_may_share(st->image, rdev, &shared);
	if (rc)
		return rc;
	st->pid = 0;
	st->mount[0] = '\0';
	for (i = 0; i < DIRECT_NAMES; i++) {
		if (i)
			snprintf(name, sizeof(name), "%s%s.%d", LOOP_DM_PREFIX, kname, i);
		else
			snprintf(name, sizeof(name), "%s%s", LOOP_DM_PREFIX, kname);
		if (mapping_exists(name))
			continue;
		snprintf(st->id, sizeof(st->id), "%s%s", ID_PREFIX, name);
		snprintf(st->device, sizeof(st->device), "%s/%s", DM_DIR, name);
		rc = activate(st->image, name, cfg, &r, shared, luks, st);
		/* -EEXIST: someone took the name meanwhile; try the next */
		if (rc != -EEXIST)
			break;
	}
	if (i == DIRECT_NAMES)
		return -EEXIST;
	/* -EBUSY: the device is in use (mounted, swap, held open exclusively) */
	if (rc)
		return rc;
	rc = loop_state_create(st);
	if (rc)
		goto remove_record;
	loopdev_set_device(ld, st->device);
	*errpos = LOOP_ERR_NONE;
	return 0;

remove_record:
	loop_state_unlink(st);
	deactivate(name);
	return rc;
}

/* A loop format (@luks NULL) or a LUKS volume, on a loop device or direct. */
static int attach_with(struct loopdev *ld, const struct loop_engine_config *cfg,
		       const struct loop_luks_config *luks, struct loop_state *st,
		       enum loop_err_object *errpos)
{
	static const struct dm_range whole = { 0, 0 };
	struct loopdev_config lc;
	struct stat sb;
	char name[96];
	int rc;

	if (!luks) {
		rc = dm_takes(cfg->spec, cfg->key);
		if (rc)
			return rc;
	}
	/*
	 * A block device needs no loop layer, unless the user named a loop
	 * device or asked for a logical block size only the loop device
	 * gives (dm-crypt's own sector size would change the format).
	 */
	if (stat(st->image, &sb) == 0 && S_ISBLK(sb.st_mode) && !loopdev_get_path(ld) &&
	    (!cfg->block_size || cfg->block_size == LOOP_SECTOR_SIZE))
		return attach_direct(ld, cfg, luks, st, errpos, sb.st_rdev);
	/* partitions would be scanned on the ciphertext: never on the lower */
	loop_engine_image_config(&lc, cfg, st, LO_FLAGS_READ_ONLY | LO_FLAGS_DIRECT_IO);
	if (loopdev_get_path(ld) && !strncmp(loopdev_get_path(ld), "/dev/loop", 9)) {
		loopdev_ctl_add(ld);
		rc = loopdev_attach(ld, &lc, NULL);
	} else {
		rc = loopdev_attach_free(ld, LOOPDEV_KIND_LOOP, &lc, NULL);
	}
	if (rc) {
		*errpos = LOOP_ERR_DEVICE;
		return rc;
	}
	mapping_name(loopdev_get_path(ld), name, sizeof(name));
	snprintf(st->id, sizeof(st->id), "%s%s", ID_PREFIX,
		 strrchr(loopdev_get_path(ld), '/') + 1);
	if (snprintf(st->device, sizeof(st->device), "%s/%s", DM_DIR, name) >=
	    (int)sizeof(st->device)) {
		rc = -ENAMETOOLONG;
		goto detach_loop;
	}
	st->pid = 0;
	st->mount[0] = '\0';

	rc = activate(loopdev_get_path(ld), name, cfg, &whole, 0, luks, st);
	if (rc)
		goto detach_loop;
	rc = set_autoclear(ld);
	if (rc)
		goto remove_mapping;
	rc = loop_state_create(st);
	if (rc)
		goto remove_record;
	return 0;

remove_record:
	loop_state_unlink(st);
remove_mapping:
	deactivate(name);
detach_loop:
	loopdev_detach(ld);
	/* -EEXIST: the mapping name is taken; the kernel says why otherwise */
	*errpos = LOOP_ERR_DEVICE;
	return rc;
}

static int dm_attach(struct loopdev *ld, const struct loop_engine_config *cfg,
		     struct loop_state *st, enum loop_err_object *errpos)
{
	return attach_with(ld, cfg, NULL, st, errpos);
}

static int dm_attach_luks(struct loopdev *ld, const struct loop_engine_config *cfg,
			  const struct loop_luks_config *luks, struct loop_state *st,
			  enum loop_err_object *errpos)
{
	return attach_with(ld, cfg, luks, st, errpos);
}

/* 1 when the loop device has let go of everything. */
static int loop_released(const char *loopdev)
{
	struct loopdev *ld;
	int attached = 0;

	if (loopdev_new(&ld))
		return 0;
	if (loopdev_set_device(ld, loopdev) == 0)
		attached = loopdev_is_attached(ld);
	loopdev_free(ld);
	return !attached;
}

static int dm_detach(struct loopdev *ld, const struct loop_state *st)
{
	char name[96], loopdev[96];
	struct loopdev *lower;
	int rc, i;

	record_mapping_name(st, name, sizeof(name));
	dm_loop_device(st, loopdev, sizeof(loopdev));
	(void)ld;
	rc = deactivate(name);
	if (rc)
		return rc;
	if (dm_is_direct(st)) {
		loop_state_unlink(st);
		return 0;
	}
	/* autoclear frees it at the mapping's close; if someone else holds
	 * it open, clearing now makes that close the last word too */
	if (loopdev_new(&lower) == 0) {
		if (loopdev_set_device(lower, loopdev) == 0 &&
		    loop_engine_backing_is(loopdev, st))
			loopdev_detach(lower);
		loopdev_free(lower);
	}
	for (i = 0; i < RELEASE_TRIES && !loop_released(loopdev); i++)
		loop_usleep(RELEASE_US);
	loop_state_unlink(st);
	return 0;
}

static int dm_owns(const struct loop_state *st)
{
	char name[96], loopdev[96];
	struct stat sb;

	record_mapping_name(st, name, sizeof(name));
	if (!mapping_exists(name))
		return 0;
	if (dm_is_direct(st))
		return stat(st->image, &sb) == 0 && S_ISBLK(sb.st_mode) &&
		       mapping_sits_on(name, sb.st_rdev);
	dm_loop_device(st, loopdev, sizeof(loopdev));
	return loop_engine_backing_is(loopdev, st);
}

static int dm_alive(const struct loop_state *st)
{
	char name[96];

	record_mapping_name(st, name, sizeof(name));
	return mapping_exists(name);
}

/*
 * How many targets the live table of mapping @name has. The dm engine
 * makes one crypt target; more are what an interrupted LUKS2 reencryption
 * leaves (the moved part under the new key, the rest under the old), and
 * one target's table reloaded over the whole length would read the rest
 * with the wrong key.
 */
static int table_targets(const char *name, unsigned int *targets)
{
	struct dm_task *dmt;
	uint64_t start, length;
	char *type = NULL, *params = NULL;
	void *next = NULL;
	int rc = -ENOMEM;

	*targets = 0;
	dm_quiet();
	dmt = dm_task_create(DM_DEVICE_TABLE);
	if (!dmt)
		return rc;
	/* keys in the table (root only) are kept out of swap and wiped */
	if (!dm_task_secure_data(dmt) || !dm_task_set_name(dmt, name) ||
	    !dm_task_no_flush(dmt))
		goto destroy_task;
	rc = -ENODEV;
	if (!dm_task_run(dmt))
		goto destroy_task;
	do {
		next = dm_get_next_target(dmt, next, &start, &length, &type, &params);
		if (type)
			(*targets)++;
	} while (next);
	rc = 0;
destroy_task:
	dm_task_destroy(dmt);
	return rc;
}

/*
 * A crypt mapping's table (one target), reloaded with a new length of
 * @sectors, its key taken from the live table.
 */
static int reload_crypt(const char *name, uint64_t sectors)
{
	struct dm_task *dmt, *load = NULL;
	uint64_t start, length;
	char *type = NULL, *params = NULL;
	int rc = -EINVAL;

	dm_quiet();
	dmt = dm_task_create(DM_DEVICE_TABLE);
	if (!dmt)
		return -ENOMEM;
	/* the table with its key (root only), kept out of swap and wiped */
	if (!dm_task_secure_data(dmt) || !dm_task_set_name(dmt, name) ||
	    !dm_task_no_flush(dmt) || !dm_task_run(dmt))
		goto destroy_query;
	if (dm_get_next_target(dmt, NULL, &start, &length, &type, &params)) {
		rc = -EINPROGRESS;	/* a second target: not ours to reload */
		goto destroy_query;
	}
	if (!type || strcmp(type, "crypt") || !params)
		goto destroy_query;
	rc = -ENOMEM;
	load = dm_task_create(DM_DEVICE_RELOAD);
	if (!load || !dm_task_secure_data(load) || !dm_task_set_name(load, name) ||
	    !dm_task_add_target(load, 0, sectors, "crypt", params))
		goto destroy_load;
	rc = dm_task_run(load) ? 0 : -EINVAL;
	if (rc)
		goto destroy_load;
	dm_task_destroy(load);
	load = dm_task_create(DM_DEVICE_RESUME);
	if (!load || !dm_task_set_name(load, name)) {
		rc = -ENOMEM;
		goto destroy_load;
	}
	rc = run_with_udev(load);
destroy_load:
	if (load)
		dm_task_destroy(load);
destroy_query:
	dm_task_destroy(dmt);
	return rc;
}

/* A single-key mapping to @sectors (0: to the end of what is under it). */
static int resize_plain(const char *name, uint64_t sectors)
{
	struct crypt_device *cd = NULL;
	int rc;

	crypt_set_log_callback(NULL, quiet_crypt_log, NULL);
	rc = crypt_init_by_name(&cd, name);
	crypt_set_log_callback(NULL, NULL, NULL);
	if (rc < 0)
		return rc;
	crypt_set_log_callback(cd, quiet_crypt_log, NULL);
	rc = crypt_resize(cd, name, sectors);
	crypt_free(cd);
	return rc < 0 ? rc : 0;
}

/* A direct mapping: the range again, on the device's new size. */
static int resize_direct(const char *name, const struct loop_state *st)
{
	struct dm_range r;
	int rc = dm_direct_range(st->image, st->offset, st->sizelimit, &r);

	if (rc)
		return rc;
	return st->key_count > 1 ? reload_crypt(name, r.length) : resize_plain(name, r.length);
}

/* A LUKS volume's mapping was made from its header, not from a record's
 * cipher spec: "luks1-..." or "luks2-..." */
static int is_luks(const struct loop_state *st)
{
	return !strncmp(st->cipher, "luks", 4);
}

/* The loop device @loopdev re-reads the size of its image. */
static int reread_loop(const char *loopdev)
{
	struct loopdev *lower;
	int rc = loopdev_new(&lower);

	if (rc)
		return rc;
	rc = loopdev_set_device(lower, loopdev);
	if (rc == 0)
		rc = loopdev_set_capacity(lower);
	loopdev_free(lower);
	return rc;
}

/*
 * A LUKS mapping, as cryptsetup resize grows it: all of @lower past the
 * header's data offset, in whole encryption sectors. Everything that can
 * refuse (header, reencryption, key) is settled before the loop device
 * re-reads its image.
 */
static int resize_luks(const char *name, const char *lower, int direct,
		       const struct loop_luks_config *luks)
{
	struct crypt_device *cd;
	uint64_t sectors, offset, unit;
	int rc = dm_luks_unlock_active(name, luks, &cd);

	if (rc)
		return rc;
	if (!direct)
		rc = reread_loop(lower);
	if (rc == 0)
		rc = dm_device_sectors(lower, &sectors);
	if (rc)
		goto free_device;
	offset = crypt_get_data_offset(cd);
	unit = (uint64_t)crypt_get_sector_size(cd) / LOOP_SECTOR_SIZE;
	rc = -ERANGE;
	if (!unit || sectors <= offset || (sectors - offset) / unit == 0)
		goto free_device;
	rc = crypt_resize(cd, name, (sectors - offset) / unit * unit);
free_device:
	crypt_free(cd);
	return rc < 0 ? rc : 0;
}

/*
 * losetup -c: the loop device first (it re-reads the image), then the
 * mapping. A LUKS mapping whose key is in the kernel keyring is unlocked
 * with @luks (NULL: -ENOKEY). *@targets: the live table's targets; a
 * table of more than one is refused with -EINPROGRESS.
 */
static int dm_resize_luks(struct loopdev *ld, const struct loop_state *st,
			  const struct loop_luks_config *luks, unsigned int *targets)
{
	char name[96], loopdev[96];
	uint64_t sectors = 0;
	int rc;

	(void)ld;
	record_mapping_name(st, name, sizeof(name));
	dm_loop_device(st, loopdev, sizeof(loopdev));
	rc = table_targets(name, targets);
	if (rc)
		return rc;
	if (*targets != 1)
		return -EINPROGRESS;
	if (is_luks(st))
		return resize_luks(name, loopdev, dm_is_direct(st), luks);
	if (dm_is_direct(st))
		return resize_direct(name, st);
	rc = reread_loop(loopdev);
	if (rc)
		return rc;
	if (st->key_count > 1) {
		rc = dm_device_sectors(loopdev, &sectors);
		return rc ? rc : reload_crypt(name, sectors);
	}
	return resize_plain(name, 0);
}

static int dm_resize(struct loopdev *ld, const struct loop_state *st)
{
	unsigned int targets;

	return dm_resize_luks(ld, st, NULL, &targets);
}

const struct loop_engine_ops loop_engine_dm_ops = {
	.kind = LOOP_ENGINE_DM,
	.probe = dm_probe,
	.takes = dm_takes,
	.attach = dm_attach,
	.attach_luks = dm_attach_luks,
	.detach = dm_detach,
	.resize = dm_resize,
	.resize_luks = dm_resize_luks,
	.alive = dm_alive,
	.owns = dm_owns,
	.loop_device = dm_loop_device,
};
