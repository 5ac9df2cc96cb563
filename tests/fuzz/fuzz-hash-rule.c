// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Key derivation under any -H / phash= / cryptsetup "HASH:N" rule, for a
 * cryptoloop spec (cryptsetup rules) and a loop-AES one (loop-AES
 * hashes); the first byte picks the spec and the seed. A rule must never
 * write past the key (AddressSanitizer watches the locked key buffer).
 */
#include <errno.h>

#include "libloop-crypto.h"
#include "fuzz.h"

static const char *const specs[] = { "aes", "aes-cbc-plain64", "AES128", "AES256",
				     "twofish", "blowfish", "serpent", "AES192" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loop_key_params kp = { 0 };
	struct loop_cipher_spec spec;
	struct loop_pass *p = NULL;
	struct loop_key *key = NULL;
	char *rule;
	int rc;

	if (!size || size > 256)
		return 0;
	if (loop_cipher_spec_parse(&spec, specs[data[0] & 7], 0,
				   (data[0] & 7) >= 2 ? LOOP_SPEC_LOOPAES : 0))
		return 0;
	rule = fuzz_str(data + 1, size - 1);
	/* "random" is 65 fresh keys from the strong pool: not a parser */
	if (!strcmp(rule, "random") || !strcmp(rule, "RANDOM")) {
		free(rule);
		return 0;
	}
	kp.hash = rule;
	kp.allow_short = data[0] & 8;
	if (data[0] & 16 && spec.format == LOOP_FORMAT_LOOPAES)
		kp.seed = "seed";
	if (loop_pass_from_buffer(&p, "a passphrase of twenty-odd characters", 37,
				  LOOP_PASS_ONE_LINE) == 0) {
		rc = loop_key_derive(&key, &spec, &kp, p);
		FUZZ_ASSERT(rc <= 0);
		if (rc == 0)
			FUZZ_ASSERT(loop_key_count(key) >= 1 && loop_key_size(key) <= 32);
		else
			FUZZ_ASSERT(!key);
		loop_key_free(key);
	}
	loop_pass_free(p);
	free(rule);
	return 0;
}
