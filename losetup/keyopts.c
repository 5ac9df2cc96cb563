// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The key options of losetup and cryptoloop-reencrypt: parsing them,
 * reading the secret they point at, and deriving the key. One copy, so
 * that both commands accept and refuse exactly the same things.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ask.h"
#include "keyopts.h"
#include "options.h"

void crypt_opts_init(struct crypt_opts *k)
{
	memset(k, 0, sizeof(*k));
	k->pass_fd = -1;
	k->loinit = -1;
}

static unsigned long number_or_die(const char *arg, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || end == arg || *end || *arg == '-')
		errx(EXIT_FAILURE, "%s: '%s'", what, arg);
	return v;
}

bool crypt_opt_parse(struct crypt_opts *k, int c, const char *arg)
{
	switch (c) {
	case 'e':
		k->encryption = arg;
		break;
	case 'k':
		k->keybits = (unsigned int)number_or_die(arg, "invalid key size");
		break;
	case 'p':
		k->pass_fd = (int)number_or_die(arg, "invalid passphrase file descriptor");
		break;
	case 'T':
		k->verify = true;
		break;
	case 'H':
		k->phash = arg;
		k->loopaes = true;
		break;
	case 'K':
		k->gpgkey = arg;
		k->loopaes = true;
		break;
	case 'G':
		k->gpghome = arg;
		k->loopaes = true;
		break;
	case OPT_CLEARTEXT_KEYFILE:
		k->cleartext = arg;
		k->loopaes = true;
		break;
	case 'S':
		k->seed = arg;
		k->loopaes = true;
		break;
	case 'C':
		k->itercountk = number_or_die(arg, "invalid iteration count");
		if (k->itercountk > LOOP_KEY_ITER_MAX)
			errx(EXIT_FAILURE, "--itercountk %s: too many iterations (at most %lu)",
			     arg, LOOP_KEY_ITER_MAX);
		k->loopaes = true;
		break;
	case 'I':
		k->loinit = (int64_t)number_or_die(arg, "invalid IV offset");
		break;
	case OPT_ALLOW_SHORT:
		k->allow_short = true;
		break;
	case OPT_ALLOW_EMPTY:
		k->allow_empty = true;
		break;
	case OPT_LUKS_HEADER:
		k->header = arg;
		break;
	default:
		return false;
	}
	return true;
}

/* The key size a name such as AES128 or twofish256 carries, or 0. */
static unsigned int name_bits(const char *name)
{
	size_t len = strlen(name), i = len;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	return i < len && i > 0 ? (unsigned int)strtoul(name + i, NULL, 10) : 0;
}

int crypt_parse_spec(const struct crypt_opts *k, struct loop_cipher_spec *spec,
		     bool none_ok)
{
	unsigned int bits = k->encryption ? name_bits(k->encryption) : 0;
	int rc;

	/* loop-AES took -k over the name; say which one is meant instead */
	if (bits >= 64 && k->keybits && k->keybits != bits)
		errx(EXIT_FAILURE, "--encryption %s and --keybits %u conflict: %s is a "
		     "%u-bit key (give one of them)", k->encryption, k->keybits,
		     k->encryption, bits);
	rc = loop_cipher_spec_parse(spec, k->encryption, k->keybits,
				    k->loopaes ? LOOP_SPEC_LOOPAES : 0);

	if (rc == 1 && none_ok)
		return 1;
	if (rc == 1)
		errx(EXIT_FAILURE, "%s: an unencrypted image cannot be used here", k->encryption);
	if (rc == -ENOTSUP)
		errx(EXIT_FAILURE, "%s: encryption type not supported by this build", k->encryption);
	if (rc < 0)
		errx(EXIT_FAILURE, "%s: unknown encryption type or key size "
		     "(see --list-ciphers)", k->encryption);
	return 0;
}

static void __attribute__((noreturn)) pass_error(int rc, const char *what)
{
	errno = -rc;
	switch (rc) {
	case -ENOTTY:
		errx(EXIT_FAILURE, "no terminal to ask for the passphrase on; "
		     "give it with --pass-fd");
	case -EKEYREJECTED:
		errx(EXIT_FAILURE, "%s", what);
	case -E2BIG:
		errx(EXIT_FAILURE, "%s: a passphrase line is too long", what);
	case -ECANCELED:
		errx(EXIT_FAILURE, "no passphrase given");
	default:
		err(EXIT_FAILURE, "%s", what);
	}
}

/* An empty line where a passphrase was asked for: refused unless
 * --allow-empty-passphrase, as the terminal refuses an empty entry. */
static bool pass_empty(const struct loop_pass *pass)
{
	size_t len = 0;

	return !loop_pass_count(pass) || !loop_pass_line(pass, 0, &len) || !len;
}

/* No -p: the terminal, standard input or systemd's password agents. */
static struct loop_pass *ask_or_die(const struct crypt_opts *k, const char *prompt,
				    const char *object, bool verify, const char *what)
{
	struct loop_pass *pass = NULL;
	enum ask_source from;
	int rc = ask_secret(&pass, prompt, object, verify, &from);

	if (rc == -EKEYREJECTED)
		errx(EXIT_FAILURE, "the passphrases do not match");
	if (rc == -ECANCELED && from == ASK_AGENT)
		errx(EXIT_FAILURE, "%s: the password agent cancelled the question",
		     object ? object : what);
	if (rc == -ETIME)
		errx(EXIT_FAILURE, "%s: no password agent answered in time",
		     object ? object : what);
	if (rc)
		pass_error(rc, what);
	if (from == ASK_STDIN && pass_empty(pass) && !k->allow_empty) {
		loop_pass_free(pass);
		errx(EXIT_FAILURE, "no passphrase: no terminal, no password agent, and "
		     "nothing on standard input; give it with --pass-fd");
	}
	return pass;
}

