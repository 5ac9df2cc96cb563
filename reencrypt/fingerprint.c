// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A 64-bit fingerprint of one 512-byte sector of ciphertext. It only has
 * to tell the old ciphertext of a sector from the new one, and both from
 * a torn mix of the two, so it needs to be fast, not cryptographic: four
 * independent multiply-xorshift lanes over the 64 words (so the CPU runs
 * them side by side), folded together with a full avalanche.
 */
#include "config.h"

#include <string.h>

#include "reencrypt.h"

#define M1 0xff51afd7ed558ccdull
#define M2 0xc4ceb9fe1a85ec53ull

static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= M1;
	return h ^ (h >> 32);
}

uint64_t sector_fingerprint(const void *sector)
{
	const unsigned char *p = sector;
	uint64_t a = 0x9e3779b97f4a7c15ull, b = a + 1, c = a + 2, d = a + 3, w[4];
	int i;

	for (i = 0; i < LOOP_SECTOR_SIZE; i += 32) {
		memcpy(w, p + i, 32);
		a = mix(a, w[0]);
		b = mix(b, w[1]);
		c = mix(c, w[2]);
		d = mix(d, w[3]);
	}
	a = mix(a, b * M2);
	a = mix(a, c * M2 + 1);
	a = mix(a, d * M2 + 2);
	a ^= a >> 33;
	a *= M2;
	return a ^ (a >> 33);
}
