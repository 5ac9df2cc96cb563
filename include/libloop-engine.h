/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libloop-engine.h - encrypted devices: engines and their state.
 *
 * Included from <libloop.h>, and complete on its own.
 *
 * An engine turns (image, range, cipher, key) into a block device:
 *  - "fuse": the cryptoloop-fuse daemon serves the decrypted image as one
 *    file in a private FUSE mount, and a kernel loop device sits on it;
 *  - "kmod": the cryptoloop kernel module's /dev/cryptoloopN, configured
 *    through the loop ABI's encryption fields;
 *  - "xfer": the stock loop.ko of kernels <= 5.15 with the cryptoloop_xfer
 *    transfer module;
 *  - "dm": a stock /dev/loopN (autoclear) under a dm-crypt mapping
 *    /dev/mapper/cryptoloop-loopN, set up through libcryptsetup.
 * What was attached is recorded under LOOP_STATE_DIR (one directory per
 * device) so that any later process can list and detach it.
 *
 * Every function returns 0 or -errno, and prints nothing.
 */
#ifndef LIBLOOP_ENGINE_H
#define LIBLOOP_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libloop.h"
#include "libloop-crypto.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOOP_STATE_DIR "/run/cryptoloop"

enum loop_engine_kind {
	LOOP_ENGINE_AUTO = 0,	/* the best one available */
	LOOP_ENGINE_FUSE,
	LOOP_ENGINE_KMOD,
	LOOP_ENGINE_XFER,	/* <= 5.15: stock loop.ko + cryptoloop_xfer */
	LOOP_ENGINE_DM,		/* stock loop.ko + dm-crypt */
};

/* The dm engine's mapping for /dev/loopN is /dev/mapper/<prefix>loopN. */
#define LOOP_DM_PREFIX "cryptoloop-"

/* "auto", "fuse", "kmod", "xfer", "dm"; parse returns -EINVAL for anything else. */
const char *loop_engine_name(enum loop_engine_kind kind);
int loop_engine_parse(const char *name, enum loop_engine_kind *kind);

/*
 * Whether @kind can run here. Returns 0; -ENODEV when its kernel side is
 * missing (kmod: no /dev/cryptoloop-control; xfer: cryptoloop_xfer not
 * loaded; fuse: no /dev/fuse; dm: no /dev/mapper/control); -ENOPKG when
 * device-mapper has no dm-crypt target and none can be loaded (dm);
 * -ENOENT when the FUSE daemon is missing; -ENOTSUP when this build has
 * no such engine.
 */
int loop_engine_probe(enum loop_engine_kind kind, const char *fuse_daemon);

/* 1 when loop_engine_probe() returns 0, 0 when not. */
int loop_engine_available(enum loop_engine_kind kind, const char *fuse_daemon);

/*
 * Load the cryptoloop module (the kmod engine's kernel side) when it is
 * installed for the running kernel and not loaded yet. Returns 0 when it
 * is loaded; -ENOENT when this kernel has none of ours (also before 5.19,
 * where the name is the kernel's own cryptoloop); -ELIBACC without
 * libkmod; else the kernel's refusal (-EKEYREJECTED: an untrusted
 * signature; -EPERM: not root, or locked down).
 */
int loop_kmod_load(void);

/*
 * 1 when loop_kmod_load()'s @rc means the kernel refused the module for
 * its signature, with @text (of @size bytes) saying so and how to enrol
 * the key; 0 for any other @rc.
 */
int loop_kmod_refusal(int rc, char *text, size_t size);

/*
 * The engine "auto" picks: the first of kmod, xfer, dm, fuse that runs
 * here and takes the key (the loop ABI carries keys of at most 32 bytes;
 * fuse takes a passthrough request too).
 * Returns the kind, or -ENODEV when none can run.
 */
int loop_engine_choose(const struct loop_cipher_spec *spec, const struct loop_key *key,
		       const char *fuse_daemon);

struct loop_engine_config {
	const char *image;		/* the encrypted image (file or block device) */
	uint64_t offset;		/* bytes; a multiple of 512 */
	uint64_t sizelimit;		/* 0: to the end of the image */
	uint32_t lo_flags;		/* LO_FLAGS_READ_ONLY, _PARTSCAN, _DIRECT_IO */
	uint32_t block_size;		/* logical block size, 0: 512 */
	const struct loop_cipher_spec *spec;	/* NULL with key NULL: passthrough (fuse) */
	const struct loop_key *key;
	uint64_t iv_offset;		/* see loop_crypt_iv_offset() */
	int force;			/* attach even if the image is in use read-write */
	enum loop_engine_kind engine;	/* AUTO resolves with loop_engine_choose() */
	const char *fuse_daemon;	/* NULL: LIBEXECDIR/cryptoloop-fuse */
	/* the device's reference (losetup --loop-ref), kept in the record
	 * and in the loop device's lo_file_name; NULL or "": the image */
	const char *ref;
};

