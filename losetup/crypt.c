// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "losetup -e": turn the encryption options into a cipher spec and a key
 * (passphrase from a fd, a key file, gpg or the terminal), attach through
 * an engine, and report failures naming the object that failed.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "losetup.h"
#include "keyopts.h"
#include "luks.h"
#include "swap-refuse.h"

/* loop-AES multi-key: v2 has 64 keys, v3 a 65th that seeds the IV */
#define MULTIKEY_V2_KEYS 64
#define MULTIKEY_V3_KEYS 65

bool crypt_requested(const struct crypt_opts *k)
{
	return k->encryption || k->keybits || k->pass_fd >= 0 || k->phash ||
	       k->gpgkey || k->gpghome || k->seed || k->cleartext || k->itercountk ||
	       k->loinit >= 0 || k->verify || k->allow_short || k->allow_empty || k->force || k->engine ||
	       k->header;
}

/* Where the daemon is: the build tree's for tests, else the installed one. */
static const char *fuse_daemon(void)
{
	/* secure_getenv: a setuid caller's user must not pick the program
	 * that receives the key */
	const char *p = secure_getenv("CRYPTOLOOP_FUSE_DAEMON");

	return p && *p ? p : NULL;
}

int list_ciphers(void)
{
	const struct loop_cipher_info *list;
	int i, n = loop_cipher_list(&list);

	for (i = 0; i < n; i++)
		printf("%-16s %s\n", list[i].name, list[i].description);
	return 0;
}

static void report_attach(int rc, enum loop_err_object who, struct loopdev *ld,
			  const char *image)
{
	errno = -rc;
	switch (who) {
	case LOOP_ERR_IMAGE:
		if (rc == -EBUSY)
			warnx("%s: the image is already in use (attached read-write, or "
			      "read-only while this would write); --force attaches it anyway",
			      image);
		else if (rc == -ERANGE)
			warnx("%s: the image does not reach past the offset "
			      "(no whole sector to encrypt)", image);
		else
			warn("%s: failed to set up encrypted loop device", image);
		break;
	case LOOP_ERR_DEVICE:
		if (rc == -EEXIST)
			warnx("%s: a device-mapper device of the name the dm engine "
			      "gives this loop device exists already", image);
		else
			warn("%s: failed to set up loop device", loopdev_get_path(ld) ?
			     loopdev_get_path(ld) : image);
		break;
	case LOOP_ERR_DAEMON:
		warn("%s: cryptoloop-fuse failed", image);
		break;
	default:
		if (rc == -ENODEV)
			warnx("%s: no encryption engine available (no cryptoloop module "
			      "(kmod), no cryptoloop_xfer module (xfer), no dm-crypt (dm), "
			      "no /dev/fuse or cryptoloop-fuse (fuse))", image);
		else if (rc == -EOPNOTSUPP)
			warnx("%s: the chosen engine cannot take this key", image);
		else
			warn("%s: failed to set up encrypted loop device", image);
	}
}

/*
 * loop-AES's warning, word for word (scripts look for it): key data of 1,
 * 64 or 65 lines is a known format; 2..63 use the first line, more than
 * 65 the first 65.
 */
static void warn_key_lines(const struct loop_cipher_spec *spec, const struct loop_pass *pass)
{
	size_t n = loop_pass_count(pass);

	if (spec->format == LOOP_FORMAT_LOOPAES && n > 1 &&
	    n != MULTIKEY_V2_KEYS && n != MULTIKEY_V3_KEYS)
		warnx("Warning: Unknown key data format - using it anyway "
		      "(%zu key lines; %s uses %s)", n, spec->name,
		      n < MULTIKEY_V2_KEYS ? "the first line only" : "the first 65");
}

/* Why an engine asked for by name cannot run here. */
static void __attribute__((noreturn)) engine_unavailable(enum loop_engine_kind kind, int rc)
{
	const char *name = loop_engine_name(kind);

	switch (rc) {
	case -ENOTSUP:
		errx(EXIT_FAILURE, "engine %s: not built into this losetup", name);
	case -ENOPKG:
		errx(EXIT_FAILURE, "engine %s: device-mapper has no dm-crypt target "
		     "here (dm_crypt is neither loaded nor installed for this kernel)", name);
	case -ENOENT:
		errx(EXIT_FAILURE, "engine %s: the cryptoloop-fuse daemon is missing", name);
	default:
		if (kind == LOOP_ENGINE_DM)
			errx(EXIT_FAILURE, "engine %s: no device-mapper here "
			     "(/dev/mapper/control is missing)", name);
		errx(EXIT_FAILURE, "engine %s is not available here", name);
	}
}

