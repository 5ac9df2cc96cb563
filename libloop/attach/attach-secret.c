// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * loop_attach()'s secret and key: read the passphrase or key lines the
 * options point at, derive the key, and say what failed in losetup's
 * words. The secret stays in locked memory (struct loop_pass) from the
 * read to loop_pass_free(), which wipes it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "secret/ask.h"
#include "attach/attach-msg.h"
#include "base/private.h"
#include "base/secure-mem.h"

/* A passphrase fd, in losetup's words; the marks stay in the formats
 * (attach-msg.h), never in an argument */
#define FROM_FD "cannot read the passphrase from " MSG_OPT_ARG("pass-fd", "fd ", "%d")

/* Reading the passphrase from @what (a file), or from the fd @fd when
 * @what is NULL, failed with @rc. */
static int pass_error(struct loop_attach_msg *m, int rc, const char *option,
		      const char *what, int fd)
{
	switch (rc) {
	case -ENOTTY:
		return attach_msg(m, rc, "--pass-fd", "no terminal to ask for the passphrase "
				  "on; give it with " MSG_OPT("pass-fd", "--pass-fd"));
	case -EKEYREJECTED:
		return what ? attach_msg(m, rc, option, "%s", what) :
			      attach_msg(m, rc, option, FROM_FD, fd);
	case -E2BIG:
		return what ? attach_msg(m, rc, option, "%s: a passphrase line is too long", what) :
			      attach_msg(m, rc, option, FROM_FD ": a passphrase line is too long", fd);
	case -ECANCELED:
		return attach_msg(m, rc, option, "no passphrase given");
	default:
		return what ? attach_msg_errno(m, rc, option, "%s", what) :
			      attach_msg_errno(m, rc, option, FROM_FD, fd);
	}
}

/* No line, or an empty first line: with the util-linux 2.12 "aes" rule
 * (the passphrase is the key) an all-zero key. */
static bool pass_empty(const struct loop_pass *pass)
{
	size_t len = 0;

	return !loop_pass_count(pass) || !loop_pass_line(pass, 0, &len) || !len;
}

/* No -p: the terminal, standard input or systemd's password agents. */
static int ask(const struct loop_attach_opts *o, const char *prompt, const char *object,
	       bool verify, const char *what, struct loop_pass **pass,
	       enum ask_source *from, struct loop_attach_msg *m)
{
	int rc = ask_secret(pass, prompt, object, verify, from);

	if (rc == -EKEYREJECTED)
		return attach_msg(m, rc, NULL, "the passphrases do not match");
	if (rc == -ECANCELED && *from == ASK_AGENT)
		return attach_msg(m, rc, NULL, "%s: the password agent cancelled the question",
				  object ? object : what);
	if (rc == -ETIME)
		return attach_msg(m, rc, NULL, "%s: no password agent answered in time",
				  object ? object : what);
	if (rc)
		return pass_error(m, rc, NULL, what, -1);
	return 0;
}

/* The caller's open key file, from its start (a wrong key asked again
 * reads it again). */
static int read_keyfile_fd(struct loop_pass **pass, int fd)
{
	if (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE)
		return -errno;
	return loop_pass_read_fd(pass, fd, LOOP_PASS_MULTI_LINE);
}

static int from_keyfile(const struct loop_attach_opts *o, struct loop_pass **pass,
			struct loop_attach_msg *m)
{
	int rc = o->keyfile_fd >= 0 ? read_keyfile_fd(pass, o->keyfile_fd) :
		 loop_pass_read_file(pass, o->cleartext);

	if (rc)
		return pass_error(m, rc, "--cleartext-keyfile", o->cleartext, -1);
	if (pass_empty(*pass)) {
		loop_pass_free(*pass);
		*pass = NULL;
		return attach_msg(m, -ENODATA, "--cleartext-keyfile", "%s: the key file "
				  "holds no key", o->cleartext);
	}
	return 0;
}

