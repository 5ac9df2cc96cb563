/*
 * aesni-cbc.c - AES-NI CBC for 512-byte sectors.
 *
 * Why hand-written: CBC encryption is serial inside a sector, so one
 * stream runs at the AESENC latency (~1 GB/s here) and libgcrypt cannot
 * do better.  Our sectors are independent CBC chains, so encrypting 8
 * sectors side by side keeps the AES unit busy (~2x).  Decryption is
 * parallel within a sector; doing it here too avoids libgcrypt's per-call
 * setiv/handle overhead on 512-byte units.  Everything is checked byte
 * for byte against libgcrypt by tests/unit/test-crypto-sectors.c.
 *
 * Compiled for generic x86-64; the AES functions carry target attributes
 * and are only called after loop_aesni_available() said yes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto-internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AESNI_TARGET __attribute__((target("aes,sse2,ssse3")))
#define VAES_TARGET __attribute__((target("avx2,vaes,aes")))

static int vaes_usable(void);
VAES_TARGET static void cbc_encrypt_vaes16(const struct loop_aesni_key *const *keys,
					   const uint8_t (*iv)[16], uint8_t *const *dst,
					   const uint8_t *const *src);

int loop_aesni_available(void)
{
	return loop_cpu_has(LOOP_CPU_AESNI);
}

static const uint8_t rcon[11] = {
	0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36
};

/* SubWord via AESKEYGENASSIST: word in lane 1; lane 0 of the result is
 * SubWord(x), lane 1 is RotWord(SubWord(x)) (RCON 0; we XOR our own). */
AESNI_TARGET static uint32_t sub_word(uint32_t x, int rotate)
{
	__m128i v = _mm_set_epi32(0, 0, (int)x, 0);

	v = _mm_aeskeygenassist_si128(v, 0);
	return (uint32_t)_mm_cvtsi128_si32(rotate ? _mm_srli_si128(v, 4) : v);
}

/* FIPS-197 key expansion, generic over 128/192/256-bit keys. */
AESNI_TARGET void loop_aesni_expand_key(struct loop_aesni_key *k,
					const uint8_t *key, size_t key_len)
{
	uint32_t w[60];
	unsigned int nk = (unsigned int)key_len / 4, nr = nk + 6, i;
	__m128i t;

	memcpy(w, key, key_len);
	for (i = nk; i < 4 * (nr + 1); i++) {
		uint32_t temp = w[i - 1];

		if (i % nk == 0)
			temp = sub_word(temp, 1) ^ rcon[i / nk];
		else if (nk > 6 && i % nk == 4)
			temp = sub_word(temp, 0);
		w[i] = w[i - nk] ^ temp;
	}
	memcpy(k->enc, w, 16 * (nr + 1));
	k->rounds = (int)nr;
	/* Equivalent inverse cipher: reversed order, InvMixColumns inside. */
	memcpy(k->dec[0], k->enc[nr], 16);
	for (i = 1; i < nr; i++) {
		t = _mm_load_si128((const __m128i *)k->enc[nr - i]);
		_mm_store_si128((__m128i *)k->dec[i], _mm_aesimc_si128(t));
	}
	memcpy(k->dec[nr], k->enc[0], 16);
	explicit_bzero(w, sizeof(w));
}

/*
 * Encrypt N sectors in lockstep.  N is a compile-time constant at each
 * call site, so the lane loops unroll and x[] stays in registers.
 */
#define LANE_LOOP(l, n) _Pragma("GCC unroll 8") for (l = 0; l < (n); l++)

AESNI_TARGET static inline __attribute__((always_inline)) void
cbc_encrypt_lanes(const struct loop_aesni_key *const *keys, const uint8_t (*iv)[16],
		  uint8_t *const *dst, const uint8_t *const *src, const unsigned int n)
{
	__m128i x[8];
	const __m128i *rk[8];
	unsigned int l, blk;
	int r, nr = keys[0]->rounds;

	LANE_LOOP(l, n) {
		x[l] = _mm_loadu_si128((const __m128i *)iv[l]);
		rk[l] = (const __m128i *)keys[l]->enc;
	}
	for (blk = 0; blk < LOOP_SECTOR_SIZE; blk += 16) {
		LANE_LOOP(l, n)
			x[l] = _mm_xor_si128(x[l], _mm_xor_si128(
				_mm_loadu_si128((const __m128i *)(src[l] + blk)),
				_mm_load_si128(&rk[l][0])));
		for (r = 1; r < nr; r++)
			LANE_LOOP(l, n)
				x[l] = _mm_aesenc_si128(x[l], _mm_load_si128(&rk[l][r]));
		LANE_LOOP(l, n) {
			x[l] = _mm_aesenclast_si128(x[l], _mm_load_si128(&rk[l][nr]));
			_mm_storeu_si128((__m128i *)(dst[l] + blk), x[l]);
		}
	}
}

