// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A 64-bit fingerprint of one 512-byte sector of ciphertext. It only has
 * to tell the old ciphertext of a sector from the new one, and both from
 * a torn mix of the two, so it needs to be fast, not cryptographic:
 * a multiply-xorshift over the 64 words, finished with a full avalanche.
 */
#include "config.h"

#include <string.h>

#include "reencrypt.h"

uint64_t sector_fingerprint(const void *sector)
{
	const unsigned char *p = sector;
	uint64_t h = 0x9e3779b97f4a7c15ull, w;
	int i;

	for (i = 0; i < LOOP_SECTOR_SIZE; i += 8) {
		memcpy(&w, p + i, 8);
		h ^= w + (uint64_t)i;
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}
