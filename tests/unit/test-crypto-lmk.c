/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loop-AES multi-key (lmk IV) on every lane count this CPU runs:
 *  - the 32-lane (two AVX-512 streams), 16-lane (two AVX2 streams) and
 *    8-lane IVs == libgcrypt's MD5
 *    (v2 IV = MD5(pt[16..511] || le56(sector))) and == the scalar IV with
 *    a v3 seed (the scalar one is held to aespipe by tests/kat);
 *  - whole runs through loop_crypt (with VAES the fused VAES+MD5 loops:
 *    aesni-lmk.c for runs of 32 sectors and more with 16 lanes,
 *    aesni-lmk-x32.c for runs of 64 and more with 32; the unfused paths
 *    for the rest and for xmm AES) == a reference built
 *    here from libgcrypt's AES-CBC and MD5, on every path: AES width
 *    (LIBLOOP_CRYPTO_AES_WIDTH 256: VAES ymm, 128: xmm) x lmk lanes
 *    (LIBLOOP_CRYPTO_MD5_LANES 32, 16, 8, 1), in place and out of place,
 *    both ways, each context checked to run the path it was asked for.
 * Paths the CPU cannot run are reported as not run (a SKIP line with the
 * reason).  On a CPU without
 * AVX-512, tools/emulate-avx512 runs this test on an emulated one.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gcrypt.h>

#include "crypto/crypto-internal.h"
#include "tap.h"
#include "crypto-paths.h"

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
	uint8_t *sec = malloc(32 * 512), iv[32][16], want[16];
	const uint8_t *p[32];
	uint64_t s[32];
	uint32_t seed[4];
	int round, l, bad = 0;

	for (round = 0; round < 64; round++) {
		int v3 = round & 1;

		fill_random(sec, 32 * 512);
		fill_random(seed, sizeof(seed));
		for (l = 0; l < 32; l++) {
			fill_random(&s[l], sizeof(s[l]));
			if (round & 2)
				s[l] &= 0xFFFFFFFF;
			p[l] = sec + 512 * l;
		}
		if (!v3)
			loop_md5_init_state(seed);
		for (l = 0; l < 32; l += (int)lanes) {
			if (lanes == 32)
				loop_lmk_iv_x32(iv, seed, p, s);
			else if (lanes == 16)
				loop_lmk_iv_x16(iv + l, seed, p + l, s + l);
			else
				loop_lmk_iv_x8(iv + l, seed, p + l, s + l);
		}
		for (l = 0; l < 32; l++) {
			ref_iv(want, v3 ? seed : NULL, p[l], s[l]);
			bad += !!memcmp(want, iv[l], 16);
		}
	}
	ok(!bad, "%u-lane lmk IV == libgcrypt MD5 (v2) / scalar (v3) for 2048 sectors", lanes);
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

/*
 * A run whose first sector starts a page, after a page that cannot be
 * read: the decryptions XOR each block with the ciphertext block before
 * it, and none may read the 16 bytes before the run (the zmm one masks
 * them off).  Returns the number of wrong results; a fault kills the
 * test.
 */
static int guard_page_run(const struct mk *m, struct loop_crypt *x, uint64_t first)
{
	const size_t n = 96, b = n * 512, page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t len = page + ((b + page - 1) / page) * page;
	uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *pt = malloc(b), *ct = malloc(b), *buf = map + page;
	int bad = 0;

	if (map == MAP_FAILED || !pt || !ct || mprotect(map, page, PROT_NONE)) {
		bad = 1;
		goto out;
	}
	fill_random(pt, b);
	ref_encrypt(m, first, ct, pt, n);
	memcpy(buf, ct, b);
	loop_crypt_decrypt(x, 0, buf, buf, n);
	bad += !!memcmp(buf, pt, b);
	memcpy(buf, pt, b);
	loop_crypt_encrypt(x, 0, buf, buf, n);
	bad += !!memcmp(buf, ct, b);
out:
	if (map != MAP_FAILED)
		munmap(map, len);
	free(pt);
	free(ct);
	return bad;
}