AESNI_TARGET void loop_aesni_cbc_encrypt_sectors(const struct loop_aesni_key *const *keys,
						 const uint8_t (*iv)[16],
						 uint8_t *const *dst,
						 const uint8_t *const *src,
						 unsigned int n)
{
	unsigned int i;

	/* Every lane must use the same key size (same round count); the
	 * caller guarantees it since all keys of a device share one size. */
	switch (n) {
	case 16:
		if (vaes_usable()) {
			cbc_encrypt_vaes16(keys, iv, dst, src);
			return;
		}
		cbc_encrypt_lanes(keys, iv, dst, src, 8);
		cbc_encrypt_lanes(keys + 8, iv + 8, dst + 8, src + 8, 8);
		return;
	case 8: cbc_encrypt_lanes(keys, iv, dst, src, 8); return;
	case 4: cbc_encrypt_lanes(keys, iv, dst, src, 4); return;
	default:
		for (i = 0; i < n; i++)
			cbc_encrypt_lanes(keys + i, iv + i, dst + i, src + i, 1);
	}
}

/* Decrypt: all 32 blocks of a sector are independent; 8 at a time. */
AESNI_TARGET void loop_aesni_cbc_decrypt_sector_x8(const struct loop_aesni_key *k,
						const uint8_t iv[16], uint8_t *dst,
						const uint8_t *src)
{
	const __m128i *rk = (const __m128i *)k->dec;
	__m128i prev = _mm_loadu_si128((const __m128i *)iv);
	__m128i c[8], x[8];
	unsigned int blk, l;
	int r, nr = k->rounds;

	for (blk = 0; blk < LOOP_SECTOR_SIZE; blk += 8 * 16) {
		/* Load all 8 ciphertext blocks first: dst may equal src. */
#pragma GCC unroll 8
		for (l = 0; l < 8; l++) {
			c[l] = _mm_loadu_si128((const __m128i *)(src + blk + 16 * l));
			x[l] = _mm_xor_si128(c[l], _mm_load_si128(&rk[0]));
		}
		for (r = 1; r < nr; r++)
#pragma GCC unroll 8
			for (l = 0; l < 8; l++)
				x[l] = _mm_aesdec_si128(x[l], _mm_load_si128(&rk[r]));
#pragma GCC unroll 8
		for (l = 0; l < 8; l++)
			x[l] = _mm_aesdeclast_si128(x[l], _mm_load_si128(&rk[nr]));
		_mm_storeu_si128((__m128i *)(dst + blk), _mm_xor_si128(x[0], prev));
#pragma GCC unroll 8
		for (l = 1; l < 8; l++)
			_mm_storeu_si128((__m128i *)(dst + blk + 16 * l),
					 _mm_xor_si128(x[l], c[l - 1]));
		prev = c[7];
	}
}

/*
 * A CPU that says VAES must also do it right in the upper 128 bits.
 * QEMU 7.2's TCG (-cpu max) advertises VAES, and the OS enables ymm, but
 * its VAESENC/VAESDEC on a ymm register get the upper block wrong (the
 * *LAST variants, without MixColumns, are right): measured in a guest,
 * 2026-12-03.  On such a "CPU" every second block of our VAES decrypt
 * would be garbage, so one round of each is checked against two xmm
 * AES-NI rounds before VAES is used.
 */
