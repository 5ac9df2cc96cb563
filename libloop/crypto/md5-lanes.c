/*
 * md5-lanes.c - how many lmk IVs this CPU hashes at once, and so which of
 * md5-x32.c (AVX-512F), md5-x16.c and md5-x8.c (AVX2) or the scalar
 * md5-iv.c a context uses.  On its own because the wide versions check
 * themselves against the scalar one: md5-iv.c must not depend on them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>

#include "crypto/crypto-internal.h"

unsigned int loop_md5_lanes(void)
{
	unsigned int max = loop_md5_x32_available() ? 32 : loop_md5_x8_available() ? 16 : 1;
	const char *env = getenv("LIBLOOP_CRYPTO_MD5_LANES");
	unsigned long want;

	if (!env || !*env)
		return max;
	want = strtoul(env, NULL, 10);
	/* only ever lowered: a lane count the CPU cannot run is not taken */
	if (want >= 32)
		return max;
	if (want >= 16)
		return max >= 16 ? 16 : max;
	if (want >= 8)
		return max >= 8 ? 8 : max;
	return 1;
}
