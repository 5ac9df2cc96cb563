// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The key options of loop_attach(), by losetup's long names: losetup,
 * cryptoloop-reencrypt and mount.cryptoloop set them through this one
 * parser, so all of them accept and refuse exactly the same things.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "attach/attach-msg.h"
#include "base/private.h"

LIBLOOP_EXPORT void loop_attach_opts_init(struct loop_attach_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pass_fd = -1;
	o->keyfile_fd = -1;
	o->loinit = -1;
}

/*
 * A number of at most @max, in util-linux's words when it is not one.
 * strtoull() alone would take " -1" (blanks, then a sign: ULLONG_MAX) and
 * a value past @max would wrap in the field (-k 4294967424 as 128).
 * Leading blanks are allowed as util-linux allows them, signs are not.
 */
static int number(const char *arg, const char *what, unsigned long long max,
		  unsigned long long *v, struct loop_attach_msg *m, const char *option)
{
	const char *p = arg;
	char *end;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return attach_msg(m, -EINVAL, option, "%s: '%s'", what, arg);
	errno = 0;
	*v = strtoull(p, &end, 0);
	if (*end)
		return attach_msg(m, -EINVAL, option, "%s: '%s'", what, arg);
	if (errno == ERANGE || *v > max)
		return attach_msg_errno(m, -ERANGE, option, "%s: '%s'", what, arg);
	return 0;
}

/* The options that take a string: where it goes, and whether it is
 * one only loop-AES had (then a bare "aes" means loop-AES's). */
static const char **string_field(struct loop_attach_opts *o, const char *name,
				 bool *loopaes)
{
	static const struct {
		const char *name;
		size_t offset;
		bool loopaes;
	} fields[] = {
		{ "encryption",        offsetof(struct loop_attach_opts, encryption), false },
		{ "phash",             offsetof(struct loop_attach_opts, phash),      true },
		{ "gpgkey",            offsetof(struct loop_attach_opts, gpgkey),     true },
		{ "gpghome",           offsetof(struct loop_attach_opts, gpghome),    true },
		{ "cleartext-keyfile", offsetof(struct loop_attach_opts, cleartext),  true },
		{ "pseed",             offsetof(struct loop_attach_opts, seed),       true },
		{ "engine",            offsetof(struct loop_attach_opts, engine),     false },
		{ "header",            offsetof(struct loop_attach_opts, header),     false },
	};
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(fields[i].name, name)) {
			*loopaes = fields[i].loopaes;
			return (const char **)((char *)o + fields[i].offset);
		}
	return NULL;
}

/* The options that take no value. */
static bool *flag_field(struct loop_attach_opts *o, const char *name)
{
	if (!strcmp(name, "verify-passphrase"))
		return &o->verify;
	if (!strcmp(name, "allow-short-passphrase"))
		return &o->allow_short;
	if (!strcmp(name, "allow-empty-passphrase"))
		return &o->allow_empty;
	if (!strcmp(name, "force"))
		return &o->force;
	return NULL;
}

LIBLOOP_EXPORT int loop_attach_opt_set(struct loop_attach_opts *o, const char *name,
				       const char *arg, struct loop_attach_msg *m)
{
	const char **str;
	unsigned long long v = 0;
	bool loopaes = false, *flag;
	int rc;

	str = string_field(o, name, &loopaes);
	if (str) {
		*str = arg;
		o->loopaes |= loopaes;
		return 0;
	}
	flag = flag_field(o, name);
	if (flag) {
		*flag = true;
		return 0;
	}
	if (!strcmp(name, "keybits")) {
		rc = number(arg, "invalid key size", UINT_MAX, &v, m, "--keybits");
		if (!rc)
			o->keybits = (unsigned int)v;
	} else if (!strcmp(name, "pass-fd")) {
		rc = number(arg, "invalid passphrase file descriptor", INT_MAX, &v, m,
			    "--pass-fd");
		if (!rc)
			o->pass_fd = (int)v;
	} else if (!strcmp(name, "itercountk")) {
		rc = number(arg, "invalid iteration count", ULONG_MAX, &v, m, "--itercountk");
		if (!rc && v > LOOP_KEY_ITER_MAX)
			rc = attach_msg(m, -ERANGE, "--itercountk",
					MSG_OPT_ARG("itercountk", "--itercountk ", "%s")
					": too many iterations (at most %lu)", arg,
					LOOP_KEY_ITER_MAX);
		o->itercountk = v;
		o->loopaes = true;
	} else if (!strcmp(name, "loinit")) {
		rc = number(arg, "invalid IV offset", INT64_MAX, &v, m, "--loinit");
		if (!rc)
			o->loinit = (int64_t)v;
	} else {
		return 1;
	}
	return rc;
}

LIBLOOP_EXPORT int loop_attach_requested(const struct loop_attach_opts *o)
{
	return o->encryption || o->keybits || o->pass_fd >= 0 || o->phash ||
	       o->gpgkey || o->gpghome || o->seed || o->cleartext || o->itercountk ||
	       o->loinit >= 0 || o->verify || o->allow_short || o->allow_empty ||
	       o->force || o->engine || o->header;
}

/* The key size a name such as AES128 or twofish256 carries, or 0. */
static unsigned int name_bits(const char *name)
{
	size_t len = strlen(name), i = len;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	return i < len && i > 0 ? (unsigned int)strtoul(name + i, NULL, 10) : 0;
}

LIBLOOP_EXPORT int loop_attach_spec(const struct loop_attach_opts *o,
				    struct loop_cipher_spec *spec, struct loop_attach_msg *m)
{
	unsigned int bits = o->encryption ? name_bits(o->encryption) : 0;
	int rc;

	/* loop-AES took -k over the name; say which one is meant instead */
	if (bits >= 64 && o->keybits && o->keybits != bits)
		return attach_msg(m, -EINVAL, "--keybits", MSG_OPT_ARG("encryption", "--encryption ", "%s")
				  " and " MSG_OPT_ARG("keybits", "--keybits ", "%u")
				  " conflict: %s is a %u-bit key (give one of them)",
				  o->encryption, o->keybits, o->encryption, bits);
	rc = loop_cipher_spec_parse(spec, o->encryption, o->keybits,
				    o->loopaes ? LOOP_SPEC_LOOPAES : 0);
	if (rc == 1)
		return 1;
	if (rc == -ENOTSUP)
		return attach_msg(m, rc, "--encryption", "%s: encryption type not supported "
				  "by this build", o->encryption);
	if (rc < 0)
		return attach_msg(m, rc, "--encryption", "%s: unknown encryption type or key "
				  "size (see losetup --list-ciphers)", o->encryption);
	return 0;
}