/*
 * One attached encrypted device, as recorded in LOOP_STATE_DIR/<id>/state.
 * Opaque: loop_state_new() makes an empty one for loop_engine_attach() or
 * loop_state_lookup() to fill, and the accessors below read it.
 */
struct loop_state;

/* Returns 0, -EINVAL (@st NULL), -ENOMEM. */
int loop_state_new(struct loop_state **st);
/* NULL is fine. */
void loop_state_free(struct loop_state *st);

/* The directory name under LOOP_STATE_DIR. */
const char *loop_state_get_id(const struct loop_state *st);
/* /dev/loopN, /dev/cryptoloopN or /dev/mapper/cryptoloop-loopN. */
const char *loop_state_get_device(const struct loop_state *st);
/* The canonical path of the real image, and its identity. */
const char *loop_state_get_image(const struct loop_state *st);
dev_t loop_state_get_image_dev(const struct loop_state *st);
ino_t loop_state_get_image_ino(const struct loop_state *st);
/* The range as the user gave it, in bytes; sizelimit 0: to the end. */
uint64_t loop_state_get_offset(const struct loop_state *st);
uint64_t loop_state_get_sizelimit(const struct loop_state *st);
/*
 * The device's reference given at attach (losetup --loop-ref), cut to 63
 * bytes like the kernel's lo_file_name; "" when none was given (the loop
 * device then holds the image's path, which util-linux shows as REF).
 */
const char *loop_state_get_ref(const struct loop_state *st);
/* The cipher spec's name, "" for passthrough. */
const char *loop_state_get_cipher(const struct loop_state *st);
unsigned int loop_state_get_key_bits(const struct loop_state *st);
/* 1, 64 or 65; 0 for passthrough. */
unsigned int loop_state_get_key_count(const struct loop_state *st);
/* lo_encrypt_type of the old tools. */
int loop_state_get_encrypt_type(const struct loop_state *st);
enum loop_engine_kind loop_state_get_engine(const struct loop_state *st);
/* 1 when attached read-only, 0 when not. */
int loop_state_is_readonly(const struct loop_state *st);
/* The fuse engine's daemon and its mount point; 0 and "" for the others. */
pid_t loop_state_get_pid(const struct loop_state *st);
const char *loop_state_get_mount(const struct loop_state *st);

/*
 * Attach an encrypted image. @ld bound to a device: use that one; unbound:
 * take the first free one (and @ld is bound to it on success). @st (may
 * be NULL) receives the recorded state.
 * Returns 0; -EBUSY when the image is already attached read-write (or
 * read-only while this one is read-write) and !force; -ENOENT missing
 * image or daemon; -ERANGE image not larger than the offset; -ENODEV no
 * engine; -EOPNOTSUPP a key the engine cannot take; -errno otherwise.
 * On failure nothing stays attached, mounted or running.
 * *@errpos (may be NULL) tells whose fault a failure is: LOOP_ERR_IMAGE,
 * LOOP_ERR_DEVICE or LOOP_ERR_DAEMON.
 */
enum loop_err_object { LOOP_ERR_NONE = 0, LOOP_ERR_IMAGE, LOOP_ERR_DEVICE, LOOP_ERR_DAEMON };
int loop_engine_attach(struct loopdev *ld, const struct loop_engine_config *cfg,
		       struct loop_state *st, enum loop_err_object *errpos);

/*
 * A LUKS volume (LUKS1 or LUKS2, as cryptsetup writes them) opened through
 * the dm engine: libcryptsetup reads the header, unlocks a keyslot and
 * maps the data with dm-crypt as "cryptsetup open" does. The mapping is
 * named and recorded like any other of the dm engine's, so listing,
 * detach and the mount helpers treat it alike.
 */
struct loop_luks_config {
	const char *type;		/* "luks" (either), "luks1" or "luks2" */
	const char *header;		/* detached header file; NULL: in the image */
	/* the key: the whole of @key_file (cryptsetup --key-file), or the
	 * first line of @pass when @key_file is NULL */
	const char *key_file;
	const struct loop_pass *pass;
};

/*
 * 1 when @image (or @header, when not NULL) starts with a LUKS header,
 * 0 when not, -errno when it cannot be read. Needs no dm engine.
 */
