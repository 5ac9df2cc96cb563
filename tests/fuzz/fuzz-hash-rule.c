// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The -H / phash= / cryptsetup "HASH[:N]" rule as key derivation parses
 * it, for a cryptoloop spec (cryptsetup rules) or a loop-AES one (loop-AES
 * hashes); the first byte picks the spec. Parsing only, so that it runs
 * millions of times: fuzz-key-derive does the hashing.
 */
#include "config.h"

#include <errno.h>
#include <gcrypt.h>

#include "crypto/crypto-internal.h"
#include "fuzz.h"

static const char *const specs[] = { "aes", "aes-cbc-plain64", "AES128", "AES256",
				     "twofish", "blowfish", "serpent", "AES192" };

static int is_digest(enum loop_hash_rule_kind k)
{
	return k == LOOP_RULE_LA_DIGEST || k == LOOP_RULE_CS_DIGEST;
}

static void check_rule(const struct loop_hash_rule *h, int loopaes, const char *rule)
{
	if (loopaes)
		FUZZ_ASSERT(h->kind == LOOP_RULE_RAW || h->kind == LOOP_RULE_LA_DIGEST ||
			    h->kind == LOOP_RULE_LA_RMD160 || h->kind == LOOP_RULE_LA_UNHASHED1 ||
			    h->kind == LOOP_RULE_LA_RANDOM);
	else
		FUZZ_ASSERT(h->kind == LOOP_RULE_RAW || h->kind == LOOP_RULE_LA_RMD160 ||
			    h->kind == LOOP_RULE_CS_PLAIN || h->kind == LOOP_RULE_CS_DIGEST);
	/* a digest the hashing can read (SHAKE has no length: found by
	 * fuzzing, gcry_md_read() aborted on it) */
	if (is_digest(h->kind))
		FUZZ_ASSERT(h->md_algo && gcry_md_get_algo_dlen(h->md_algo) > 0);
	else
		FUZZ_ASSERT(!h->md_algo);
	/* only a cryptsetup rule has an N, and only after a colon */
	if (h->kind == LOOP_RULE_CS_PLAIN || h->kind == LOOP_RULE_CS_DIGEST)
		FUZZ_ASSERT(!strchr(rule, ':') == !h->cs_len);
	else
		FUZZ_ASSERT(!h->cs_len && !strchr(rule, ':'));
	FUZZ_ASSERT(h->min_len == 0 || h->min_len == 1 || h->min_len == LOOP_PASS_MIN_LENGTH);
	if (!*rule)
		FUZZ_ASSERT(loopaes ? h->kind == LOOP_RULE_LA_DIGEST &&
					      h->min_len == LOOP_PASS_MIN_LENGTH :
				      h->kind == LOOP_RULE_RAW && !h->min_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loop_cipher_spec spec;
	struct loop_hash_rule h, bare;
	char *rule, *colon;
	int loopaes, rc;

	if (!size || size > 256)
		return 0;
	loopaes = (data[0] & 7) >= 2;
	FUZZ_ASSERT(loop_gcrypt_init() == 0);
	FUZZ_ASSERT(loop_cipher_spec_parse(&spec, specs[data[0] & 7], 0,
					   loopaes ? LOOP_SPEC_LOOPAES : 0) == 0);
	rule = fuzz_str(data + 1, size - 1);
	rc = loop_hash_rule_parse(&h, &spec, rule);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL);
	if (rc == 0) {
		check_rule(&h, loopaes, rule);
		/* "NAME:N" means NAME, hashing N bytes */
		colon = strchr(rule, ':');
		if (colon) {
			*colon = '\0';
			FUZZ_ASSERT(loop_hash_rule_parse(&bare, &spec, rule) == 0);
			FUZZ_ASSERT(bare.kind == h.kind && bare.md_algo == h.md_algo &&
				    !bare.cs_len);
		}
	}
	free(rule);
	return 0;
}
