/*
 * md5-x16.c - sixteen loop-AES multi-key IVs at once with AVX2.
 *
 * md5-x8.c puts one sector in each 32-bit lane of a ymm register, but
 * every MD5 step waits for the one before it (~6 cycles of latency for
 * ~10 instructions), so a single 8-lane stream keeps the vector units
 * less than half busy.  Here two independent 8-lane streams (sectors
 * 0-7 and 8-15) run step by step side by side (md5-avx2.h): while one
 * waits on its rotate, the other computes, which takes the hash from
 * ~2.2 to ~5 GB/s on one core here.  Checked against the scalar
 * loop_lmk_iv() and libgcrypt's MD5 by tests/unit/test-crypto-lmk.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto/crypto-internal.h"

#if defined(__x86_64__)
#include "crypto/md5-avx2.h"

AVX2_TARGET void loop_lmk_iv_x16(uint8_t iv[16][16], const uint32_t seed_state[4],
				 const uint8_t *const plain[16], const uint64_t iv_sector[16])
{
	v8 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	uint8_t last[16][64];
	const uint8_t *body[16], *tail[16];
	int i, l;
	MD5_CONSTS;

	a0 = a1 = _mm256_set1_epi32((int)seed_state[0]);
	b0 = b1 = _mm256_set1_epi32((int)seed_state[1]);
	c0 = c1 = _mm256_set1_epi32((int)seed_state[2]);
	d0 = d1 = _mm256_set1_epi32((int)seed_state[3]);
	for (l = 0; l < 16; l++) {
		lmk_last_block(last[l], plain[l], iv_sector[l]);
		body[l] = plain[l] + 16;
		tail[l] = last[l];
	}
	for (i = 0; i < 8; i++) {
		const v8 sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0;
		const v8 sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1;

		/* plaintext[16..463] in seven blocks, then the last one */
		const uint8_t *const *blk = i < 7 ? body : tail;
		const size_t off = i < 7 ? 64 * (size_t)i : 0;

		md5_load_x8(w0, blk, off);
		md5_load_x8(w1, blk + 8, off);
		MD5_OCT0; MD5_OCT1; MD5_OCT2; MD5_OCT3;
		MD5_OCT4; MD5_OCT5; MD5_OCT6; MD5_OCT7;
		a0 = M5ADD(a0, sa0); b0 = M5ADD(b0, sb0);
		c0 = M5ADD(c0, sc0); d0 = M5ADD(d0, sd0);
		a1 = M5ADD(a1, sa1); b1 = M5ADD(b1, sb1);
		c1 = M5ADD(c1, sc1); d1 = M5ADD(d1, sd1);
	}
	md5_store_ivs16(iv, a0, b0, c0, d0, a1, b1, c1, d1);
	/* the IV is derived from plaintext: wipe the copies */
	explicit_bzero(last, sizeof(last));
	explicit_bzero(w0, sizeof(w0));
	explicit_bzero(w1, sizeof(w1));
	_mm256_zeroall();
}

#else

void loop_lmk_iv_x16(uint8_t iv[16][16], const uint32_t seed_state[4],
		     const uint8_t *const plain[16], const uint64_t iv_sector[16])
{
	int l;

	for (l = 0; l < 16; l++)
		loop_lmk_iv(iv[l], seed_state, plain[l], iv_sector[l]);
}

#endif
