/*
 * keyrule.c - what key derivation will do, decided before any hashing:
 * the hash rule a -H / phash= / cryptsetup "HASH[:N]" name means for a
 * cipher spec, and how many keys a passphrase's lines make. Apart from
 * keyderive.c so that the fuzzers reach these parsers millions of
 * times, not at the pace of the hashing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <gcrypt.h>

#include "crypto/crypto-internal.h"

int loop_hash_rule_parse(struct loop_hash_rule *h, const struct loop_cipher_spec *spec,
			 const char *name)
{
	int loopaes = spec->format == LOOP_FORMAT_LOOPAES;
	char base[64], *colon;

	memset(h, 0, sizeof(*h));
	if (!name || !*name) {
		if (!loopaes) {
			h->kind = LOOP_RULE_RAW;
			return 0;
		}
		h->kind = LOOP_RULE_LA_DIGEST;
		h->md_algo = spec->key_bytes == 32 ? GCRY_MD_SHA512 :
			     spec->key_bytes == 24 ? GCRY_MD_SHA384 : GCRY_MD_SHA256;
		h->min_len = LOOP_PASS_MIN_LENGTH;
		return 0;
	}
	if (!strcasecmp(name, "raw") || !strcasecmp(name, "unhashed2")) {
		h->kind = LOOP_RULE_RAW;
		h->min_len = loopaes ? 1 : 0;
		return 0;
	}
	if (!strcasecmp(name, "rmd160")) {
		h->kind = LOOP_RULE_LA_RMD160;
		h->min_len = 1;
		return 0;
	}
	if (loopaes) {
		if (!strcasecmp(name, "sha256") || !strcasecmp(name, "sha384") ||
		    !strcasecmp(name, "sha512")) {
			h->kind = LOOP_RULE_LA_DIGEST;
			h->md_algo = gcry_md_map_name(name);
			h->min_len = LOOP_PASS_MIN_LENGTH;
			return 0;
		}
		if (!strcasecmp(name, "unhashed1")) {
			h->kind = LOOP_RULE_LA_UNHASHED1;
			h->min_len = LOOP_PASS_MIN_LENGTH;
			return 0;
		}
		if (!strcasecmp(name, "random")) {
			h->kind = LOOP_RULE_LA_RANDOM;
			return 0;
		}
		/* cryptsetup hashing has no meaning for loop-AES images */
		return -EINVAL;
	}
	if (strlen(name) >= sizeof(base))
		return -EINVAL;
	strcpy(base, name);
	colon = strchr(base, ':');
	if (colon) {
		char *end;

		*colon++ = '\0';
		if (!*colon)
			return -EINVAL;
		h->cs_len = strtoul(colon, &end, 10);
		if (*end || !h->cs_len)
			return -EINVAL;
	}
	if (!strcasecmp(base, "plain")) {
		h->kind = LOOP_RULE_CS_PLAIN;
		return 0;
	}
	h->md_algo = gcry_md_map_name(base);
	if (!h->md_algo || gcry_md_test_algo(h->md_algo))
		return -EINVAL;
	/* extendable-output functions (SHAKE, also by OID) have no digest
	 * length: gcry_md_read() aborts on them (found by fuzzing) */
	if (!gcry_md_get_algo_dlen(h->md_algo))
		return -EINVAL;
	h->kind = LOOP_RULE_CS_DIGEST;
	return 0;
}

unsigned int loop_key_count_of(const struct loop_cipher_spec *spec,
			       const struct loop_pass *pass)
{
	size_t n = loop_pass_count(pass);

	/* 2..63 lines: loop-AES warns and uses the first line; so do we. */
	if (spec->format != LOOP_FORMAT_LOOPAES || n < CLO_MULTI_KEYS)
		return 1;
	return n >= CLO_MULTI_KEYS_V3 ? CLO_MULTI_KEYS_V3 : CLO_MULTI_KEYS;
}
