/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The encryption ("key") options shared by losetup and
 * cryptoloop-reencrypt: one parser, one way to read the secret and
 * derive the key, one set of messages.
 */
#ifndef LOSETUP_KEYOPTS_H
#define LOSETUP_KEYOPTS_H

#include <stdbool.h>

#include "losetup.h"

/* An empty option set: no -p fd, the IV offset from the data offset. */
void crypt_opts_init(struct crypt_opts *k);

/*
 * Record key option @c (a short letter or OPT_* code of options.h) with
 * argument @arg. Returns true when @c is a key option, false when the
 * caller must handle it. Dies on a malformed number.
 */
bool crypt_opt_parse(struct crypt_opts *k, int c, const char *arg);

/* -e and -k as a cipher spec; dies naming the cipher when they are bad,
 * and on "none" unless @none_ok (then returns 1). Returns 0. */
int crypt_parse_spec(const struct crypt_opts *k, struct loop_cipher_spec *spec,
		     bool none_ok);

/*
 * The secret lines, from the key file, gpg, -p FD, or without -p from
 * the terminal, standard input or systemd's password agents (ask.c),
 * prompting with @prompt; asking twice with -T or @verify (with -K: the
 * gpg passphrase). Dies on failure with a message naming what failed.
 * The _for form names @object (the image) in an agent's question.
 */
struct loop_pass *crypt_read_secret(const struct crypt_opts *k,
				    const struct loop_cipher_spec *spec,
				    const char *prompt, bool verify);
struct loop_pass *crypt_read_secret_for(const struct crypt_opts *k,
					const struct loop_cipher_spec *spec,
					const char *prompt, bool verify,
					const char *object);

/*
 * loop-AES's "-H random": 65 fresh keys (multi-key v3) for a device whose
 * contents live only until it is detached, such as swap. There is no
 * passphrase to ask for or to read.
 */
bool crypt_random_key(const struct crypt_opts *k);

/* The key from @pass (NULL for -H random); dies with a message on failure. */
struct loop_key *crypt_derive(const struct crypt_opts *k,
			      const struct loop_cipher_spec *spec,
			      const struct loop_pass *pass);

#endif
