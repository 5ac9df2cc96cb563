// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * loop_attach(): from the key options to an attached encrypted device.
 * The cipher spec, the secret, the key, the engine's choice and its
 * refusals, the attach, and a message naming the object that failed.
 * The key lives in locked memory and is wiped (loop_key_free()) before
 * this returns, whatever happened.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach-luks.h"
#include "attach/attach-msg.h"
#include "base/private.h"
#include "base/secure-mem.h"
#include "uapi/cryptoloop_abi.h"
#include "engine/engine-private.h"
#include "attach/swap-refuse.h"


static int attach_failed(struct loop_attach_msg *m, int rc, enum loop_err_object who,
			 struct loopdev *ld, const char *image)
{
	if (who == LOOP_ERR_IMAGE && rc == -EBUSY)
		return attach_msg(m, rc, "--force", "%s: the image is already in use (attached "
				  "read-write, or read-only while this would write); "
				  MSG_OPT("force", "--force") " attaches it anyway", image);
	if (who == LOOP_ERR_IMAGE && rc == -ERANGE)
		return attach_msg(m, rc, "--offset", "%s: the image does not reach past the "
				  "offset (no whole sector to encrypt)", image);
	if (who == LOOP_ERR_DEVICE && rc == -EEXIST)
		return attach_msg(m, rc, NULL, "%s: a device-mapper device of the name the dm "
				  "engine gives this loop device exists already", image);
	if (who == LOOP_ERR_DEVICE)
		return attach_msg_errno(m, rc, NULL, "%s: failed to set up loop device",
					loopdev_get_path(ld) ? loopdev_get_path(ld) : image);
	if (who == LOOP_ERR_DAEMON)
		return attach_msg_errno(m, rc, NULL, "%s: cryptoloop-fuse failed", image);
	if (who == LOOP_ERR_NONE && rc == -ENODEV)
		return attach_msg(m, rc, "--engine", "%s: no encryption engine available (no "
				  "cryptoloop module (kmod), no cryptoloop_xfer module (xfer), "
				  "no dm-crypt (dm), no /dev/fuse or cryptoloop-fuse (fuse))", image);
	if (who == LOOP_ERR_NONE && rc == -EOPNOTSUPP)
		return attach_msg(m, rc, "--engine", "%s: the chosen engine cannot take this key",
				  image);
	return attach_msg_errno(m, rc, NULL, "%s: failed to set up encrypted loop device", image);
}

/*
 * loop-AES's warning, word for word (scripts look for it): key data of 1,
 * 64 or 65 lines is a known format; 2..63 use the first line, more than
 * 65 the first 65.
 */
static void warn_key_lines(const struct loop_attach_opts *o, const struct loop_cipher_spec *spec,
			   const struct loop_pass *pass)
{
	size_t n = loop_pass_count(pass);
	char text[256];

	if (!o->warn || spec->format != LOOP_FORMAT_LOOPAES || n <= 1 ||
	    n == CLO_MULTI_KEYS || n == CLO_MULTI_KEYS_V3)
		return;
	snprintf(text, sizeof(text), "Warning: Unknown key data format - using it anyway "
		 "(%zu key lines; %s uses %s)", n, spec->name,
		 n < CLO_MULTI_KEYS ? "the first line only" : "the first 65");
	o->warn(text, o->warn_data);
}

/* Why an engine asked for by name cannot run here. */
static int engine_unavailable(struct loop_attach_msg *m, enum loop_engine_kind kind, int rc)
{
	const char *name = loop_engine_name(kind);

	switch (rc) {
	case -ENOTSUP:
		return attach_msg(m, rc, "--engine", "engine %s: not built into this losetup",
				  name);
	case -ENOPKG:
		return attach_msg(m, rc, "--engine", "engine %s: device-mapper has no dm-crypt "
				  "target here (dm_crypt is neither loaded nor installed for "
				  "this kernel)", name);
	case -ENOENT:
		return attach_msg(m, rc, "--engine", "engine %s: the cryptoloop-fuse daemon is "
				  "missing", name);
	default:
		if (kind == LOOP_ENGINE_DM)
			return attach_msg(m, rc, "--engine", "engine %s: no device-mapper here "
					  "(/dev/mapper/control is missing)", name);
		return attach_msg(m, rc, "--engine", "engine %s is not available here", name);
	}
}