static int from_gpg(const struct loop_attach_opts *o, const char *prompt, bool verify,
		    const char *object, struct loop_pass **pass, struct loop_attach_msg *m)
{
	struct loop_pass *gpgpass = NULL;
	enum ask_source from;
	int rc;

	/* the passphrase that unlocks the key file (gpg judges it); -T asks
	 * twice, as loop-AES did */
	if (o->pass_fd >= 0) {
		rc = loop_pass_read_fd(&gpgpass, o->pass_fd, LOOP_PASS_ONE_LINE);
		if (rc)
			return pass_error(m, rc, "--pass-fd", "cannot read the gpg passphrase", -1);
	} else {
		rc = ask(o, prompt, object, o->verify || verify,
			 "cannot read the gpg passphrase", &gpgpass, &from, m);
		if (rc)
			return rc;
	}
	rc = o->keyfile_fd >= 0 ?
	     loop_pass_from_gpg_fd(pass, o->keyfile_fd, o->gpghome, NULL, gpgpass) :
	     loop_pass_from_gpg(pass, o->gpgkey, o->gpghome, NULL, gpgpass);
	loop_pass_free(gpgpass);
	if (rc == -EKEYREJECTED)
		return attach_msg(m, rc, "--gpgkey", "%s: gpg cannot decrypt the key file "
				  "(wrong passphrase, or not a gpg file)", o->gpgkey);
	if (rc == -EBADMSG)
		return attach_msg(m, rc, "--gpgkey", "%s: the key file decrypts to nothing",
				  o->gpgkey);
	if (rc == -EIO)
		return attach_msg(m, rc, "--gpgkey", "%s: gpg failed partway through the key "
				  "file (truncated or damaged?); none of it is used", o->gpgkey);
	if (rc)
		return pass_error(m, rc, "--gpgkey", o->gpgkey, -1);
	return 0;
}

static int from_fd(const struct loop_attach_opts *o, unsigned int lines,
		   struct loop_pass **pass, struct loop_attach_msg *m)
{
	int rc = loop_pass_read_fd(pass, o->pass_fd, lines);

	if (rc)
		return pass_error(m, rc, "--pass-fd", NULL, o->pass_fd);
	return 0;
}

/*
 * An empty passphrase, wherever it came from: a fd that gives nothing (an
 * unset variable, a missing file), Enter at the terminal, an agent's empty
 * answer (one stray Enter at boot), an empty line on standard input.
 */
static int refuse_empty(const struct loop_attach_opts *o, enum ask_source from,
			const char *object, struct loop_attach_msg *m)
{
#define ALLOW_EMPTY MSG_ASIDE(" (" MSG_OPT("allow-empty-passphrase", \
					  "--allow-empty-passphrase") " accepts it)")
	if (o->pass_fd >= 0)
		return attach_msg(m, -ENODATA, "--pass-fd", MSG_OPT_ARG("pass-fd", "fd ", "%d")
				  ": empty passphrase" ALLOW_EMPTY, o->pass_fd);
	switch (from) {
	case ASK_STDIN:
		return attach_msg(m, -ENODATA, "--pass-fd", "no passphrase: no terminal, no "
				  "password agent, and nothing on standard input; give it "
				  "with " MSG_OPT("pass-fd", "--pass-fd"));
	case ASK_AGENT:
		return attach_msg(m, -ENODATA, NULL, "%s%sthe password agent answered with an "
				  "empty passphrase" ALLOW_EMPTY, object ? object : "",
				  object ? ": " : "");
	case ASK_TTY:
	default:
		return attach_msg(m, -ENODATA, NULL, "%s%sempty passphrase" ALLOW_EMPTY,
				  object ? object : "", object ? ": " : "");
	}
}

static int read_secret(const struct loop_attach_opts *o, const struct loop_cipher_spec *spec,
		       const char *prompt, bool verify, const char *object,
		       struct loop_pass **pass, struct loop_attach_msg *m)
{
	unsigned int lines = spec->format == LOOP_FORMAT_LOOPAES ?
			     LOOP_PASS_MULTI_LINE : LOOP_PASS_ONE_LINE;
	enum ask_source from = ASK_TTY;
	int rc;