struct loop_pass *crypt_read_secret(const struct crypt_opts *k,
				    const struct loop_cipher_spec *spec,
				    const char *prompt, bool verify)
{
	return crypt_read_secret_for(k, spec, prompt, verify, NULL);
}

struct loop_pass *crypt_read_secret_for(const struct crypt_opts *k,
					const struct loop_cipher_spec *spec,
					const char *prompt, bool verify,
					const char *object)
{
	struct loop_pass *pass = NULL, *gpgpass = NULL;
	unsigned int lines = spec->format == LOOP_FORMAT_LOOPAES ?
			     LOOP_PASS_MULTI_LINE : LOOP_PASS_ONE_LINE;
	char what[64];
	int rc;

	if (k->cleartext) {
		rc = loop_pass_read_file(&pass, k->cleartext);
		if (rc)
			pass_error(rc, k->cleartext);
		if (pass_empty(pass))
			errx(EXIT_FAILURE, "%s: the key file holds no key", k->cleartext);
		return pass;
	}
	if (k->gpgkey) {
		/* the passphrase that unlocks the key file; -T asks twice,
		 * as loop-AES did */
		if (k->pass_fd >= 0) {
			rc = loop_pass_read_fd(&gpgpass, k->pass_fd, LOOP_PASS_ONE_LINE);
			if (rc)
				pass_error(rc, "cannot read the gpg passphrase");
		} else {
			gpgpass = ask_or_die(k, prompt, object, k->verify || verify,
					     "cannot read the gpg passphrase");
		}
		rc = loop_pass_from_gpg(&pass, k->gpgkey, k->gpghome, NULL, gpgpass);
		loop_pass_free(gpgpass);
		if (rc == -EKEYREJECTED)
			errx(EXIT_FAILURE, "%s: gpg cannot decrypt the key file "
			     "(wrong passphrase, or not a gpg file)", k->gpgkey);
		if (rc == -EBADMSG)
			errx(EXIT_FAILURE, "%s: the key file decrypts to nothing", k->gpgkey);
		if (rc)
			pass_error(rc, k->gpgkey);
		return pass;
	}
	if (k->pass_fd >= 0) {
		rc = loop_pass_read_fd(&pass, k->pass_fd, lines);
		snprintf(what, sizeof(what), "cannot read the passphrase from fd %d", k->pass_fd);
		if (rc)
			pass_error(rc, what);
		/* the terminal refuses an empty entry; a fd that gives nothing
		 * (an unset variable, a missing file) must not mean a zero key */
		if (pass_empty(pass) && !k->allow_empty) {
			loop_pass_free(pass);
			errx(EXIT_FAILURE, "fd %d: empty passphrase "
			     "(--allow-empty-passphrase accepts it)", k->pass_fd);
		}
		return pass;
	}
	return ask_or_die(k, prompt, object, k->verify || verify,
			  "cannot read the passphrase");
}

bool crypt_random_key(const struct crypt_opts *k)
{
	return k->phash && !strcasecmp(k->phash, "random");
}

struct loop_key *crypt_derive(const struct crypt_opts *k,
			      const struct loop_cipher_spec *spec,
			      const struct loop_pass *pass)
{
	struct loop_key_params params = {
		.hash = k->phash,
		.seed = k->seed,
		.iter_thousands = k->itercountk,
		.allow_short = k->allow_short,
	};
	struct loop_key *key = NULL;
	int rc = loop_key_derive(&key, spec, &params, pass);

	switch (rc) {
	case 0:
		return key;
	case -EKEYREJECTED:
		errx(EXIT_FAILURE, "the passphrase is too short for %s "
		     "(loop-AES wants %d characters; --allow-short-passphrase overrides)",
		     spec->name, LOOP_PASS_MIN_LENGTH);
	case -ERANGE:
		errx(EXIT_FAILURE, "--itercountk %lu: too many iterations (at most %lu)",
		     k->itercountk, LOOP_KEY_ITER_MAX);
	case -EINVAL:
		if (crypt_random_key(k))
			errx(EXIT_FAILURE, "%s: -H random needs a loop-AES cipher "
			     "with 16-byte blocks (it makes 65 keys, multi-key v3)",
			     spec->name);
		if (loop_pass_count(pass) > 1)
			errx(EXIT_FAILURE, "%s: cannot use %zu key lines "
			     "(loop-AES key files have 1, 64 or 65)", spec->name,
			     loop_pass_count(pass));
		if (k->phash && strchr(k->phash, ':'))
			errx(EXIT_FAILURE, "%s: invalid hash '%s' (unknown, or hashes "
			     "more than the %u-byte key)", spec->name, k->phash,
			     spec->key_bytes);
		errx(EXIT_FAILURE, "%s: invalid key parameters (hash '%s')", spec->name,
		     k->phash ? k->phash : "default");
	default:
		errno = -rc;
		err(EXIT_FAILURE, "cannot derive the key");
	}
}
