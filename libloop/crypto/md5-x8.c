/*
 * md5-x8.c - eight loop-AES multi-key IVs at once with AVX2.
 *
 * The lmk IV is MD5 over ~500 bytes per sector and dominates multi-key
 * throughput (scalar MD5 runs at ~0.7 GB/s here, the AES at ~6).  MD5 is
 * serial within a message but our eight sectors are independent, so each
 * 32-bit lane of a ymm register carries one sector's MD5.  Checked against
 * the scalar loop_lmk_iv() by tests/unit/test-crypto-engine.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "crypto-internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <cpuid.h>

#define AVX2_TARGET __attribute__((target("avx2")))

int loop_md5_x8_available(void)
{
	unsigned int a, b, c, d;
	unsigned long long xcr0;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return 0;
	__asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
	xcr0 = ((unsigned long long)d << 32) | a;
	if ((xcr0 & 6) != 6)
		return 0;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2);
}

#define ROL(x, s) _mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s)))
#define G1(x, y, z) _mm256_xor_si256(z, _mm256_and_si256(x, _mm256_xor_si256(y, z)))
#define G2(x, y, z) G1(z, x, y)
#define G3(x, y, z) _mm256_xor_si256(_mm256_xor_si256(x, y), z)
#define G4(x, y, z) _mm256_xor_si256(y, _mm256_or_si256(x, _mm256_xor_si256(z, ones)))
#define ST(f, a, b, c, d, wi, k, s) \
	a = _mm256_add_epi32(b, ROL(_mm256_add_epi32(_mm256_add_epi32(a, f(b, c, d)), \
		_mm256_add_epi32(w[wi], _mm256_set1_epi32((int)(k)))), s))

/* w[i] = word i of each lane's block */
AVX2_TARGET static void compress_x8(__m256i st[4], const __m256i w[16])
{
	const __m256i ones = _mm256_set1_epi32(-1);
	__m256i a = st[0], b = st[1], c = st[2], d = st[3];

	ST(G1, a, b, c, d, 0, 0xd76aa478, 7);  ST(G1, d, a, b, c, 1, 0xe8c7b756, 12);
	ST(G1, c, d, a, b, 2, 0x242070db, 17); ST(G1, b, c, d, a, 3, 0xc1bdceee, 22);
	ST(G1, a, b, c, d, 4, 0xf57c0faf, 7);  ST(G1, d, a, b, c, 5, 0x4787c62a, 12);
	ST(G1, c, d, a, b, 6, 0xa8304613, 17); ST(G1, b, c, d, a, 7, 0xfd469501, 22);
	ST(G1, a, b, c, d, 8, 0x698098d8, 7);  ST(G1, d, a, b, c, 9, 0x8b44f7af, 12);
	ST(G1, c, d, a, b, 10, 0xffff5bb1, 17); ST(G1, b, c, d, a, 11, 0x895cd7be, 22);
	ST(G1, a, b, c, d, 12, 0x6b901122, 7); ST(G1, d, a, b, c, 13, 0xfd987193, 12);
	ST(G1, c, d, a, b, 14, 0xa679438e, 17); ST(G1, b, c, d, a, 15, 0x49b40821, 22);

	ST(G2, a, b, c, d, 1, 0xf61e2562, 5);  ST(G2, d, a, b, c, 6, 0xc040b340, 9);
	ST(G2, c, d, a, b, 11, 0x265e5a51, 14); ST(G2, b, c, d, a, 0, 0xe9b6c7aa, 20);
	ST(G2, a, b, c, d, 5, 0xd62f105d, 5);  ST(G2, d, a, b, c, 10, 0x02441453, 9);
	ST(G2, c, d, a, b, 15, 0xd8a1e681, 14); ST(G2, b, c, d, a, 4, 0xe7d3fbc8, 20);
	ST(G2, a, b, c, d, 9, 0x21e1cde6, 5);  ST(G2, d, a, b, c, 14, 0xc33707d6, 9);
	ST(G2, c, d, a, b, 3, 0xf4d50d87, 14); ST(G2, b, c, d, a, 8, 0x455a14ed, 20);
	ST(G2, a, b, c, d, 13, 0xa9e3e905, 5); ST(G2, d, a, b, c, 2, 0xfcefa3f8, 9);
	ST(G2, c, d, a, b, 7, 0x676f02d9, 14); ST(G2, b, c, d, a, 12, 0x8d2a4c8a, 20);

	ST(G3, a, b, c, d, 5, 0xfffa3942, 4);  ST(G3, d, a, b, c, 8, 0x8771f681, 11);
	ST(G3, c, d, a, b, 11, 0x6d9d6122, 16); ST(G3, b, c, d, a, 14, 0xfde5380c, 23);
	ST(G3, a, b, c, d, 1, 0xa4beea44, 4);  ST(G3, d, a, b, c, 4, 0x4bdecfa9, 11);
	ST(G3, c, d, a, b, 7, 0xf6bb4b60, 16); ST(G3, b, c, d, a, 10, 0xbebfbc70, 23);
	ST(G3, a, b, c, d, 13, 0x289b7ec6, 4); ST(G3, d, a, b, c, 0, 0xeaa127fa, 11);
	ST(G3, c, d, a, b, 3, 0xd4ef3085, 16); ST(G3, b, c, d, a, 6, 0x04881d05, 23);
	ST(G3, a, b, c, d, 9, 0xd9d4d039, 4);  ST(G3, d, a, b, c, 12, 0xe6db99e5, 11);
	ST(G3, c, d, a, b, 15, 0x1fa27cf8, 16); ST(G3, b, c, d, a, 2, 0xc4ac5665, 23);

	ST(G4, a, b, c, d, 0, 0xf4292244, 6);  ST(G4, d, a, b, c, 7, 0x432aff97, 10);
	ST(G4, c, d, a, b, 14, 0xab9423a7, 15); ST(G4, b, c, d, a, 5, 0xfc93a039, 21);
	ST(G4, a, b, c, d, 12, 0x655b59c3, 6); ST(G4, d, a, b, c, 3, 0x8f0ccc92, 10);
	ST(G4, c, d, a, b, 10, 0xffeff47d, 15); ST(G4, b, c, d, a, 1, 0x85845dd1, 21);
	ST(G4, a, b, c, d, 8, 0x6fa87e4f, 6);  ST(G4, d, a, b, c, 15, 0xfe2ce6e0, 10);
	ST(G4, c, d, a, b, 6, 0xa3014314, 15); ST(G4, b, c, d, a, 13, 0x4e0811a1, 21);
	ST(G4, a, b, c, d, 4, 0xf7537e82, 6);  ST(G4, d, a, b, c, 11, 0xbd3af235, 10);
	ST(G4, c, d, a, b, 2, 0x2ad7d2bb, 15); ST(G4, b, c, d, a, 9, 0xeb86d391, 21);

	st[0] = _mm256_add_epi32(st[0], a);
	st[1] = _mm256_add_epi32(st[1], b);
	st[2] = _mm256_add_epi32(st[2], c);
	st[3] = _mm256_add_epi32(st[3], d);
}

