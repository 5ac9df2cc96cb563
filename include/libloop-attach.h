/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libloop-attach.h - attach an encrypted loop device in one call.
 *
 * losetup -e and mount.cryptoloop both fill a struct loop_attach_opts
 * (the key options of losetup(8): -e -k -p -T -H -K -G -S -C -I,
 * --cleartext-keyfile, --engine, --force, --header, and the image's
 * offset, size limit and flags) and call loop_attach(). It reads the
 * secret (key file, gpg, a passphrase fd, or without one the terminal,
 * standard input or systemd's password agents), derives the key in locked
 * memory, attaches through the chosen engine and wipes the key. With -e
 * luks, luks1 or luks2 it opens a LUKS volume through the dm engine
 * instead: the header (in the image, or --header) says the cipher, the
 * key and where the data is, so the loop formats' options are refused.
 *
 * Nothing here prints or exits. A failure returns -errno and fills a
 * struct loop_attach_msg: the text the caller prints (in losetup's words,
 * without a program name), the long option it is about, if any, and as
 * data every option the text names, so that a caller with other words
 * for them (mount.cryptoloop's fstab options) says them its own way.
 */
#ifndef LIBLOOP_ATTACH_H
#define LIBLOOP_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libloop.h"

#ifdef __cplusplus
extern "C" {
#endif

struct loop_attach_opts {
	/* the key options */
	const char *encryption;		/* -e NAME; NULL: not encrypted */
	unsigned int keybits;		/* -k */
	int pass_fd;			/* -p FD, -1: none */
	const char *phash;		/* -H */
	const char *gpgkey;		/* -K */
	const char *gpghome;		/* -G */
	const char *seed;		/* -S */
	const char *cleartext;		/* --cleartext-keyfile */
	/*
	 * The file of gpgkey or cleartext, already opened by the caller (a
	 * regular file it checked); that name then only names it in
	 * messages. -1: open the name. Read from its start, never closed.
	 */
	int keyfile_fd;
	unsigned long itercountk;	/* -C */
	int64_t loinit;			/* -I, -1: from the offset */
	bool verify;			/* -T: ask twice */
	bool allow_short;		/* --allow-short-passphrase */
	bool allow_empty;		/* --allow-empty-passphrase */
	bool force;			/* --force */
	bool loopaes;			/* a loop-AES-only option was given */
	const char *engine;		/* --engine NAME; NULL: auto */
	const char *header;		/* --header: a detached LUKS header */

	/* the image and the device */
	const char *image;
	uint64_t offset;		/* bytes, a multiple of 512 */
	uint64_t sizelimit;		/* bytes, 0: to the end */
	uint32_t block_size;		/* 0: the default */
	uint32_t lo_flags;		/* LO_FLAGS_READ_ONLY, _DIRECT_IO, ... */
	const char *fuse_daemon;	/* NULL: the installed cryptoloop-fuse */

	/*
	 * Called with a warning that does not stop the attach (loop-AES's
	 * "Unknown key data format" for odd key files, the kernel refusing
	 * the cryptoloop module for its signature); NULL: dropped.
	 */
	void (*warn)(const char *text, void *data);
	void *warn_data;

	/* the device's reference (losetup --loop-ref); NULL: the image */
	const char *ref;
};

/* An option that a message's text names. */
struct loop_attach_msg_ref {
	char option[24];		/* its long name, as loop_attach_opt_set() takes it */
	unsigned short at, len;		/* text[at, at + len): losetup's words for it */
	unsigned short arg;		/* text[arg, at + len): its argument; at + len: none */
	/* the aside (" (... accepts it)") that only offers this option, which
	 * a caller without a word for it leaves out; aside_len 0: none */
	unsigned short aside_at, aside_len;
};

#define LOOP_ATTACH_MSG_REFS 6

struct loop_attach_msg {
	const char *option;	/* the long option the failure is about, or NULL */
	char text[512];		/* what to tell the user; "" when nothing */
	unsigned int nrefs;	/* the options it names, in the order it does */
	struct loop_attach_msg_ref refs[LOOP_ATTACH_MSG_REFS];
};

/* Empty options: no -p fd, no key file fd, the IV offset from the data offset. */
void loop_attach_opts_init(struct loop_attach_opts *o);

/*
 * Set key option @name (losetup's long name without "--": "encryption",
 * "keybits", "pass-fd", "phash", "gpgkey", "gpghome", "pseed",
 * "cleartext-keyfile", "itercountk", "loinit", "verify-passphrase",
 * "allow-short-passphrase", "allow-empty-passphrase", "force", "engine",
 * "header")
 * to @arg, which must live as long as @o. Returns 0; 1 when @name is not
 * a key option; -EINVAL with @m filled for a malformed number.
 */
int loop_attach_opt_set(struct loop_attach_opts *o, const char *name, const char *arg,
			struct loop_attach_msg *m);

/* 1 when any key option is set (the attach must go through loop_attach()). */
int loop_attach_requested(const struct loop_attach_opts *o);

/*
 * -e and -k as a cipher spec. Returns 0; 1 for "none" (not encrypted);
 * or -errno with @m filled (unknown name, key size, conflict).
 */
int loop_attach_spec(const struct loop_attach_opts *o, struct loop_cipher_spec *spec,
		     struct loop_attach_msg *m);

/*
 * The secret lines for @spec: from --cleartext-keyfile, gpg (-K, its
 * passphrase from -p or asked for), -p FD, or else the terminal, standard
 * input or systemd's password agents, prompting with @prompt and naming
 * @object (the image; may be NULL) in an agent's question. @verify (or
 * o->verify) asks twice. Returns 0 with *pass (loop_pass_free() it), or
 * -errno with @m filled.
 */
int loop_attach_read_secret(const struct loop_attach_opts *o,
			    const struct loop_cipher_spec *spec, const char *prompt,
			    bool verify, const char *object, struct loop_pass **pass,
			    struct loop_attach_msg *m);

/* 1 for loop-AES's "-H random" (65 fresh keys, no secret to read). */
int loop_attach_random_key(const struct loop_attach_opts *o);

/*
 * The key from @pass (NULL for -H random). Returns 0 with *key
 * (loop_key_free() it), or -errno with @m filled.
 */
int loop_attach_derive(const struct loop_attach_opts *o, const struct loop_cipher_spec *spec,
		       const struct loop_pass *pass, struct loop_key **key,
		       struct loop_attach_msg *m);

/*
 * Read the secret, derive the key and attach o->image through the chosen
 * engine on a free device (or the one @ld is bound to). Returns 0 with
 * the device to use (a dm mapping for the dm engine) in @device; 1 for
 * "-e none" on an engine other than fuse: nothing is done, the caller
 * attaches a plain loop device; or -errno with @m filled. -e luks, luks1
 * or luks2 opens a LUKS volume through the dm engine (the passphrase line,
 * or --cleartext-keyfile's whole file as cryptsetup's --key-file); any
 * other -e refuses --header, and an image with a LUKS header unless
 * --force.
 */
int loop_attach(struct loopdev *ld, const struct loop_attach_opts *o,
		char *device, size_t size, struct loop_attach_msg *m);

/*
 * losetup -c: make the device @ld is bound to follow its image's new size
 * (an encrypted device through its engine, any other loop device with
 * LOOP_SET_CAPACITY). A LUKS2 mapping of the dm engine holds its volume
 * key only in dm-crypt (loaded through the kernel keyring, never in its
 * table), so growing it unlocks the volume again: o->header names a
 * detached header, and the key is o->cleartext's whole file or the
 * passphrase line from o->pass_fd, the terminal or the password agents,
 * read only when nothing else refuses. A mapping whose table has several
 * targets, or whose LUKS2 header says a reencryption is in progress, is
 * refused: one target over the whole would read the rest with the wrong
 * key. Those options on any other device are refused too.
 * Returns 0, or -errno with @m filled.
 */
int loop_device_resize(struct loopdev *ld, const struct loop_attach_opts *o,
		       struct loop_attach_msg *m);

/*
 * Bind @ld to the device @name: a loop device, or an encrypted device's
 * other name (the dm engine's mapping). Returns 0, -ENODEV when @name is
 * neither, or -errno.
 */
int loopdev_set_named(struct loopdev *ld, const char *name);

/*
 * Detach the device @name (see loopdev_set_named()), tearing down what
 * its engine put on it; a busy device is detached when it is closed.
 * Returns 0 or -errno.
 */
int loop_device_detach(const char *name);

/*
 * The image behind the device @name (its record's canonical path, else
 * the loop device's backing file), malloc'ed into *image. Returns 0,
 * -ENXIO when it has none, or -errno.
 */
int loop_device_image(const char *name, char **image);

#ifdef __cplusplus
}
#endif

#endif
