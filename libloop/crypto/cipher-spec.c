/*
 * cipher-spec.c - what an `-e NAME` meant to the tool that wrote the image.
 *
 * Three families of names:
 *  - util-linux 2.12 + kernel cryptoloop: "aes", "aes-cbc", "twofish", ...
 *    util-linux passed the name to the kernel (LO_CRYPT_CRYPTOAPI) and the
 *    key was always 32 raw bytes, so AES meant AES-256.
 *  - loop-AES: "AES128", "aes-256", "twofish160", ... The trailing number
 *    is the key size when it is >= 40, and everything from the first '-'
 *    is dropped (loop-AES losetup's getApiName()).
 *  - cryptsetup plain: "aes-cbc-plain", "aes-cbc-plain64".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include <gcrypt.h>
#include <linux/loop.h>

#include "crypto/crypto-internal.h"

struct cipher_family {
	const char *name;          /* lower case */
	enum loop_cipher_alg alg;
	unsigned int block_bytes;
	unsigned int loopaes_default_bits;
	int loopaes_type;          /* loop-AES lo_encrypt_type */
};

static const struct cipher_family families[] = {
	{ "aes",      LOOP_CIPHER_AES,      16, 128, CLO_CRYPT_LOOPAES_AES },
	{ "twofish",  LOOP_CIPHER_TWOFISH,  16, 128, CLO_CRYPT_LOOPAES_TWOFISH },
	{ "serpent",  LOOP_CIPHER_SERPENT,  16, 128, CLO_CRYPT_LOOPAES_SERPENT },
	{ "blowfish", LOOP_CIPHER_BLOWFISH,  8, 128, CLO_CRYPT_LOOPAES_BLOWFISH },
};

/* Names the old tools accepted that we deliberately do not run. */
static const char *const known_unsupported[] = {
	"xor", "des", "cast128", "idea", "mars", "rc6", "tripledes", "3des",
	"des3_ede", "dfc", "skipjack", "des_ede3", NULL
};

static const struct cipher_family *find_family(const char *lname)
{
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strcmp(families[i].name, lname))
			return &families[i];
	return NULL;
}

static int is_known_unsupported(const char *lname)
{
	size_t i;

	for (i = 0; known_unsupported[i]; i++)
		if (!strcmp(known_unsupported[i], lname))
			return 1;
	return 0;
}

int loop_gcry_cipher_algo(enum loop_cipher_alg alg, unsigned int key_bytes)
{
	switch (alg) {
	case LOOP_CIPHER_AES:
		if (key_bytes == 16) return GCRY_CIPHER_AES128;
		if (key_bytes == 24) return GCRY_CIPHER_AES192;
		if (key_bytes == 32) return GCRY_CIPHER_AES256;
		return -EINVAL;
	case LOOP_CIPHER_TWOFISH:
		/* libgcrypt has no 192-bit Twofish (loop-AES twofish160/192). */
		if (key_bytes == 16) return GCRY_CIPHER_TWOFISH128;
		if (key_bytes == 32) return GCRY_CIPHER_TWOFISH;
		if (key_bytes == 20 || key_bytes == 24) return -ENOTSUP;
		return -EINVAL;
	case LOOP_CIPHER_SERPENT:
		if (key_bytes == 16) return GCRY_CIPHER_SERPENT128;
		if (key_bytes == 24) return GCRY_CIPHER_SERPENT192;
		if (key_bytes == 32) return GCRY_CIPHER_SERPENT256;
		return -EINVAL;
	case LOOP_CIPHER_BLOWFISH:
		/* Blowfish takes 32..448-bit keys (libgcrypt and the kernel). */
		if (key_bytes >= 4 && key_bytes <= 56) return GCRY_CIPHER_BLOWFISH;
		return -EINVAL;
	}
	return -EINVAL;
}

static int check_key_bits(const struct cipher_family *f, unsigned int bits)
{
	int r;

	if (!bits || bits % 8)
		return -EINVAL;
	r = loop_gcry_cipher_algo(f->alg, bits / 8);
	return r < 0 ? r : 0;
}