int loop_engine_is_luks(const char *image, const char *header);

/*
 * The -e names of a LUKS volume, which loop_attach() opens through the dm
 * engine rather than as a sector cipher: "luks" (either version), "luks1"
 * and "luks2", with a line about each. Returns how many, with @list set.
 */
int loop_luks_names(const struct loop_cipher_info **list);

/* 0 when @name says any LUKS version, 1 or 2 for that one, else -EINVAL. */
int loop_luks_version(const char *name);

/*
 * Open a LUKS volume: as loop_engine_attach(), with @cfg's spec, key,
 * offset, size limit and IV offset unset (the header says where the data
 * is and how it is encrypted); its engine must be AUTO or DM.
 * Returns 0; -EPERM when no keyslot opens with the key; -EINVAL when the
 * header is no LUKS header (of the asked @type); -ENOTSUP without the dm
 * engine; the errors of loop_engine_attach() otherwise.
 */
int loop_engine_attach_luks(struct loopdev *ld, const struct loop_engine_config *cfg,
			    const struct loop_luks_config *luks, struct loop_state *st,
			    enum loop_err_object *errpos);

/*
 * Detach the device @ld is bound to, when it is an encrypted one we
 * recorded (@ld may be bound to the loop device under a dm mapping).
 * fuse: the loop device first, then the daemon, then the FUSE mount, in
 * that order (the other order fails with EBUSY), then the record. A dead
 * daemon is fine. When the device is busy the kernel defers the detach
 * (autoclear) and the daemon exits by itself later.
 * dm: the mapping, then the loop device, then the record; a mapping in
 * use gives -EBUSY and nothing changes.
 * Returns 0, -ENOENT when the device has no record (the caller then
 * detaches it like any loop device), or -errno of what failed.
 */
int loop_engine_detach(struct loopdev *ld);

/*
 * Make the device @ld is bound to (as for detach) follow its image's new
 * size: the loop device, and a dm mapping on top of it.
 * Returns 0, -ENOENT (no record), -errno.
 */
int loop_engine_resize(struct loopdev *ld);

/*
 * loop_engine_resize(), with what a LUKS mapping of the dm engine needs:
 * a LUKS2 volume key lives in dm-crypt, loaded through the kernel keyring,
 * and no table holds it, so growing the mapping unlocks the volume again
 * with @luks's key file or passphrase (@luks->type is not used);
 * @luks->header names a detached header. @luks may be NULL.
 * *@targets (may be NULL): how many targets the mapping's table has.
 * Returns 0; -ENOENT no record; -ENOKEY the mapping needs the key and
 * @luks gives none (nothing has changed); -EPERM no keyslot opens with
 * it; -ENODATA no LUKS header of this mapping (on its device, or
 * @luks->header); -EINPROGRESS a LUKS2 reencryption is in progress: the
 * table has more than one target (*@targets), or the header says so
 * (*@targets is 1); -errno.
 */
int loop_engine_resize_luks(struct loopdev *ld, const struct loop_luks_config *luks,
			    unsigned int *targets);

/*
 * The loop device under the encrypted device @name (e.g. a dm mapping,
 * by any of its names), written to @buf. Returns 0, -ENOENT when @name
 * is no recorded device, -errno.
 */
int loop_state_resolve(const char *name, char *buf, size_t size);

/*
 * Look up the record of the device @ld is bound to. Stale records (the
 * device now holds something else, the daemon and its device are gone,
 * another boot) are removed on the way. Returns 0, -ENOENT.
 */
int loop_state_lookup(struct loopdev *ld, struct loop_state *st);

/*
 * 1 when what serves the record's device is alive, 0 when not: the FUSE
 * daemon, or the dm mapping; kmod and xfer: always (the kernel is).
 */
int loop_state_alive(const struct loop_state *st);

/*
 * Call @fn for each valid record (stale ones are removed). Stops at
 * the first non-zero return and returns it; 0 otherwise.
 */
int loop_state_foreach(int (*fn)(const struct loop_state *st, void *data), void *data);

/*
 * Call @fn with the path of each corrupt record: one that does not parse
 * (unknown, repeated or missing keys, bad values). Such a record proves
 * nothing, so its device, daemon and mount are left alone; the
 * administrator has to look. Stops at the first non-zero return and
 * returns it; 0 otherwise, or -errno.
 */
int loop_state_foreach_corrupt(int (*fn)(const char *path, void *data), void *data);

/* Remove stale records. Returns the number removed, or -errno. */
int loop_state_gc(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBLOOP_ENGINE_H */
