/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cipher name parsing: what each name meant to util-linux 2.12 +
 * cryptoloop, loop-AES losetup (getApiName(): trailing bits >= 40, name
 * cut at '-') and cryptsetup plain.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <string.h>

#include "libloop-crypto.h"
#include "tap.h"

struct want {
	const char *name;
	unsigned int bits, flags;
	int ret;
	enum loop_cipher_alg alg;
	unsigned int key_bytes, block_bytes;
	enum loop_format format;
	int lo_type;
	const char *lo_crypt_name;
};

static const struct want cases[] = {
	/* util-linux 2.12: raw 32-byte key, so AES-256; LO_CRYPT_CRYPTOAPI */
	{ "aes", 0, 0, 0, LOOP_CIPHER_AES, 32, 16, LOOP_FORMAT_CRYPTOLOOP, 18, "aes-cbc" },
	{ "AES", 0, 0, 0, LOOP_CIPHER_AES, 32, 16, LOOP_FORMAT_CRYPTOLOOP, 18, "aes-cbc" },
	{ "aes-cbc", 0, 0, 0, LOOP_CIPHER_AES, 32, 16, LOOP_FORMAT_CRYPTOLOOP, 18, "aes-cbc" },
	{ "aes", 128, 0, 0, LOOP_CIPHER_AES, 16, 16, LOOP_FORMAT_CRYPTOLOOP, 18, "aes-cbc" },
	{ "twofish", 0, 0, 0, LOOP_CIPHER_TWOFISH, 32, 16, LOOP_FORMAT_CRYPTOLOOP, 18, "twofish-cbc" },
	{ "serpent-cbc", 0, 0, 0, LOOP_CIPHER_SERPENT, 32, 16, LOOP_FORMAT_CRYPTOLOOP, 18, "serpent-cbc" },
	{ "blowfish", 0, 0, 0, LOOP_CIPHER_BLOWFISH, 32, 8, LOOP_FORMAT_CRYPTOLOOP, 18, "blowfish-cbc" },
	{ "blowfish", 448, 0, 0, LOOP_CIPHER_BLOWFISH, 56, 8, LOOP_FORMAT_CRYPTOLOOP, 18, "blowfish-cbc" },
	/* loop-AES */
	{ "AES128", 0, 0, 0, LOOP_CIPHER_AES, 16, 16, LOOP_FORMAT_LOOPAES, 16, "aes-cbc" },
	{ "aes192", 0, 0, 0, LOOP_CIPHER_AES, 24, 16, LOOP_FORMAT_LOOPAES, 16, "aes-cbc" },
	{ "AES-256", 0, 0, 0, LOOP_CIPHER_AES, 32, 16, LOOP_FORMAT_LOOPAES, 16, "aes-cbc" },
	{ "AES256", 256, 0, 0, LOOP_CIPHER_AES, 32, 16, LOOP_FORMAT_LOOPAES, 16, "aes-cbc" },
	{ "twofish128", 0, 0, 0, LOOP_CIPHER_TWOFISH, 16, 16, LOOP_FORMAT_LOOPAES, 3, "twofish-cbc" },
	{ "twofish256", 0, 0, 0, LOOP_CIPHER_TWOFISH, 32, 16, LOOP_FORMAT_LOOPAES, 3, "twofish-cbc" },
	{ "serpent192", 0, 0, 0, LOOP_CIPHER_SERPENT, 24, 16, LOOP_FORMAT_LOOPAES, 7, "serpent-cbc" },
	{ "blowfish160", 0, 0, 0, LOOP_CIPHER_BLOWFISH, 20, 8, LOOP_FORMAT_LOOPAES, 4, "blowfish-cbc" },
	/* bare names become loop-AES when a loop-AES option is present */
	{ "aes", 0, LOOP_SPEC_LOOPAES, 0, LOOP_CIPHER_AES, 16, 16, LOOP_FORMAT_LOOPAES, 16, "aes-cbc" },
	{ "AES", 256, LOOP_SPEC_LOOPAES, 0, LOOP_CIPHER_AES, 32, 16, LOOP_FORMAT_LOOPAES, 16, "aes-cbc" },
	{ "twofish", 0, LOOP_SPEC_LOOPAES, 0, LOOP_CIPHER_TWOFISH, 16, 16, LOOP_FORMAT_LOOPAES, 3, "twofish-cbc" },
	/* loop-AES getApiName() cuts at the first '-' */
	{ "aes-cbc", 0, LOOP_SPEC_LOOPAES, 0, LOOP_CIPHER_AES, 16, 16, LOOP_FORMAT_LOOPAES, 16, "aes-cbc" },
	{ "serpent-cbc", 256, LOOP_SPEC_LOOPAES, 0, LOOP_CIPHER_SERPENT, 32, 16, LOOP_FORMAT_LOOPAES, 7, "serpent-cbc" },
	/* cryptsetup plain */
	{ "aes-cbc-plain", 0, 0, 0, LOOP_CIPHER_AES, 32, 16, LOOP_FORMAT_CRYPTOLOOP, 18, "aes-cbc" },
	{ "aes-cbc-plain64", 128, 0, 0, LOOP_CIPHER_AES, 16, 16, LOOP_FORMAT_PLAIN64, 18, "aes-cbc-plain64" },
	{ "twofish-cbc-plain64", 0, 0, 0, LOOP_CIPHER_TWOFISH, 32, 16, LOOP_FORMAT_PLAIN64, 18, "twofish-cbc-plain64" },
	/* errors */
	{ .name = "rot13", .bits = 0, .flags = 0, .ret = -EINVAL },
	{ .name = "", .bits = 0, .flags = 0, .ret = -EINVAL },
	{ .name = "aes-xts-plain64", .bits = 0, .flags = 0, .ret = -EINVAL },
	{ .name = "aes-cbc-essiv:sha256", .bits = 0, .flags = 0, .ret = -EINVAL },
	{ .name = "AES512", .bits = 0, .flags = 0, .ret = -EINVAL },
	{ .name = "AES128", .bits = 256, .flags = 0, .ret = -EINVAL },       /* name and -k disagree */
	{ .name = "aes", .bits = 100, .flags = 0, .ret = -EINVAL },
	{ .name = "aes-cbc-plain", .bits = 0, .flags = LOOP_SPEC_LOOPAES, .ret = -EINVAL },
	{ .name = "twofish192", .bits = 0, .flags = 0, .ret = -ENOTSUP },    /* libgcrypt has no 192-bit Twofish */
	{ .name = "mars128", .bits = 0, .flags = 0, .ret = -ENOTSUP },
	{ .name = "tripleDES", .bits = 0, .flags = 0, .ret = -ENOTSUP },
	{ .name = "xor", .bits = 0, .flags = 0, .ret = -ENOTSUP },
	{ .name = "des", .bits = 0, .flags = 0, .ret = -ENOTSUP },
	{ .name = "1", .bits = 0, .flags = 0, .ret = -ENOTSUP },             /* util-linux numeric type */
	{ .name = "none", .bits = 0, .flags = 0, .ret = 1 },
	{ .name = "0", .bits = 0, .flags = 0, .ret = 1 },
};

