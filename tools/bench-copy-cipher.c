// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The FUSE engine's ceiling, for "tools/bench engines" only (built on
 * demand, never installed): cryptoloop-fuse-copy is cryptoloop-fuse
 * linked with this file, whose loop_crypt_encrypt() and
 * loop_crypt_decrypt() take the place of libloop's for the daemon's calls
 * (the linker resolves them here first). Every request then takes the
 * encrypted daemon's path (the same chunks, the helper thread, reads
 * straight from the mapping into the reply), but its one pass over the
 * data is a copy at memory speed instead of the cipher.
 *
 * The bench runs it beside the passthrough and the real cipher: the
 * copy's speed against the passthrough is what the daemon's own code
 * costs or saves; what the cipher build loses beyond that is cipher work.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "libloop.h"

typedef uint64_t word128 __attribute__((vector_size(16)));

/* a zero the compiler cannot see through: the in-place pass must load
 * and store every byte, as the cipher does */
static volatile uint64_t zero;

static int copy_pass(void *dst, const void *src, size_t nsectors)
{
	size_t len = nsectors * LOOP_SECTOR_SIZE, i;
	uint64_t z = zero;
	word128 k = { z, z }, *d = dst;
	const word128 *s = src;

	if (dst != src) {
		memcpy(dst, src, len);
		return 0;
	}
	for (i = 0; i < len / sizeof(word128); i++)
		d[i] = s[i] ^ k;
	return 0;
}

int loop_crypt_encrypt(struct loop_crypt *crypt, uint64_t sector, void *dst,
		       const void *src, size_t nsectors)
{
	(void)crypt;
	(void)sector;
	return copy_pass(dst, src, nsectors);
}

int loop_crypt_decrypt(struct loop_crypt *crypt, uint64_t sector, void *dst,
		       const void *src, size_t nsectors)
{
	(void)crypt;
	(void)sector;
	return copy_pass(dst, src, nsectors);
}