VAES_TARGET static int vaes_selftest(void)
{
	uint8_t in[32], key[32], wide[32], narrow[32];
	__m256i x, k;
	int i, ok;

	for (i = 0; i < 32; i++) {
		in[i] = (uint8_t)(7 * i + 1);
		key[i] = (uint8_t)(13 * i + 5);
	}
	x = _mm256_loadu_si256((const __m256i *)in);
	k = _mm256_loadu_si256((const __m256i *)key);
	_mm256_storeu_si256((__m256i *)wide, _mm256_aesenc_epi128(x, k));
	for (i = 0; i < 32; i += 16)
		_mm_storeu_si128((__m128i *)(narrow + i),
				 _mm_aesenc_si128(_mm_loadu_si128((const __m128i *)(in + i)),
						  _mm_loadu_si128((const __m128i *)(key + i))));
	ok = !memcmp(wide, narrow, 32);
	_mm256_storeu_si256((__m256i *)wide, _mm256_aesdec_epi128(x, k));
	for (i = 0; i < 32; i += 16)
		_mm_storeu_si128((__m128i *)(narrow + i),
				 _mm_aesdec_si128(_mm_loadu_si128((const __m128i *)(in + i)),
						  _mm_loadu_si128((const __m128i *)(key + i))));
	ok = ok && !memcmp(wide, narrow, 32);
	_mm256_zeroupper();
	return ok;
}

/* 1 usable, 2 not; 0 not known yet (every thread computes the same) */
static int vaes_state;

static int vaes_usable(void)
{
	int st = __atomic_load_n(&vaes_state, __ATOMIC_RELAXED);

	if (!st) {
		st = loop_cpu_has(LOOP_CPU_VAES) && vaes_selftest() ? 1 : 2;
		__atomic_store_n(&vaes_state, st, __ATOMIC_RELAXED);
	}
	return st == 1;
}

/*
 * VAES: two blocks per instruction, 16 blocks in flight.  This is what
 * takes decryption from ~4 to OpenSSL's ~7 GB/s on this CPU class.
 */
VAES_TARGET void loop_aesni_cbc_decrypt_sector_vaes(const struct loop_aesni_key *k,
						    const uint8_t iv[16], uint8_t *dst,
						    const uint8_t *src)
{
	__m256i rk[15], c[8], x[8], prev[8];
	__m128i carry = _mm_loadu_si128((const __m128i *)iv);
	unsigned int blk, l;
	int r, nr = k->rounds;

	for (r = 0; r <= nr; r++)
		rk[r] = _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)k->dec[r]));
	for (blk = 0; blk < LOOP_SECTOR_SIZE; blk += 8 * 32) {
		/* Everything this group needs is loaded before it stores:
		 * dst may equal src. */
#pragma GCC unroll 8
		for (l = 0; l < 8; l++) {
			c[l] = _mm256_loadu_si256((const __m256i *)(src + blk + 32 * l));
			x[l] = _mm256_xor_si256(c[l], rk[0]);
		}
		prev[0] = _mm256_inserti128_si256(_mm256_castsi128_si256(carry),
						  _mm256_castsi256_si128(c[0]), 1);
#pragma GCC unroll 8
		for (l = 1; l < 8; l++)
			prev[l] = _mm256_loadu_si256((const __m256i *)(src + blk + 32 * l - 16));
		for (r = 1; r < nr; r++)
#pragma GCC unroll 8
			for (l = 0; l < 8; l++)
				x[l] = _mm256_aesdec_epi128(x[l], rk[r]);
#pragma GCC unroll 8
		for (l = 0; l < 8; l++) {
			x[l] = _mm256_aesdeclast_epi128(x[l], rk[nr]);
			_mm256_storeu_si256((__m256i *)(dst + blk + 32 * l),
					    _mm256_xor_si256(x[l], prev[l]));
		}
		carry = _mm256_extracti128_si256(c[7], 1);
	}
	/* key material: sixteen ymm cannot hold rk[] beside the blocks, so
	 * it is in this frame */
	explicit_bzero(rk, (size_t)(nr + 1) * sizeof(rk[0]));
	_mm256_zeroupper();
}

/*
 * Encrypt 16 sectors in lockstep, two per ymm register (sector 2p in the
 * low, 2p+1 in the high lane). CBC encryption is serial inside a sector,
 * so the 8-lane xmm code above is bound by AESENC's latency; 16 chains
 * in 8 ymm registers keep the AES units busy: on this CPU class about
 * twice the throughput. Every lane must have the same round count.
 */
