// SPDX-License-Identifier: GPL-2.0-or-later
/* loop_cipher_spec_parse(): -e, encryption= and cipher= names, with the
 * -k bit count and the loop-AES flag taken from the first input byte. */
#include "config.h"

#include <errno.h>

#include "libloop-crypto.h"
#include "fuzz.h"

static const unsigned int bits[] = { 0, 64, 128, 160, 192, 256, 384, 512 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loop_cipher_spec spec;
	unsigned int b, flags;
	char *s;
	int rc;

	if (!size)
		return 0;
	b = bits[data[0] & 7];
	flags = data[0] & 8 ? LOOP_SPEC_LOOPAES : 0;
	s = fuzz_str(data + 1, size - 1);
	memset(&spec, 0, sizeof(spec));
	rc = loop_cipher_spec_parse(&spec, s, b, flags);
	FUZZ_ASSERT(rc == 0 || rc == 1 || rc == -EINVAL || rc == -ENOTSUP);
	if (rc == 0) {
		/* what the engines rely on (Blowfish takes up to 448 bits) */
		FUZZ_ASSERT(spec.key_bytes > 0 && spec.key_bytes <= 56);
		FUZZ_ASSERT(spec.block_bytes == 16 || spec.block_bytes == 8);
		FUZZ_ASSERT(memchr(spec.lo_crypt_name, '\0', sizeof(spec.lo_crypt_name)));
	}
	free(s);
	return 0;
}
