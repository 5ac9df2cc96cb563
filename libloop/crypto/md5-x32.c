/*
 * md5-x32.c - thirty-two loop-AES multi-key IVs at once with AVX-512.
 *
 * The lmk IV's MD5 bounds multi-key throughput: with AVX2 (md5-x16.c)
 * it hashes slower than VAES encrypts.  AVX-512F makes each MD5 step
 * much cheaper: vpternlogd computes any of F, G, H and I in one
 * instruction, vprold rotates in one (AVX2 needs two shifts and an or),
 * and each register carries sixteen sectors.  That is about a third of
 * the instructions per sector.  One 16-lane stream would wait on its own
 * add-rotate-add chain, so, as md5-x16.c does, two streams (sectors 0-15
 * and 16-31) run step by step side by side.
 *
 * Checked against the scalar loop_lmk_iv() and libgcrypt's MD5 by
 * tests/unit/test-crypto-lmk.c and tests/unit/test-crypto-sectors.c,
 * on an AVX-512 CPU or under tools/emulate-avx512.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto/crypto-internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "crypto/md5-avx2.h"   /* lmk_last_block() */
#include "crypto/md5-avx512.h"

AVX512_TARGET void loop_lmk_iv_x32(uint8_t iv[32][16], const uint32_t seed_state[4],
				   const uint8_t *const plain[32], const uint64_t iv_sector[32])
{
	v16 a0, b0, c0, d0, a1, b1, c1, d1, w0[16], w1[16];
	uint8_t last[32][64];
	const uint8_t *body[32], *tail[32];
	int i, l;
	MD5_K_POINTER;

	a0 = a1 = _mm512_set1_epi32((int)seed_state[0]);
	b0 = b1 = _mm512_set1_epi32((int)seed_state[1]);
	c0 = c1 = _mm512_set1_epi32((int)seed_state[2]);
	d0 = d1 = _mm512_set1_epi32((int)seed_state[3]);
	for (l = 0; l < 32; l++) {
		lmk_last_block(last[l], plain[l], iv_sector[l]);
		body[l] = plain[l] + 16;
		tail[l] = last[l];
	}
	for (i = 0; i < 8; i++) {
		const v16 sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0;
		const v16 sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1;

		/* plaintext[16..463] in seven blocks, then the last one */
		const uint8_t *const *blk = i < 7 ? body : tail;
		const size_t off = i < 7 ? 64 * (size_t)i : 0;

		md5_load_x16(w0, blk, off);
		md5_load_x16(w1, blk + 16, off);
		MD5Z_ROUND1; MD5Z_ROUND2; MD5Z_ROUND3; MD5Z_ROUND4;
		a0 = _mm512_add_epi32(a0, sa0); b0 = _mm512_add_epi32(b0, sb0);
		c0 = _mm512_add_epi32(c0, sc0); d0 = _mm512_add_epi32(d0, sd0);
		a1 = _mm512_add_epi32(a1, sa1); b1 = _mm512_add_epi32(b1, sb1);
		c1 = _mm512_add_epi32(c1, sc1); d1 = _mm512_add_epi32(d1, sd1);
	}
	md5_store_word(iv, 0, a0); md5_store_word(iv, 1, b0);
	md5_store_word(iv, 2, c0); md5_store_word(iv, 3, d0);
	md5_store_word(iv + 16, 0, a1); md5_store_word(iv + 16, 1, b1);
	md5_store_word(iv + 16, 2, c1); md5_store_word(iv + 16, 3, d1);
	/* the IV is derived from plaintext: wipe the copies, in memory and
	 * in zmm0-31 (vzeroall would leave zmm16-31) */
	explicit_bzero(last, sizeof(last));
	explicit_bzero(w0, sizeof(w0));
	explicit_bzero(w1, sizeof(w1));
	loop_vector_regs_clear();
}

/*
 * An emulator or hypervisor that says AVX-512 may still get it wrong
 * (QEMU's VAES did, aesni-cbc.c): 32 IVs over sectors that all differ
 * are checked against the scalar code before this path is used.
 */
static int x32_selftest(void)
{
	uint8_t buf[16 * 31 + LOOP_SECTOR_SIZE], wide[32][16], narrow[16];
	const uint8_t *plain[32];
	uint64_t sector[32];
	uint32_t seed[4];
	int l, ok = 1;

	for (l = 0; l < (int)sizeof(buf); l++)
		buf[l] = (uint8_t)(l * 151 + (l >> 8) * 7 + 3);
	loop_md5_init_state(seed);
	for (l = 0; l < 32; l++) {
		plain[l] = buf + 16 * l;
		sector[l] = 0x0123456789abcdull * (uint64_t)(l + 1);
	}
	loop_lmk_iv_x32(wide, seed, plain, sector);
	for (l = 0; l < 32; l++) {
		loop_lmk_iv(narrow, seed, plain[l], sector[l]);
		ok = ok && !memcmp(narrow, wide[l], 16);
	}
	return ok;
}

/* 1 usable, 2 not; 0 not known yet (every thread computes the same) */
static int x32_state;

int loop_md5_x32_available(void)
{
	int st = __atomic_load_n(&x32_state, __ATOMIC_RELAXED);

	if (!st) {
		st = loop_cpu_has(LOOP_CPU_AVX512F) && x32_selftest() ? 1 : 2;
		__atomic_store_n(&x32_state, st, __ATOMIC_RELAXED);
	}
	return st == 1;
}

#else

int loop_md5_x32_available(void) { return 0; }

/* never chosen (loop_md5_lanes() stays at 1), but defined: the halves
 * go to md5-x16.c's portable version */
void loop_lmk_iv_x32(uint8_t iv[32][16], const uint32_t seed_state[4],
		     const uint8_t *const plain[32], const uint64_t iv_sector[32])
{
	loop_lmk_iv_x16(iv, seed_state, plain, iv_sector);
	loop_lmk_iv_x16(iv + 16, seed_state, plain + 16, iv_sector + 16);
}

#endif