VAES_TARGET static void cbc_encrypt_vaes16(const struct loop_aesni_key *const *keys,
					   const uint8_t (*iv)[16], uint8_t *const *dst,
					   const uint8_t *const *src)
{
	/* per register pair, each round's two keys side by side; one set
	 * when all 16 lanes share a key (every single-key format) */
	__m256i rk[8][15];
	const __m256i *prk[8];
	__m256i x[8];
	unsigned int blk, p, npairs = 1;
	int r, nr = keys[0]->rounds;

	for (p = 1; p < 16; p++)
		if (keys[p] != keys[0])
			npairs = 8;
	for (p = 0; p < npairs; p++)
		for (r = 0; r <= nr; r++)
			rk[p][r] = _mm256_inserti128_si256(
				_mm256_castsi128_si256(_mm_load_si128((const __m128i *)keys[2 * p]->enc[r])),
				_mm_load_si128((const __m128i *)keys[2 * p + 1]->enc[r]), 1);
#pragma GCC unroll 8
	for (p = 0; p < 8; p++) {
		prk[p] = rk[npairs == 1 ? 0 : p];
		x[p] = _mm256_inserti128_si256(
			_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)iv[2 * p])),
			_mm_loadu_si128((const __m128i *)iv[2 * p + 1]), 1);
	}
	for (blk = 0; blk < LOOP_SECTOR_SIZE; blk += 16) {
#pragma GCC unroll 8
		for (p = 0; p < 8; p++) {
			__m256i in = _mm256_inserti128_si256(
				_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(src[2 * p] + blk))),
				_mm_loadu_si128((const __m128i *)(src[2 * p + 1] + blk)), 1);

			x[p] = _mm256_xor_si256(x[p], _mm256_xor_si256(in, prk[p][0]));
		}
		for (r = 1; r < nr; r++)
#pragma GCC unroll 8
			for (p = 0; p < 8; p++)
				x[p] = _mm256_aesenc_epi128(x[p], prk[p][r]);
#pragma GCC unroll 8
		for (p = 0; p < 8; p++) {
			x[p] = _mm256_aesenclast_epi128(x[p], prk[p][nr]);
			_mm_storeu_si128((__m128i *)(dst[2 * p] + blk), _mm256_castsi256_si128(x[p]));
			_mm_storeu_si128((__m128i *)(dst[2 * p + 1] + blk),
					 _mm256_extracti128_si256(x[p], 1));
		}
	}
	/* round keys are key material; only the pairs filled were written */
	explicit_bzero(rk, npairs * sizeof(rk[0]));
	_mm256_zeroupper();
}

void loop_aesni_cbc_encrypt_sectors_vaes16(const struct loop_aesni_key *const *keys,
					   const uint8_t (*iv)[16], uint8_t *const *dst,
					   const uint8_t *const *src)
{
	cbc_encrypt_vaes16(keys, iv, dst, src);
}

int loop_aesni_vaes_available(void)
{
	return vaes_usable();
}

#else /* not x86 */

int loop_aesni_available(void) { return 0; }
int loop_aesni_vaes_available(void) { return 0; }
void loop_aesni_expand_key(struct loop_aesni_key *k, const uint8_t *key, size_t len)
{ (void)k; (void)key; (void)len; }
void loop_aesni_cbc_encrypt_sectors(const struct loop_aesni_key *const *keys,
				    const uint8_t (*iv)[16], uint8_t *const *dst,
				    const uint8_t *const *src, unsigned int n)
{ (void)keys; (void)iv; (void)dst; (void)src; (void)n; }
void loop_aesni_cbc_decrypt_sector_x8(const struct loop_aesni_key *k, const uint8_t iv[16],
				      uint8_t *dst, const uint8_t *src)
{ (void)k; (void)iv; (void)dst; (void)src; }
void loop_aesni_cbc_decrypt_sector_vaes(const struct loop_aesni_key *k, const uint8_t iv[16],
					uint8_t *dst, const uint8_t *src)
{ (void)k; (void)iv; (void)dst; (void)src; }
void loop_aesni_cbc_encrypt_sectors_vaes16(const struct loop_aesni_key *const *keys,
					   const uint8_t (*iv)[16], uint8_t *const *dst,
					   const uint8_t *const *src)
{ (void)keys; (void)iv; (void)dst; (void)src; }

#endif

unsigned int loop_aes_width(void)
{
	unsigned int max = loop_aesni_vaes_available() ? 256 : 128;
	const char *env = getenv("LIBLOOP_CRYPTO_AES_WIDTH");

	if (!env || !*env)
		return max;
	/* only ever lowered, read like LIBLOOP_CRYPTO_MD5_LANES: anything
	 * below 256, or not a number, is the narrowest (128) */
	return strtoul(env, NULL, 10) >= 256 ? max : 128;
}
