/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The encryption ("key") options shared by losetup and
 * cryptoloop-reencrypt, on top of libloop's (libloop-attach.h): each
 * call dies with libloop's message where libloop returns one.
 */
#ifndef LOSETUP_KEYOPTS_H
#define LOSETUP_KEYOPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "losetup.h"

/* -o, --sizelimit and other sizes (loop_parse_size()); dies with
 * "WHAT: 'ARG': error" on a bad one. */
uint64_t size_or_die(const char *arg, const char *what);

/*
 * Record key option @c (a code of cli-options.h's key list) with
 * argument @arg. Returns true when libloop took it, false when the
 * caller must handle it (any other option, and -o, --sizelimit). Dies
 * on a malformed number.
 */
bool crypt_opt_parse(struct loop_attach_opts *k, int c, const char *arg);

/* -e and -k as a cipher spec; dies naming the cipher when they are bad
 * or "none". Returns 0. */
int crypt_parse_spec(const struct loop_attach_opts *k, struct loop_cipher_spec *spec);

/* loop_attach_read_secret() without an object; dies on failure. */
struct loop_pass *crypt_read_secret(const struct loop_attach_opts *k,
				    const struct loop_cipher_spec *spec,
				    const char *prompt, bool verify);

/* The key from @pass (NULL for -H random); dies with a message on failure. */
struct loop_key *crypt_derive(const struct loop_attach_opts *k,
			      const struct loop_cipher_spec *spec,
			      const struct loop_pass *pass);

#endif