/* The key for @spec (NULL: "-e none" on the fuse engine, no cipher). */
static int get_key(const struct loop_attach_opts *o, const struct loop_cipher_spec *spec,
		   struct loop_key **key, struct loop_attach_msg *m)
{
	struct loop_pass *pass;
	int rc;

	if (!spec) {
		*key = NULL;
		return 0;
	}
	if (loop_attach_random_key(o)) {
		if (o->pass_fd >= 0 || o->gpgkey || o->cleartext || o->seed || o->itercountk)
			return attach_msg(m, -EINVAL, "--phash", "-H random makes its own keys: "
					  "it takes no passphrase, key file, seed or iteration "
					  "count");
		return loop_attach_derive(o, spec, NULL, key, m);
	}
	rc = loop_attach_read_secret(o, spec, "Password: ", false, o->image, &pass, m);
	if (rc)
		return rc;
	warn_key_lines(o, spec, pass);
	rc = loop_attach_derive(o, spec, pass, key, m);
	loop_pass_free(pass);
	return rc;
}

/*
 * kmod and auto: a module installed but not loaded is loaded here, so
 * that a kernel that refuses it for its signature is named as the reason:
 * kmod fails with it, auto says it and takes the next engine.
 */
static int load_module(const struct loop_attach_opts *o, struct loop_engine_config *cfg,
		       struct loop_attach_msg *m)
{
	char why[400];
	int rc, next;

	if ((cfg->engine != LOOP_ENGINE_KMOD && cfg->engine != LOOP_ENGINE_AUTO) ||
	    !cfg->spec || loop_engine_available(LOOP_ENGINE_KMOD, NULL))
		return 0;
	rc = loop_kmod_load();
	if (!rc || !loop_kmod_refusal(rc, why, sizeof(why)))
		return 0;
	if (cfg->engine == LOOP_ENGINE_KMOD)
		return attach_msg(m, rc, "--engine", "%s: engine kmod: %s", o->image, why);
	next = loop_engine_choose(cfg->spec, cfg->key, cfg->fuse_daemon);
	if (o->warn) {
		char text[sizeof(why) + 100];

		snprintf(text, sizeof(text), "%s: %s; engine %s used instead", o->image, why,
			 next < 0 ? "none" : loop_engine_name((enum loop_engine_kind)next));
		o->warn(text, o->warn_data);
	}
	return 0;
}

/* The engine and its config; refusals that need no key come first. */
static int choose_engine(const struct loop_attach_opts *o, struct loop_engine_config *cfg,
			 struct loop_attach_msg *m)
{
	enum loop_engine_kind kind = cfg->engine;
	int rc;

	rc = load_module(o, cfg, m);
	if (rc)
		return rc;
	if ((o->lo_flags & LO_FLAGS_DIRECT_IO) && kind == LOOP_ENGINE_AUTO) {
		rc = loop_engine_choose(cfg->spec, cfg->key, cfg->fuse_daemon);
		if (rc >= 0)
			cfg->engine = kind = (enum loop_engine_kind)rc;
	}
	if ((o->lo_flags & LO_FLAGS_DIRECT_IO) && kind == LOOP_ENGINE_FUSE)
		return attach_msg(m, -EOPNOTSUPP, "--direct-io", "%s: --direct-io is not "
				  "supported by the fuse engine (its daemon reads and writes "
				  "the image itself, buffered); use "
				  MSG_OPT_ARG("engine", "--engine ", "kmod") ", xfer or dm",
				  o->image);
	if (kind != LOOP_ENGINE_AUTO) {
		rc = loop_engine_probe(kind, cfg->fuse_daemon);
		if (rc)
			return engine_unavailable(m, kind, rc);
	}
	if (loop_attach_random_key(o) && !o->force) {
		if (kind == LOOP_ENGINE_AUTO)
			kind = (enum loop_engine_kind)loop_engine_choose(cfg->spec, cfg->key,
									 cfg->fuse_daemon);
		return swap_refuse_random_fuse(kind, o->image, m);
	}
	return 0;
}

