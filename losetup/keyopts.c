// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The key options of losetup and cryptoloop-reencrypt on the command
 * line. The parsing, the secret and the key are libloop's
 * (libloop-attach.h), shared with mount.cryptoloop; here a failure
 * becomes the command's message and exit.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keyopts.h"
#include "cli/cli-options.h"

static void __attribute__((noreturn)) die(const struct loop_attach_msg *m)
{
	errx(EXIT_FAILURE, "%s", m->text);
}

uint64_t size_or_die(const char *arg, const char *what)
{
	uint64_t v;
	int rc = loop_parse_size(arg, &v);

	if (rc == 0)
		return v;
	errno = -rc;
	err(EXIT_FAILURE, "%s: '%s'", what, arg);
}

bool crypt_opt_parse(struct loop_attach_opts *k, int c, const char *arg)
{
	const struct opt_desc *o = key_opt_find(c);
	struct loop_attach_msg m;
	int rc;

	/* libloop knows the key options by their long names */
	if (!o)
		return false;
	rc = loop_attach_opt_set(k, o->name, arg, &m);
	if (rc < 0)
		die(&m);
	return rc == 0;
}

int crypt_parse_spec(const struct loop_attach_opts *k, struct loop_cipher_spec *spec)
{
	struct loop_attach_msg m;
	int rc = loop_attach_spec(k, spec, &m);

	if (rc < 0)
		die(&m);
	if (rc == 1)
		errx(EXIT_FAILURE, "%s: an unencrypted image cannot be used here", k->encryption);
	return 0;
}

struct loop_pass *crypt_read_secret(const struct loop_attach_opts *k,
				    const struct loop_cipher_spec *spec,
				    const char *prompt, bool verify)
{
	struct loop_attach_msg m;
	struct loop_pass *pass;

	if (loop_attach_read_secret(k, spec, prompt, verify, NULL, &pass, &m))
		die(&m);
	return pass;
}

struct loop_key *crypt_derive(const struct loop_attach_opts *k,
			      const struct loop_cipher_spec *spec,
			      const struct loop_pass *pass)
{
	struct loop_attach_msg m;
	struct loop_key *key;

	if (loop_attach_derive(k, spec, pass, &key, &m))
		die(&m);
	return key;
}