int create_encrypted(struct loopdev *ld, const struct create_opts *c,
		     const struct crypt_opts *k, char *shown, size_t size)
{
	struct loop_engine_config cfg;
	struct loop_cipher_spec spec;
	struct loop_state *st;
	struct loop_pass *pass;
	struct loop_key *key;
	enum loop_err_object who;
	enum loop_engine_kind kind = LOOP_ENGINE_AUTO;
	int rc;

	if (!k->encryption)
		errx(EXIT_FAILURE, "encryption options need --encryption (-e)");
	/* LUKS: its own path through the dm engine (luks.c) */
	if (luks_requested(k))
		return create_luks(ld, c, k, shown, size);
	if (k->engine && loop_engine_parse(k->engine, &kind))
		errx(EXIT_FAILURE, "%s: unknown engine (kmod, xfer, dm, fuse or auto)", k->engine);
	rc = crypt_parse_spec(k, &spec, true);
	luks_refuse_loop_cipher(c, k, rc == 1);
	if (rc == 1 && kind != LOOP_ENGINE_FUSE)	/* "-e none" */
		return create_loop(ld, c);
	if (c->offset % LOOP_SECTOR_SIZE)
		errx(EXIT_FAILURE, "%s: the offset of an encrypted device must be a "
		     "multiple of 512", c->file);
	if (access(c->file, F_OK) < 0)
		err(EXIT_FAILURE, "%s", c->file);

	if (rc == 1) {
		/* "--engine fuse -e none": the daemon without a cipher, the
		 * reference the benchmarks compare the cipher against */
		key = NULL;
	} else if (crypt_random_key(k)) {
		if (k->pass_fd >= 0 || k->gpgkey || k->cleartext || k->seed ||
		    k->itercountk)
			errx(EXIT_FAILURE, "-H random makes its own keys: it takes no "
			     "passphrase, key file, seed or iteration count");
		key = crypt_derive(k, &spec, NULL);
	} else {
		pass = crypt_read_secret_for(k, &spec, "Password: ", false, c->file);
		warn_key_lines(&spec, pass);
		key = crypt_derive(k, &spec, pass);
		loop_pass_free(pass);
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.image = c->file;
	cfg.offset = c->offset;
	cfg.sizelimit = c->sizelimit;
	cfg.lo_flags = c->lo_flags;
	cfg.block_size = (uint32_t)c->blocksize;
	cfg.spec = key ? &spec : NULL;
	cfg.key = key;
	cfg.iv_offset = loop_xfer_iv_offset(c->offset, k->loinit);
	cfg.force = k->force;
	cfg.engine = kind;
	cfg.fuse_daemon = fuse_daemon();
	if ((c->lo_flags & LO_FLAGS_DIRECT_IO) && kind == LOOP_ENGINE_AUTO) {
		rc = loop_engine_choose(cfg.spec, key, cfg.fuse_daemon);
		if (rc >= 0)
			cfg.engine = kind = (enum loop_engine_kind)rc;
	}
	if ((c->lo_flags & LO_FLAGS_DIRECT_IO) && kind == LOOP_ENGINE_FUSE) {
		loop_key_free(key);
		errx(EXIT_FAILURE, "%s: --direct-io is not supported by the fuse engine "
		     "(its daemon reads and writes the image itself, buffered); "
		     "use --engine kmod, xfer or dm", c->file);
	}
	if (kind != LOOP_ENGINE_AUTO) {
		rc = loop_engine_probe(kind, cfg.fuse_daemon);
		if (rc) {
			loop_key_free(key);
			engine_unavailable(kind, rc);
		}
	}

	if (crypt_random_key(k) && !k->force)
		swap_refuse_random_fuse(kind != LOOP_ENGINE_AUTO ? kind :
					(enum loop_engine_kind)loop_engine_choose(&spec, key,
										  cfg.fuse_daemon),
					c->file);

	rc = loop_state_new(&st);
	if (rc) {
		loop_key_free(key);
		errno = -rc;
		err(EXIT_FAILURE, "%s: failed to allocate its record", c->file);
	}
	rc = loop_engine_attach(ld, &cfg, st, &who);
	loop_key_free(key);
	if (rc) {
		loop_state_free(st);
		report_attach(rc, who, ld, c->file);
		return rc;
	}
	if (loop_state_get_engine(st) == LOOP_ENGINE_FUSE && !k->force &&
	    swap_signature_on(loop_state_get_device(st))) {
		loop_state_free(st);
		detach_device(ld);
		errx(EXIT_FAILURE, "%s: its plaintext is swap, and swap through the FUSE "
		     "engine can deadlock: not attached (use --engine kmod or dm; "
		     "--force attaches anyway)", c->file);
	}
	snprintf(shown, size, "%s", loop_state_get_device(st));
	loop_state_free(st);
	return rc;
}

static int warn_corrupt(const char *path, void *data)
{
	(void)data;
	warnx("%s: corrupt record, left alone (its device, daemon and mount "
	      "are not touched; remove it by hand once they are gone)", path);
	return 0;
}

void crypt_gc(void)
{
	loop_state_gc();
	loop_state_foreach_corrupt(warn_corrupt, NULL);
}

const struct loop_state *crypt_state(struct loopdev *ld)
{
	static struct loop_state *st;
	static char cached[64];
	static int found;

	if (!st && loop_state_new(&st))
		err(EXIT_FAILURE, "failed to allocate a record");
	/* one lookup per device per listing */
	if (strcmp(cached, loopdev_get_path(ld))) {
		snprintf(cached, sizeof(cached), "%s", loopdev_get_path(ld));
		found = loop_state_lookup(ld, st) == 0;
	}
	return found ? st : NULL;
}

int resize_device(struct loopdev *ld)
{
	int rc = loop_engine_resize(ld);

	if (rc == -ENOENT)
		rc = loopdev_set_capacity(ld);
	return rc;
}

const char *crypt_multikey_name(const struct loop_state *cs)
{
	switch (loop_state_get_key_count(cs)) {
	case MULTIKEY_V2_KEYS:
		return "multi-key-v2";
	case MULTIKEY_V3_KEYS:
		return "multi-key-v3";
	default:
		return NULL;
	}
}

const char *crypt_device_name(struct loopdev *ld)
{
	const struct loop_state *cs = crypt_state(ld);

	return cs ? loop_state_get_device(cs) : loopdev_get_path(ld);
}

int detach_device(struct loopdev *ld)
{
	int rc = loop_engine_detach(ld);

	if (rc == -ENOENT)
		rc = loopdev_detach(ld);
	if (rc) {
		errno = -rc;
		warn("%s: detach failed", loopdev_get_path(ld));
	}
	return rc;
}
