/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loop-AES multi-key (lmk IV) on every lane count this CPU runs:
 *  - the 16-lane (two AVX2 streams) and 8-lane IVs == libgcrypt's MD5
 *    (v2 IV = MD5(pt[16..511] || le56(sector))) and == the scalar IV with
 *    a v3 seed (the scalar one is held to aespipe by tests/kat);
 *  - whole runs through loop_crypt (the fused VAES+MD5 path for runs of 32
 *    sectors and more, the unfused ones for the rest) == a reference built
 *    here from libgcrypt's AES-CBC and MD5, with LIBLOOP_CRYPTO_MD5_LANES
 *    forcing 16, 8 and 1 lanes, in place and out of place, both ways.
 * Lane counts the CPU cannot run are reported as not run (a SKIP line).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>
#include <gcrypt.h>

#include "crypto-internal.h"
#include "tap.h"

static void fill_random(void *p, size_t n)
{
	gcry_create_nonce(p, n);
}

/* v2: plain MD5 from libgcrypt; v3 (seed != NULL): the scalar core */
static void ref_iv(uint8_t iv[16], const uint32_t *v3_seed, const uint8_t *sec,
		   uint64_t sector)
{
	uint8_t msg[503];
	int b;

	if (v3_seed) {
		loop_lmk_iv(iv, v3_seed, sec, sector);
		return;
	}
	memcpy(msg, sec + 16, 496);
	for (b = 0; b < 7; b++)
		msg[496 + b] = (uint8_t)(sector >> (8 * b));
	gcry_md_hash_buffer(GCRY_MD_MD5, iv, msg, sizeof(msg));
}

/* ---- the IV functions themselves ------------------------------------ */
static void test_iv_lanes(unsigned int lanes)
{
	uint8_t *sec = malloc(16 * 512), iv[16][16], want[16];
	const uint8_t *p[16];
	uint64_t s[16];
	uint32_t seed[4];
	int round, l, bad = 0;

	for (round = 0; round < 64; round++) {
		int v3 = round & 1;

		fill_random(sec, 16 * 512);
		fill_random(seed, sizeof(seed));
		for (l = 0; l < 16; l++) {
			fill_random(&s[l], sizeof(s[l]));
			if (round & 2)
				s[l] &= 0xFFFFFFFF;
			p[l] = sec + 512 * l;
		}
		if (!v3)
			loop_md5_init_state(seed);
		if (lanes == 16) {
			loop_lmk_iv_x16(iv, seed, p, s);
		} else {
			loop_lmk_iv_x8(iv, seed, p, s);
			loop_lmk_iv_x8(iv + 8, seed, p + 8, s + 8);
		}
		for (l = 0; l < 16; l++) {
			ref_iv(want, v3 ? seed : NULL, p[l], s[l]);
			bad += !!memcmp(want, iv[l], 16);
		}
	}
	ok(!bad, "%u-lane lmk IV == libgcrypt MD5 (v2) / scalar (v3) for 1024 sectors", lanes);
	free(sec);
}

/* ---- whole runs through loop_crypt ---------------------------------- */
struct mk {
	uint8_t keys[65][32];
	unsigned int count, key_bytes;
	uint32_t seed[4];	/* v3 seed, or the MD5 initial state for v2 */
};

static void mk_init(struct mk *m, unsigned int count, unsigned int key_bytes)
{
	uint8_t blk[64] = { 0 };

	fill_random(m->keys, sizeof(m->keys));
	m->count = count;
	m->key_bytes = key_bytes;
	loop_md5_init_state(m->seed);
	if (count == 65) {
		memcpy(blk, m->keys[64], 16);
		loop_md5_compress(m->seed, blk);
	}
}

/* reference: libgcrypt CBC per sector, K[sector & 63], lmk IV */
static void ref_encrypt(const struct mk *m, uint64_t first, uint8_t *ct,
			const uint8_t *pt, size_t n)
{
	gcry_cipher_hd_t h;
	int algo = m->key_bytes == 16 ? GCRY_CIPHER_AES128 :
		   m->key_bytes == 24 ? GCRY_CIPHER_AES192 : GCRY_CIPHER_AES256;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t s = first + i;
		uint8_t iv[16];

		ref_iv(iv, m->count == 65 ? m->seed : NULL, pt + 512 * i, s);
		gcry_cipher_open(&h, algo, GCRY_CIPHER_MODE_CBC, 0);
		gcry_cipher_setkey(h, m->keys[s & 63], m->key_bytes);
		gcry_cipher_setiv(h, iv, 16);
		gcry_cipher_encrypt(h, ct + 512 * i, 512, pt + 512 * i, 512);
		gcry_cipher_close(h);
	}
}

static struct loop_crypt *mk_crypt(const struct mk *m, uint64_t first)
{
	struct loop_cipher_spec spec;
	struct loop_key *key = NULL;
	struct loop_crypt *x = NULL;
	uint8_t raw[65 * 32];
	unsigned int i;
	int r;

