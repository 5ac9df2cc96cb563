/*
 * md5-x8.c - eight loop-AES multi-key IVs at once with AVX2.
 *
 * The lmk IV is MD5 over ~500 bytes per sector and dominates multi-key
 * throughput (scalar MD5 runs at ~0.7 GB/s here, the AES at ~6).  MD5 is
 * serial within a message but our eight sectors are independent, so each
 * 32-bit lane of a ymm register carries one sector's MD5.  Checked against
 * the scalar loop_lmk_iv() by tests/unit/test-crypto-sectors.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto/crypto-internal.h"

#if defined(__x86_64__)
#include "crypto/md5-avx2.h"

int loop_md5_x8_available(void)
{
	return loop_cpu_has(LOOP_CPU_AVX2);
}

#define X8_ROL(x, s) _mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s)))
#define X8_G1(x, y, z) _mm256_xor_si256(z, _mm256_and_si256(x, _mm256_xor_si256(y, z)))
#define X8_G2(x, y, z) X8_G1(z, x, y)
#define X8_G3(x, y, z) _mm256_xor_si256(_mm256_xor_si256(x, y), z)
#define X8_G4(x, y, z) _mm256_xor_si256(y, _mm256_or_si256(x, _mm256_xor_si256(z, ones)))
#define X8_ST(f, a, b, c, d, wi, k, s) \
	a = _mm256_add_epi32(b, X8_ROL(_mm256_add_epi32(_mm256_add_epi32(a, f(b, c, d)), \
		_mm256_add_epi32(w[wi], _mm256_set1_epi32((int)(k)))), s))

/* w[i] = word i of each lane's block */
AVX2_TARGET static void compress_x8(__m256i st[4], const __m256i w[16])
{
	const __m256i ones = _mm256_set1_epi32(-1);
	__m256i a = st[0], b = st[1], c = st[2], d = st[3];

	X8_ST(X8_G1, a, b, c, d, 0, 0xd76aa478, 7);  X8_ST(X8_G1, d, a, b, c, 1, 0xe8c7b756, 12);
	X8_ST(X8_G1, c, d, a, b, 2, 0x242070db, 17); X8_ST(X8_G1, b, c, d, a, 3, 0xc1bdceee, 22);
	X8_ST(X8_G1, a, b, c, d, 4, 0xf57c0faf, 7);  X8_ST(X8_G1, d, a, b, c, 5, 0x4787c62a, 12);
	X8_ST(X8_G1, c, d, a, b, 6, 0xa8304613, 17); X8_ST(X8_G1, b, c, d, a, 7, 0xfd469501, 22);
	X8_ST(X8_G1, a, b, c, d, 8, 0x698098d8, 7);  X8_ST(X8_G1, d, a, b, c, 9, 0x8b44f7af, 12);
	X8_ST(X8_G1, c, d, a, b, 10, 0xffff5bb1, 17); X8_ST(X8_G1, b, c, d, a, 11, 0x895cd7be, 22);
	X8_ST(X8_G1, a, b, c, d, 12, 0x6b901122, 7); X8_ST(X8_G1, d, a, b, c, 13, 0xfd987193, 12);
	X8_ST(X8_G1, c, d, a, b, 14, 0xa679438e, 17); X8_ST(X8_G1, b, c, d, a, 15, 0x49b40821, 22);

	X8_ST(X8_G2, a, b, c, d, 1, 0xf61e2562, 5);  X8_ST(X8_G2, d, a, b, c, 6, 0xc040b340, 9);
	X8_ST(X8_G2, c, d, a, b, 11, 0x265e5a51, 14); X8_ST(X8_G2, b, c, d, a, 0, 0xe9b6c7aa, 20);
	X8_ST(X8_G2, a, b, c, d, 5, 0xd62f105d, 5);  X8_ST(X8_G2, d, a, b, c, 10, 0x02441453, 9);
	X8_ST(X8_G2, c, d, a, b, 15, 0xd8a1e681, 14); X8_ST(X8_G2, b, c, d, a, 4, 0xe7d3fbc8, 20);
	X8_ST(X8_G2, a, b, c, d, 9, 0x21e1cde6, 5);  X8_ST(X8_G2, d, a, b, c, 14, 0xc33707d6, 9);
	X8_ST(X8_G2, c, d, a, b, 3, 0xf4d50d87, 14); X8_ST(X8_G2, b, c, d, a, 8, 0x455a14ed, 20);
	X8_ST(X8_G2, a, b, c, d, 13, 0xa9e3e905, 5); X8_ST(X8_G2, d, a, b, c, 2, 0xfcefa3f8, 9);
	X8_ST(X8_G2, c, d, a, b, 7, 0x676f02d9, 14); X8_ST(X8_G2, b, c, d, a, 12, 0x8d2a4c8a, 20);

	X8_ST(X8_G3, a, b, c, d, 5, 0xfffa3942, 4);  X8_ST(X8_G3, d, a, b, c, 8, 0x8771f681, 11);
	X8_ST(X8_G3, c, d, a, b, 11, 0x6d9d6122, 16); X8_ST(X8_G3, b, c, d, a, 14, 0xfde5380c, 23);
	X8_ST(X8_G3, a, b, c, d, 1, 0xa4beea44, 4);  X8_ST(X8_G3, d, a, b, c, 4, 0x4bdecfa9, 11);
	X8_ST(X8_G3, c, d, a, b, 7, 0xf6bb4b60, 16); X8_ST(X8_G3, b, c, d, a, 10, 0xbebfbc70, 23);
	X8_ST(X8_G3, a, b, c, d, 13, 0x289b7ec6, 4); X8_ST(X8_G3, d, a, b, c, 0, 0xeaa127fa, 11);
	X8_ST(X8_G3, c, d, a, b, 3, 0xd4ef3085, 16); X8_ST(X8_G3, b, c, d, a, 6, 0x04881d05, 23);
	X8_ST(X8_G3, a, b, c, d, 9, 0xd9d4d039, 4);  X8_ST(X8_G3, d, a, b, c, 12, 0xe6db99e5, 11);
	X8_ST(X8_G3, c, d, a, b, 15, 0x1fa27cf8, 16); X8_ST(X8_G3, b, c, d, a, 2, 0xc4ac5665, 23);

	X8_ST(X8_G4, a, b, c, d, 0, 0xf4292244, 6);  X8_ST(X8_G4, d, a, b, c, 7, 0x432aff97, 10);
	X8_ST(X8_G4, c, d, a, b, 14, 0xab9423a7, 15); X8_ST(X8_G4, b, c, d, a, 5, 0xfc93a039, 21);
	X8_ST(X8_G4, a, b, c, d, 12, 0x655b59c3, 6); X8_ST(X8_G4, d, a, b, c, 3, 0x8f0ccc92, 10);
	X8_ST(X8_G4, c, d, a, b, 10, 0xffeff47d, 15); X8_ST(X8_G4, b, c, d, a, 1, 0x85845dd1, 21);
	X8_ST(X8_G4, a, b, c, d, 8, 0x6fa87e4f, 6);  X8_ST(X8_G4, d, a, b, c, 15, 0xfe2ce6e0, 10);
	X8_ST(X8_G4, c, d, a, b, 6, 0xa3014314, 15); X8_ST(X8_G4, b, c, d, a, 13, 0x4e0811a1, 21);
	X8_ST(X8_G4, a, b, c, d, 4, 0xf7537e82, 6);  X8_ST(X8_G4, d, a, b, c, 11, 0xbd3af235, 10);
	X8_ST(X8_G4, c, d, a, b, 2, 0x2ad7d2bb, 15); X8_ST(X8_G4, b, c, d, a, 9, 0xeb86d391, 21);

	st[0] = _mm256_add_epi32(st[0], a);
	st[1] = _mm256_add_epi32(st[1], b);
	st[2] = _mm256_add_epi32(st[2], c);
	st[3] = _mm256_add_epi32(st[3], d);
}