	*pass = NULL;
	if (o->cleartext)
		return from_keyfile(o, pass, m);
	if (o->gpgkey)
		return from_gpg(o, prompt, verify, object, pass, m);
	if (o->pass_fd >= 0)
		rc = from_fd(o, lines, pass, m);
	else
		rc = ask(o, prompt, object, o->verify || verify, "cannot read the passphrase",
			 pass, &from, m);
	if (rc || !pass_empty(*pass) || o->allow_empty)
		return rc;
	loop_pass_free(*pass);
	*pass = NULL;
	return refuse_empty(o, from, object, m);
}

LIBLOOP_EXPORT int loop_attach_read_secret(const struct loop_attach_opts *o,
					   const struct loop_cipher_spec *spec,
					   const char *prompt, bool verify,
					   const char *object, struct loop_pass **pass,
					   struct loop_attach_msg *m)
{
	int rc = read_secret(o, spec, prompt, verify, object, pass, m);

	/* the passphrase was copied and compared through the stack and
	 * registers */
	loop_secret_scrub();
	return rc;
}

LIBLOOP_EXPORT int loop_attach_random_key(const struct loop_attach_opts *o)
{
	return o->phash && !strcasecmp(o->phash, "random");
}

/* Why loop_key_derive() refused: -EINVAL has several causes. */
static int derive_invalid(const struct loop_attach_opts *o, const struct loop_cipher_spec *spec,
			  const struct loop_pass *pass, struct loop_attach_msg *m)
{
	if (loop_attach_random_key(o))
		return attach_msg(m, -EINVAL, "--phash", "%s: -H random needs a loop-AES "
				  "cipher with 16-byte blocks (it makes 65 keys, multi-key v3)",
				  spec->name);
	if (loop_pass_count(pass) > 1)
		return attach_msg(m, -EINVAL, NULL, "%s: cannot use %zu key lines "
				  "(loop-AES key files have 1, 64 or 65)", spec->name,
				  loop_pass_count(pass));
	if (o->phash && strchr(o->phash, ':'))
		return attach_msg(m, -EINVAL, "--phash", "%s: invalid hash '%s' (unknown, or "
				  "hashes more than the %u-byte key)", spec->name, o->phash,
				  spec->key_bytes);
	return attach_msg(m, -EINVAL, "--phash", "%s: invalid key parameters (hash '%s')",
			  spec->name, o->phash ? o->phash : "default");
}

static int attach_derive(const struct loop_attach_opts *o,
			 const struct loop_cipher_spec *spec, const struct loop_pass *pass,
			 struct loop_key **key, struct loop_attach_msg *m)
{
	struct loop_key_params params = {
		.hash = o->phash,
		.seed = o->seed,
		.iter_thousands = o->itercountk,
		.allow_short = o->allow_short,
	};
	int rc;

	*key = NULL;
	rc = loop_key_derive(key, spec, &params, pass);
	switch (rc) {
	case 0:
		return 0;
	case -EKEYREJECTED:
		return attach_msg(m, rc, NULL, "the passphrase is too short for %s (loop-AES "
				  "wants %d characters; " MSG_OPT("allow-short-passphrase",
				  "--allow-short-passphrase") " overrides)",
				  spec->name, LOOP_PASS_MIN_LENGTH);
	case -ERANGE:
		return attach_msg(m, rc, "--itercountk",
				  MSG_OPT_ARG("itercountk", "--itercountk ", "%lu")
				  ": too many iterations (at most %lu)", o->itercountk,
				  LOOP_KEY_ITER_MAX);
	case -EINVAL:
		return derive_invalid(o, spec, pass, m);
	default:
		return attach_msg_errno(m, rc, NULL, "cannot derive the key");
	}
}

LIBLOOP_EXPORT int loop_attach_derive(const struct loop_attach_opts *o,
				      const struct loop_cipher_spec *spec,
				      const struct loop_pass *pass, struct loop_key **key,
				      struct loop_attach_msg *m)
{
	int r = attach_derive(o, spec, pass, key, m);

	/* the passphrase and the key went through the stack and registers */
	loop_secret_scrub();
	return r;
}