int main(void)
{
	const struct loop_cipher_info *list;
	struct loop_cipher_spec spec;
	size_t i;
	int n, r;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct want *w = &cases[i];

		memset(&spec, 0xA5, sizeof(spec));
		r = loop_cipher_spec_parse(&spec, w->name, w->bits, w->flags);
		ok(r == w->ret, "parse '%s' bits %u flags %u -> %d (got %d)",
		   w->name, w->bits, w->flags, w->ret, r);
		if (r || w->ret)
			continue;
		ok(spec.alg == w->alg && spec.key_bytes == w->key_bytes &&
		   spec.block_bytes == w->block_bytes && spec.format == w->format &&
		   spec.lo_encrypt_type == w->lo_type,
		   "'%s': alg %d key %u block %u format %d lo_type %d", w->name,
		   spec.alg, spec.key_bytes, spec.block_bytes, spec.format,
		   spec.lo_encrypt_type);
		is_str(spec.lo_crypt_name, w->lo_crypt_name, "'%s': lo_crypt_name", w->name);
	}
	ok(loop_cipher_spec_parse(NULL, "aes", 0, 0) == -EINVAL, "NULL spec");
	ok(loop_cipher_spec_parse(&spec, NULL, 0, 0) == -EINVAL, "NULL name");
	ok(loop_cipher_spec_parse(&spec, "aes", 0, 0x80) == -EINVAL, "unknown flag");

	/* every listed name parses */
	n = loop_cipher_list(&list);
	ok(n > 10, "cipher list has %d entries", n);
	for (i = 0; i < (size_t)n; i++)
		ok(loop_cipher_spec_parse(&spec, list[i].name, 0, 0) == 0 &&
		   list[i].description && *list[i].description,
		   "listed '%s' parses", list[i].name);
	return tap_done();
}