AVX2_TARGET void loop_lmk_iv_x8(uint8_t iv[8][16], const uint32_t seed_state[4],
				const uint8_t *const plain[8], const uint64_t iv_sector[8])
{
	__m256i st[4], w[16];
	uint8_t last[8][64];
	const uint8_t *blk[8];
	uint32_t out[4][8] __attribute__((aligned(32)));
	int i, l;

	for (i = 0; i < 4; i++)
		st[i] = _mm256_set1_epi32((int)seed_state[i]);
	for (i = 0; i < 7; i++) {
		for (l = 0; l < 8; l++)
			blk[l] = plain[l] + 16 + 64 * i;
		md5_load_x8(w, blk, 0);
		compress_x8(st, w);
	}
	/* last block: 48 plaintext bytes, 56-bit sector, 0x80, length 4024 */
	for (l = 0; l < 8; l++) {
		lmk_last_block(last[l], plain[l], iv_sector[l]);
		blk[l] = last[l];
	}
	md5_load_x8(w, blk, 0);
	compress_x8(st, w);
	for (i = 0; i < 4; i++)
		_mm256_store_si256((__m256i *)out[i], st[i]);
	for (l = 0; l < 8; l++)
		for (i = 0; i < 4; i++)
			memcpy(iv[l] + 4 * i, &out[i][l], 4);
	/* the IV is derived from plaintext: wipe the copies */
	explicit_bzero(last, sizeof(last));
	explicit_bzero(out, sizeof(out));
	for (i = 0; i < 16; i++)
		w[i] = _mm256_setzero_si256();
	__asm__ volatile("" : : "m"(w));
	_mm256_zeroall();
}

#else

int loop_md5_x8_available(void) { return 0; }
void loop_lmk_iv_x8(uint8_t iv[8][16], const uint32_t seed_state[4],
		    const uint8_t *const plain[8], const uint64_t iv_sector[8])
{
	int l;

	for (l = 0; l < 8; l++)
		loop_lmk_iv(iv[l], seed_state, plain[l], iv_sector[l]);
}

#endif
