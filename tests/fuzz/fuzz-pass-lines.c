// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Passphrase and key-file lines (-p fd, --cleartext-keyfile): split by the
 * one-line or multi-line rule, then derived into loop-AES keys (1, 64 or
 * 65) or a cryptoloop key. The first byte picks the rule and the spec.
 */
#include <errno.h>

#include "libloop-crypto.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loop_key_params kp = { 0 };
	struct loop_cipher_spec spec;
	struct loop_pass *p = NULL;
	struct loop_key *key = NULL;
	unsigned int flags;
	size_t i, n, len;
	int rc;

	if (!size)
		return 0;
	flags = data[0] & 1 ? LOOP_PASS_MULTI_LINE : LOOP_PASS_ONE_LINE;
	rc = loop_pass_from_buffer(&p, data + 1, size - 1, flags);
	FUZZ_ASSERT(rc == 0 || rc == -E2BIG || rc == -EINVAL || rc == -ENOMEM);
	if (rc)
		return 0;
	n = loop_pass_count(p);
	for (i = 0; i < n; i++) {
		const char *l = loop_pass_line(p, i, &len);

		/* a line never holds its terminator */
		FUZZ_ASSERT(l && !memchr(l, '\n', len) && !memchr(l, '\0', len));
	}
	FUZZ_ASSERT(!loop_pass_line(p, n, &len));
	if (loop_cipher_spec_parse(&spec, data[0] & 2 ? "AES128" : "aes", 0,
				   data[0] & 2 ? LOOP_SPEC_LOOPAES : 0) == 0) {
		kp.allow_short = data[0] & 4;
		rc = loop_key_derive(&key, &spec, &kp, p);
		FUZZ_ASSERT(rc <= 0 && (rc == 0) == (key != NULL));
		if (key)
			FUZZ_ASSERT(loop_key_count(key) == 1 || loop_key_count(key) == 64 ||
				    loop_key_count(key) == 65);
		loop_key_free(key);
	}
	loop_pass_free(p);
	return 0;
}