/* 8x8 transpose of 32-bit words: r[l] = 8 words of lane l in, w[i] =
 * word i of every lane out. */
AVX2_TARGET static inline void transpose8(__m256i *w, const __m256i r[8])
{
	__m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
	__m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
	__m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
	__m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
	__m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
	__m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
	__m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
	__m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);

	w[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
	w[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
	w[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
	w[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
	w[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
	w[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
	w[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
	w[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* word i of the 8 blocks into w[i]; x86 is little endian, as MD5 wants */
AVX2_TARGET static void load_x8(__m256i w[16], const uint8_t *const blk[8])
{
	__m256i r[8];
	int l, half;

	for (half = 0; half < 2; half++) {
		for (l = 0; l < 8; l++)
			r[l] = _mm256_loadu_si256((const __m256i *)(blk[l] + 32 * half));
		transpose8(w + 8 * half, r);
	}
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
		load_x8(w, blk);
		compress_x8(st, w);
	}
	/* last block: 48 plaintext bytes, 56-bit sector, 0x80, length 4024 */
	for (l = 0; l < 8; l++) {
		uint32_t lo = (uint32_t)iv_sector[l];
		uint32_t hi = ((uint32_t)(iv_sector[l] >> 32) & 0xFFFFFF) | 0x80000000u;
		uint32_t len[2] = { 4024, 0 };

		memcpy(last[l], plain[l] + 16 + 448, 48);
		memcpy(last[l] + 48, &lo, 4);
		memcpy(last[l] + 52, &hi, 4);
		memcpy(last[l] + 56, len, 8);
		blk[l] = last[l];
	}
	load_x8(w, blk);
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
