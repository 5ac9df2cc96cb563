// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Key derivation whole: a -H / phash= / cryptsetup "HASH:N" rule over a
 * passphrase or key-file lines, for a cryptoloop spec (cryptsetup rules)
 * or a loop-AES one (loop-AES hashes, 64/65-line multi-key). The input is
 * a flags byte, the rule, and after a newline the lines (without one, a
 * fixed passphrase). A rule must never write past the key
 * (AddressSanitizer watches the locked key buffer). The hashing makes
 * this slow: fuzz-hash-rule and fuzz-pass-lines run the parsers alone.
 */
#include "config.h"

#include <errno.h>
#include <strings.h>

#include "crypto/crypto-internal.h"
#include "fuzz.h"

static const char *const specs[] = { "aes", "aes-cbc-plain64", "AES128", "AES256",
				     "twofish", "blowfish", "serpent", "AES192" };
static const char default_pass[] = "a passphrase of twenty-odd characters";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loop_key_params kp = { 0 };
	struct loop_cipher_spec spec;
	struct loop_pass *p = NULL;
	struct loop_key *key = NULL;
	const char *nl;
	char *rule;
	int rc;

	if (!size || size > 4096)
		return 0;
	if (loop_cipher_spec_parse(&spec, specs[data[0] & 7], 0,
				   (data[0] & 7) >= 2 ? LOOP_SPEC_LOOPAES : 0))
		return 0;
	nl = memchr(data + 1, '\n', size - 1);
	rule = fuzz_str(data + 1, nl ? (size_t)(nl - (const char *)data - 1) : size - 1);
	/* "random" is 65 fresh keys from the strong pool: not a parser */
	if (!strcasecmp(rule, "random")) {
		free(rule);
		return 0;
	}
	kp.hash = rule;
	kp.allow_short = data[0] & 8;
	if (data[0] & 16 && spec.format == LOOP_FORMAT_LOOPAES)
		kp.seed = "seed";
	if (nl)
		rc = loop_pass_from_buffer(&p, nl + 1, size - (size_t)(nl + 1 - (const char *)data),
					   data[0] & 32 ? LOOP_PASS_MULTI_LINE : LOOP_PASS_ONE_LINE);
	else
		rc = loop_pass_from_buffer(&p, default_pass, sizeof(default_pass) - 1,
					   LOOP_PASS_ONE_LINE);
	if (rc == 0) {
		rc = loop_key_derive(&key, &spec, &kp, p);
		FUZZ_ASSERT(rc <= 0 && (rc == 0) == (key != NULL));
		if (key)
			FUZZ_ASSERT(loop_key_count(key) == loop_key_count_of(&spec, p) &&
				    loop_key_size(key) >= 1 && loop_key_size(key) <= 32);
		loop_key_free(key);
	}
	loop_pass_free(p);
	free(rule);
	return 0;
}