static void lower_copy(char *dst, const char *src, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

/* "aes-cbc-plain", "aes-cbc-plain64", "twofish-cbc-plain", ... */
static int parse_cryptsetup_style(struct loop_cipher_spec *spec, const char *lname,
				  unsigned int key_bits)
{
	char cipher[32];
	const struct cipher_family *f;
	const char *mode;
	size_t n;
	int r;

	mode = strchr(lname, '-');
	if (!mode)
		return -EINVAL;
	n = (size_t)(mode - lname);
	if (n >= sizeof(cipher))
		return -EINVAL;
	memcpy(cipher, lname, n);
	cipher[n] = '\0';
	f = find_family(cipher);
	if (!f)
		return is_known_unsupported(cipher) ? -ENOTSUP : -EINVAL;

	if (!strcmp(mode, "-cbc-plain"))
		spec->format = LOOP_FORMAT_CRYPTOLOOP;
	else if (!strcmp(mode, "-cbc-plain64"))
		spec->format = LOOP_FORMAT_PLAIN64;
	else
		return -EINVAL;

	if (!key_bits)
		key_bits = 256;    /* cryptsetup's plain default (-s 256) */
	r = check_key_bits(f, key_bits);
	if (r < 0)
		return r;
	spec->alg = f->alg;
	spec->block_bytes = f->block_bytes;
	spec->key_bytes = key_bits / 8;
	spec->lo_encrypt_type = LO_CRYPT_CRYPTOAPI;
	snprintf(spec->name, sizeof(spec->name), "%s", lname);
	/* Kernel cryptoloop understood "cipher-cbc"; the IV kind is ours. */
	if (spec->format == LOOP_FORMAT_CRYPTOLOOP)
		snprintf(spec->lo_crypt_name, sizeof(spec->lo_crypt_name), "%s-cbc", f->name);
	else
		snprintf(spec->lo_crypt_name, sizeof(spec->lo_crypt_name), "%s", lname);
	return 0;
}

/* "aes", "aes-cbc", "twofish", "serpent-cbc", ... (util-linux 2.12) */
static int parse_cryptoloop(struct loop_cipher_spec *spec, const struct cipher_family *f,
			    unsigned int key_bits)
{
	int r;

	/* util-linux 2.12 always handed the kernel LO_KEY_SIZE = 32 bytes. */
	if (!key_bits)
		key_bits = 256;
	r = check_key_bits(f, key_bits);
	if (r < 0)
		return r;
	spec->alg = f->alg;
	spec->block_bytes = f->block_bytes;
	spec->key_bytes = key_bits / 8;
	spec->format = LOOP_FORMAT_CRYPTOLOOP;
	spec->lo_encrypt_type = LO_CRYPT_CRYPTOAPI;
	snprintf(spec->name, sizeof(spec->name), "%s", f->name);
	snprintf(spec->lo_crypt_name, sizeof(spec->lo_crypt_name), "%s-cbc", f->name);
	return 0;
}

/* loop-AES: the digits at the end are the key size if >= 40, and the
 * name ends at its first '-' ("AES-256" == "AES256"). */
static int parse_loopaes(struct loop_cipher_spec *spec, const char *lname,
			 unsigned int key_bits, int bare_ok)
{
	char base[32];
	const struct cipher_family *f;
	size_t len = strlen(lname), digits_at = len;
	unsigned long bits = 0;
	char *dash;

	while (digits_at > 0 && isdigit((unsigned char)lname[digits_at - 1]))
		digits_at--;
	if (digits_at < len) {
		if (len - digits_at > 4)
			return -EINVAL;
		bits = strtoul(lname + digits_at, NULL, 10);
	}
	if (bits >= 40) {
		if (digits_at >= sizeof(base))
			return -EINVAL;
		memcpy(base, lname, digits_at);
		base[digits_at] = '\0';
	} else {
		if (len >= sizeof(base))
			return -EINVAL;
		memcpy(base, lname, len + 1);
		bits = 0;
	}
	dash = strchr(base, '-');
	if (dash) {
		/* loop-AES drops everything from the first '-' ("aes-cbc" is
		 * "aes" there).  Without loop-AES options, only "NAME-BITS"
		 * gets here: "NAME-cbc" was taken as cryptoloop before. */
		if (!bare_ok && (dash[1] != '\0' || !bits))
			return -EINVAL;
		*dash = '\0';
	}
	if (!bits && !bare_ok)
		return -EINVAL;

	f = find_family(base);
	if (!f)
		return is_known_unsupported(base) ? -ENOTSUP : -EINVAL;
	if (bits && key_bits && bits != key_bits)
		return -EINVAL;
	if (!bits)
		bits = key_bits ? key_bits : f->loopaes_default_bits;
	if (bits > 256)
		return -EINVAL;
	if (check_key_bits(f, (unsigned int)bits) < 0)
		return loop_gcry_cipher_algo(f->alg, (unsigned int)bits / 8) == -ENOTSUP
			? -ENOTSUP : -EINVAL;

	spec->alg = f->alg;
	spec->block_bytes = f->block_bytes;
	spec->key_bytes = (unsigned int)bits / 8;
	spec->format = LOOP_FORMAT_LOOPAES;
	spec->lo_encrypt_type = f->loopaes_type;
	snprintf(spec->name, sizeof(spec->name), "%s%lu",
		 f->alg == LOOP_CIPHER_AES ? "AES" : f->name, bits);
	/* loop-AES losetup falls back to the crypto API as "NAME-cbc". */
	snprintf(spec->lo_crypt_name, sizeof(spec->lo_crypt_name), "%s-cbc", f->name);
	return 0;
}

LIBLOOP_EXPORT int loop_cipher_spec_parse(struct loop_cipher_spec *spec, const char *name,
			   unsigned int key_bits, unsigned int flags)
{
	struct loop_cipher_spec tmp;
	char lname[64];
	const struct cipher_family *f;
	int r;

	if (!spec || !name || !*name || strlen(name) >= sizeof(lname))
		return -EINVAL;
	if (flags & ~(unsigned int)LOOP_SPEC_LOOPAES)
		return -EINVAL;
	lower_copy(lname, name, sizeof(lname));
	memset(&tmp, 0, sizeof(tmp));

	if (!strcmp(lname, "none") || !strcmp(lname, "no") || !strcmp(lname, "0"))
		return 1;

	if (strstr(lname, "-cbc-")) {
		if (flags & LOOP_SPEC_LOOPAES)
			return -EINVAL;
		r = parse_cryptsetup_style(&tmp, lname, key_bits);
	} else if (!(flags & LOOP_SPEC_LOOPAES) &&
		   (f = find_family(lname)) != NULL) {
		r = parse_cryptoloop(&tmp, f, key_bits);
	} else if (!(flags & LOOP_SPEC_LOOPAES) && strlen(lname) > 4 &&
		   !strcmp(lname + strlen(lname) - 4, "-cbc")) {
		char base[64];

		memcpy(base, lname, strlen(lname) - 4);
		base[strlen(lname) - 4] = '\0';
		f = find_family(base);
		if (f)
			r = parse_cryptoloop(&tmp, f, key_bits);
		else
			r = is_known_unsupported(base) ? -ENOTSUP : -EINVAL;
	} else {
		r = parse_loopaes(&tmp, lname, key_bits, flags & LOOP_SPEC_LOOPAES);
	}
	if (r == -EINVAL && is_known_unsupported(lname))
		r = -ENOTSUP;
	if (r == -EINVAL) {
		/* util-linux 2.12 took a number as lo_encrypt_type. */
		size_t i;

		for (i = 0; lname[i] && isdigit((unsigned char)lname[i]); i++)
			;
		if (!lname[i])
			r = -ENOTSUP;
	}
	if (r < 0)
		return r;
	*spec = tmp;
	return 0;
}

static const struct loop_cipher_info cipher_list[] = {
	{ "aes",              "util-linux 2.12 cryptoloop: AES-256 (or -k bits), raw passphrase key, 32-bit sector IV" },
	{ "aes-cbc",          "same as aes" },
	{ "twofish",          "cryptoloop: Twofish-256 (or -k 128), raw key, 32-bit sector IV" },
	{ "serpent",          "cryptoloop: Serpent-256 (or -k 128/192), raw key, 32-bit sector IV" },
	{ "blowfish",         "cryptoloop: Blowfish with a 256-bit key (or -k 32..448), raw key, 32-bit sector IV" },
	{ "AES128",           "loop-AES: AES-128, SHA-256 hashed passphrase, 64-bit IV; 64/65-line key files give multi-key v2/v3" },
	{ "AES192",           "loop-AES: AES-192, SHA-384 hashed passphrase" },
	{ "AES256",           "loop-AES: AES-256, SHA-512 hashed passphrase" },
	{ "twofish128",       "loop-AES: Twofish-128 (also twofish256)" },
	{ "serpent128",       "loop-AES: Serpent-128 (also serpent192, serpent256)" },
	{ "blowfish128",      "loop-AES: Blowfish-128 (also blowfish160/192/256)" },
	{ "aes-cbc-plain",    "cryptsetup plain: same sectors as cryptoloop (32-bit IV), -s 256 default" },
	{ "aes-cbc-plain64",  "cryptsetup plain64: 64-bit sector IV (also twofish-, serpent-, blowfish-cbc-plain64)" },
};

LIBLOOP_EXPORT int loop_cipher_list(const struct loop_cipher_info **list)
{
	if (!list)
		return -EINVAL;
	*list = cipher_list;
	return (int)(sizeof(cipher_list) / sizeof(cipher_list[0]));
}
