// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Passphrase and key-file lines (-p fd, --cleartext-keyfile): split by the
 * one-line or multi-line rule, and how many keys they make (1, or 64 or
 * 65 for loop-AES). The first byte picks the rule and the spec. Splitting
 * only, so that it runs millions of times: fuzz-key-derive does the
 * hashing.
 */
#include "config.h"

#include <errno.h>

#include "crypto/crypto-internal.h"
#include "fuzz.h"

/* The length of the line starting at @in: up to '\n', NUL or the end. */
static size_t line_len(const uint8_t *in, size_t len)
{
	size_t i = 0;

	while (i < len && in[i] != '\n' && in[i] != '\0')
		i++;
	return i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loop_cipher_spec spec;
	struct loop_pass *p = NULL;
	const uint8_t *in = data + 1;
	size_t i, n, len = 0, pos = 0, in_len = size - 1;
	unsigned int keys;
	int multi, loopaes, rc;

	if (!size)
		return 0;
	multi = data[0] & 1;
	loopaes = data[0] & 2;
	rc = loop_pass_from_buffer(&p, in, in_len,
				   multi ? LOOP_PASS_MULTI_LINE : LOOP_PASS_ONE_LINE);
	FUZZ_ASSERT(rc == 0 || rc == -E2BIG || rc == -ENOMEM);
	if (rc) {
		FUZZ_ASSERT(!p);
		return 0;
	}
	n = loop_pass_count(p);
	FUZZ_ASSERT(n >= 1 && n <= (multi ? LOOP_PASS_LINES_MAX : 1));
	/* the lines are the input's, in order, each cut at its terminator */
	for (i = 0; i < n; i++) {
		const char *l = loop_pass_line(p, i, &len);

		FUZZ_ASSERT(l && len <= LOOP_PASS_LINE_MAX && l[len] == '\0');
		FUZZ_ASSERT(len == line_len(in + pos, in_len - pos));
		FUZZ_ASSERT(!memcmp(l, in + pos, len));
		/* past the first, every kept line is long enough */
		if (n > 1)
			FUZZ_ASSERT(len >= LOOP_PASS_MIN_LENGTH);
		pos += len + 1;
	}
	FUZZ_ASSERT(!loop_pass_line(p, n, NULL));
	/* the multi-line list ends at the first short line (only a first
	 * one is kept), at 66 lines, or at the end of the input; len is
	 * the last kept line's */
	if (multi && n < LOOP_PASS_LINES_MAX && pos < in_len && len >= LOOP_PASS_MIN_LENGTH)
		FUZZ_ASSERT(line_len(in + pos, in_len - pos) < LOOP_PASS_MIN_LENGTH);

	FUZZ_ASSERT(loop_cipher_spec_parse(&spec, loopaes ? "AES128" : "aes", 0,
					   loopaes ? LOOP_SPEC_LOOPAES : 0) == 0);
	keys = loop_key_count_of(&spec, p);
	if (loopaes && n >= CLO_MULTI_KEYS_V3)
		FUZZ_ASSERT(keys == CLO_MULTI_KEYS_V3);
	else if (loopaes && n == CLO_MULTI_KEYS)
		FUZZ_ASSERT(keys == CLO_MULTI_KEYS);
	else
		FUZZ_ASSERT(keys == 1);
	loop_pass_free(p);
	return 0;
}