/* width 0: the libgcrypt back end (LIBLOOP_CRYPTO_NO_AESNI) */
static void test_runs(unsigned int width, unsigned int lanes)
{
	static const size_t sizes[] = { 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 100,
					208 + 5 };
	static const uint64_t firsts[] = { 0, 5, 0xFFFFFFFFull - 40, 0xFFFFFFFFFFFFFFull - 50 };
	static const unsigned int kbytes[] = { 16, 24, 32 };
	const size_t max = 213 * 512;
	char label[64], want[64];
	uint8_t *pt = malloc(max), *ct = malloc(max), *got = malloc(max), *back = malloc(max);
	unsigned int v, k;
	size_t si, fi;
	int bad_enc = 0, bad_dec = 0, bad_inplace = 0, runs = 0, fail = 0, bad_name = 0;
	int bad_guard = 0;

	if (width) {
		snprintf(label, sizeof(label), "AES width %u, %u lanes", width, lanes);
		path_impl(want, sizeof(want), width, lanes, 1);
		path_set(width, lanes);
	} else {
		/* libgcrypt hashes one sector at a time, whatever is asked */
		snprintf(label, sizeof(label), "libgcrypt back end");
		snprintf(want, sizeof(want), "libgcrypt, md5 1-lane");
		path_set(256, 16);
		setenv("LIBLOOP_CRYPTO_NO_AESNI", "1", 1);
	}
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
				bad_name += !!strcmp(loop_crypt_impl_name(x), want);
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
				bad_guard += guard_page_run(&m, x, firsts[fi]);
				loop_crypt_free(x);
			}
		}
	}
	ok(!fail && !bad_name, "%s: contexts created, each runs \"%s\"", label, want);
	ok(!bad_enc, "%s: encrypt == libgcrypt AES-CBC + MD5 IV (%d runs, v2/v3, AES-128/192/256)",
	   label, runs);
	ok(!bad_dec, "%s: decrypt gives the plaintext back", label);
	ok(!bad_inplace, "%s: in place, both ways", label);
	ok(!bad_guard, "%s: 96 sectors right after an unreadable page, in place", label);
	path_clear();
	unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
	free(pt); free(ct); free(got); free(back);
}

/* argv[1]: only the rows of that lane count (tools/check runs the
 * AVX-512 ones on an emulated CPU, where everything is slow) */
int main(int argc, char **argv)
{
	unsigned int lanes, w, l, only = argc > 1 ? (unsigned int)atoi(argv[1]) : 0;

	loop_gcrypt_init();
	unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
	path_clear();
	lanes = loop_md5_lanes();
	printf("# this CPU: lmk lanes at most %u, AES width at most %u, AES-NI %s\n", lanes,
	       loop_aes_width(), loop_aesni_available() ? "yes" : "no");
	if (only && only != 32 && only != 16 && only != 8 && only != 1) {
		printf("Bail out! lane count %s: 32, 16, 8 or 1\n", argv[1]);
		return 1;
	}
	if (!only || only == 32) {
		if (loop_md5_x32_available())
			test_iv_lanes(32);
		else if (cpu_has_avx512f())
			/* our code, not the CPU, is the likelier culprit */
			ok(0, "32-lane lmk IV: %s", md5_x32_why_not());
		else
			skip("32-lane lmk IV: %s", md5_x32_why_not());
	}
	if (!only || only == 16 || only == 8) {
		if (lanes >= 16) {
			test_iv_lanes(16);
			test_iv_lanes(8);
		} else {
			skip("16- and 8-lane lmk IVs: no AVX2 (or the OS does not save ymm)");
		}
	}
	for (w = 0; w < PATH_COUNT(path_widths); w++)
		for (l = 0; l < PATH_COUNT(path_lanes); l++) {
			const char *why = path_why_not(path_widths[w], path_lanes[l]);

			if (only && path_lanes[l] != only)
				continue;
			if (why)
				skip("multi-key, AES width %u, %u lanes: %s", path_widths[w],
				     path_lanes[l], why);
			else
				test_runs(path_widths[w], path_lanes[l]);
		}
	if (only)
		return tap_done();
	/* the knob only lowers: asking for more than the CPU has gives the
	 * CPU's; anything below 8, or not a number, is 1 lane */
	setenv("LIBLOOP_CRYPTO_MD5_LANES", "64", 1);
	ok(loop_md5_lanes() == lanes, "LIBLOOP_CRYPTO_MD5_LANES=64 gives %u, the CPU's most", lanes);
	setenv("LIBLOOP_CRYPTO_MD5_LANES", "16", 1);
	ok(loop_md5_lanes() == (lanes >= 16 ? 16u : 1u), "LIBLOOP_CRYPTO_MD5_LANES=16 lowers");
	setenv("LIBLOOP_CRYPTO_MD5_LANES", "8", 1);
	ok(loop_md5_lanes() == (lanes >= 8 ? 8u : 1u), "LIBLOOP_CRYPTO_MD5_LANES=8 lowers");
	setenv("LIBLOOP_CRYPTO_MD5_LANES", "garbage", 1);
	ok(loop_md5_lanes() == 1, "LIBLOOP_CRYPTO_MD5_LANES=garbage gives 1");
	unsetenv("LIBLOOP_CRYPTO_MD5_LANES");
	/* and the libgcrypt back end, which takes the scalar IV */
	test_runs(0, 16);
	return tap_done();
}