	for (i = 0; i < m->count; i++)
		memcpy(raw + i * m->key_bytes, m->keys[i], m->key_bytes);
	r = loop_cipher_spec_parse(&spec, m->key_bytes == 16 ? "AES128" :
				   m->key_bytes == 24 ? "AES192" : "AES256", 0, 0);
	if (!r)
		r = loop_key_new_raw(&key, m->count, m->key_bytes, raw);
	if (!r)
		r = loop_crypt_new(&x, &spec, key, first);
	loop_key_free(key);
	return r ? NULL : x;
}

static void test_runs(const char *label, const char *lanes)
{
	static const size_t sizes[] = { 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 64, 100, 203 };
	static const uint64_t firsts[] = { 0, 5, 0xFFFFFFFFull - 40, 0xFFFFFFFFFFFFFFull - 50 };
	static const unsigned int kbytes[] = { 16, 24, 32 };
	const size_t max = 203 * 512;
	uint8_t *pt = malloc(max), *ct = malloc(max), *got = malloc(max), *back = malloc(max);
	unsigned int v, k;
	size_t si, fi;
	int bad_enc = 0, bad_dec = 0, bad_inplace = 0, runs = 0, fail = 0;

	setenv("LIBLOOP_CRYPTO_MD5_LANES", lanes, 1);
	for (v = 0; v < 2; v++) {
		for (k = 0; k < 3; k++) {
			struct mk m;

			mk_init(&m, v ? 65 : 64, kbytes[k]);
			for (fi = 0; fi < sizeof(firsts) / sizeof(firsts[0]); fi++) {
				/* the IV offset moves the key index and the batches */
				struct loop_crypt *x = mk_crypt(&m, firsts[fi]);

				if (!x) {
					fail++;
					continue;
				}
				for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
					size_t n = sizes[si], b = n * 512;

					fill_random(pt, b);
					ref_encrypt(&m, firsts[fi] + 3, ct, pt, n);
					loop_crypt_encrypt(x, 3, got, pt, n);
					bad_enc += !!memcmp(got, ct, b);
					loop_crypt_decrypt(x, 3, back, ct, n);
					bad_dec += !!memcmp(back, pt, b);
					memcpy(got, pt, b);
					loop_crypt_encrypt(x, 3, got, got, n);
					bad_inplace += !!memcmp(got, ct, b);
					loop_crypt_decrypt(x, 3, got, got, n);
					bad_inplace += !!memcmp(got, pt, b);
					runs++;
				}
				loop_crypt_free(x);
			}
		}
	}
	ok(!fail, "%s: contexts created", label);
	ok(!bad_enc, "%s: encrypt == libgcrypt AES-CBC + MD5 IV (%d runs, v2/v3, AES-128/192/256)",
	   label, runs);
	ok(!bad_dec, "%s: decrypt gives the plaintext back", label);
	ok(!bad_inplace, "%s: in place, both ways", label);
	unsetenv("LIBLOOP_CRYPTO_MD5_LANES");
	free(pt); free(ct); free(got); free(back);
}

int main(void)
{
	unsigned int lanes;

	loop_gcrypt_init();
	unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
	unsetenv("LIBLOOP_CRYPTO_MD5_LANES");
	lanes = loop_md5_lanes();
	printf("# lmk lanes this CPU runs: %s; fused VAES+MD5: %s; AES-NI: %s\n",
	       lanes >= 16 ? "16 8 1" : "1",
	       lanes >= 16 && loop_aesni_vaes_available() && loop_aesni_available() ? "yes" : "no",
	       loop_aesni_available() ? "yes" : "no");
	if (lanes >= 16) {
		test_iv_lanes(16);
		test_iv_lanes(8);
		test_runs("16 lanes (fused from 32 sectors)", "16");
		test_runs("8 lanes", "8");
	} else {
		ok(1, "# SKIP 16 and 8 lanes: no AVX2 (or the OS does not save ymm)");
	}
	test_runs("1 lane", "1");
	/* the knob only lowers: asking for more than the CPU has gives the CPU's */
	setenv("LIBLOOP_CRYPTO_MD5_LANES", "64", 1);
	ok(loop_md5_lanes() == lanes, "LIBLOOP_CRYPTO_MD5_LANES=64 gives %u, the CPU's most", lanes);
	setenv("LIBLOOP_CRYPTO_MD5_LANES", "8", 1);
	ok(loop_md5_lanes() == (lanes >= 8 ? 8u : 1u), "LIBLOOP_CRYPTO_MD5_LANES=8 lowers");
	unsetenv("LIBLOOP_CRYPTO_MD5_LANES");
	/* and the libgcrypt back end, which takes the scalar IV */
	setenv("LIBLOOP_CRYPTO_NO_AESNI", "1", 1);
	test_runs("libgcrypt back end", "16");
	unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
	return tap_done();
}