/* Checks of the options alone, before any secret is read. */
static int check_opts(const struct loop_attach_opts *o, enum loop_engine_kind *kind,
		      struct loop_attach_msg *m)
{
	*kind = LOOP_ENGINE_AUTO;
	if (!o->encryption)
		return attach_msg(m, -EINVAL, "--encryption", "encryption options need "
				  MSG_OPT("encryption", "--encryption (-e)"));
	if (o->engine && loop_engine_parse(o->engine, kind))
		return attach_msg(m, -EINVAL, "--engine", "%s: unknown engine (kmod, xfer, dm, "
				  "fuse or auto)", o->engine);
	return 0;
}

/* Where the daemon is: the caller's, the build tree's for tests, or
 * the installed one (NULL). */
static const char *fuse_daemon(const struct loop_attach_opts *o)
{
	/* secure_getenv: a setuid caller's user must not pick the program
	 * that receives the key */
	const char *p = o->fuse_daemon ? o->fuse_daemon : secure_getenv("CRYPTOLOOP_FUSE_DAEMON");

	return p && *p ? p : NULL;
}

static int attach(struct loopdev *ld, const struct loop_attach_opts *o, char *device,
		  size_t size, struct loop_attach_msg *m)
{
	struct loop_engine_config cfg;
	struct loop_cipher_spec spec;
	struct loop_state st;
	struct loop_key *key;
	enum loop_err_object who;
	enum loop_engine_kind kind;
	int rc;

	if (m) {
		m->option = NULL;
		m->text[0] = '\0';
	}
	/* LUKS: the header says the cipher and where the data is */
	if (attach_luks_requested(o))
		return attach_luks(ld, o, device, size, m);
	rc = check_opts(o, &kind, m);
	if (rc)
		return rc;
	rc = loop_attach_spec(o, &spec, m);
	if (rc < 0)
		return rc;
	if (attach_luks_refuse(o, rc == 1, m))
		return -EINVAL;
	if (rc == 1 && kind != LOOP_ENGINE_FUSE)	/* "-e none" */
		return 1;
	if (o->offset % LOOP_SECTOR_SIZE)
		return attach_msg(m, -EINVAL, "--offset", "%s: the offset of an encrypted "
				  "device must be a multiple of 512", o->image);
	if (access(o->image, F_OK) < 0)
		return attach_msg_errno(m, -errno, NULL, "%s", o->image);

	/* "--engine fuse -e none": the daemon without a cipher, the
	 * reference the benchmarks compare the cipher against */
	rc = get_key(o, rc == 1 ? NULL : &spec, &key, m);
	if (rc)
		return rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.image = o->image;
	cfg.offset = o->offset;
	cfg.sizelimit = o->sizelimit;
	cfg.lo_flags = o->lo_flags;
	cfg.block_size = o->block_size;
	cfg.spec = key ? &spec : NULL;
	cfg.key = key;
	cfg.iv_offset = loop_crypt_iv_offset(o->offset, o->loinit);
	cfg.force = o->force;
	cfg.engine = kind;
	cfg.fuse_daemon = fuse_daemon(o);
	cfg.ref = o->ref;
	rc = choose_engine(o, &cfg, m);
	if (!rc) {
		rc = loop_engine_attach(ld, &cfg, &st, &who);
		if (rc)
			attach_failed(m, rc, who, ld, o->image);
	}
	loop_key_free(key);
	if (rc)
		return rc;
	if (st.engine == LOOP_ENGINE_FUSE && !o->force && swap_signature_on(st.device)) {
		if (loop_engine_detach(ld) == -ENOENT)
			loopdev_detach(ld);
		return attach_msg(m, -EPERM, "--force", "%s: its plaintext is swap, and swap "
				  "through the FUSE engine can deadlock: not attached (use "
				  MSG_OPT_ARG("engine", "--engine ", "kmod") " or dm; "
				  MSG_OPT("force", "--force") " attaches anyway)", o->image);
	}
	snprintf(device, size, "%s", st.device);
	return 0;
}

LIBLOOP_EXPORT int loop_attach(struct loopdev *ld, const struct loop_attach_opts *o,
			       char *device, size_t size, struct loop_attach_msg *m)
{
	int rc = attach(ld, o, device, size, m);

	/* the key went to the engine (a message to the FUSE daemon, a dm
	 * table, an ioctl) through the stack and registers */
	loop_secret_scrub();
	return rc;
}
