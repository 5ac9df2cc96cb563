/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sector encryption: published block-cipher vectors (NIST SP 800-38A CBC-AES,
 * NESSIE Serpent, the Twofish paper), the hand-written AES-NI code against
 * libgcrypt byte for byte, the lmk (loop-AES v2) IV against libgcrypt's
 * MD5, both back ends against each other for every format, every AES
 * register width this CPU runs (LIBLOOP_CRYPTO_AES_WIDTH) against
 * libgcrypt, and many threads on one context.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <gcrypt.h>

#include "crypto/crypto-internal.h"
#include "tap.h"
#include "crypto-paths.h"

static void unhex(uint8_t *out, const char *hex)
{
	size_t i;

	for (i = 0; hex[2 * i]; i++) {
		unsigned int v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

static void fill_random(void *p, size_t n)
{
	gcry_create_nonce(p, n);
}

/* ---- NIST SP 800-38A F.2.1/F.2.3/F.2.5 through the AES-NI core ------- */
static void test_nist_cbc(void)
{
	static const struct { const char *key, *ct; } v[] = {
		{ "2b7e151628aed2a6abf7158809cf4f3c",
		  "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
		  "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7" },
		{ "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
		  "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a"
		  "571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd" },
		{ "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
		  "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
		  "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b" },
	};
	static const char *pt_hex =
		"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
		"30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
	struct loop_aesni_key k;
	uint8_t key[32], iv[1][16], pt[512], ct[512], want[64], back[512];
	size_t i, klen;

	if (!loop_aesni_available()) {
		skip("no AES-NI on this CPU");
		return;
	}
	for (i = 0; i < 3; i++) {
		const struct loop_aesni_key *kp = &k;
		uint8_t *d = ct;
		const uint8_t *s = pt;

		klen = strlen(v[i].key) / 2;
		unhex(key, v[i].key);
		unhex(iv[0], "000102030405060708090a0b0c0d0e0f");
		memset(pt, 0, sizeof(pt));
		unhex(pt, pt_hex);
		unhex(want, v[i].ct);
		loop_aesni_expand_key(&k, key, klen);
		/* CBC is a prefix code: the first 4 blocks of the sector are
		 * the NIST ciphertext. */
		loop_aesni_cbc_encrypt_sectors(&kp, (const uint8_t (*)[16])iv, &d, &s, 1);
		ok(!memcmp(ct, want, 64), "NIST SP 800-38A CBC-AES%zu encrypt", klen * 8);
		loop_aesni_cbc_decrypt_sector_x8(&k, iv[0], back, ct);
		ok(!memcmp(back, pt, 512), "NIST SP 800-38A CBC-AES%zu decrypt (xmm)", klen * 8);
		if (loop_aesni_vaes_available()) {
			memset(back, 0, sizeof(back));
			loop_aesni_cbc_decrypt_sector_vaes(&k, iv[0], back, ct);
			ok(!memcmp(back, pt, 512), "NIST SP 800-38A CBC-AES%zu decrypt (VAES)",
			   klen * 8);
		} else {
			skip("NIST SP 800-38A CBC-AES%zu decrypt (VAES): no working VAES here",
			     klen * 8);
		}
	}
}

/* ---- other block ciphers through loop_crypt: sector 0 of cryptoloop has
 * an all-zero IV, so block 0 of the ciphertext is E_K(P0). ------------ */
static void test_block_vectors(void)
{
	static const struct {
		const char *spec, *key, *pt, *ct, *src;
		unsigned int bits;
	} v[] = {
		{ "serpent", "80000000000000000000000000000000",
		  "00000000000000000000000000000000", "264e5481eff42a4606abda06c0bfda3d",
		  "NESSIE Serpent-128-128 set 1 vector 0", 128 },
		{ "twofish", "00000000000000000000000000000000",
		  "00000000000000000000000000000000", "9f589f5cf6122c32b6bfec2f2ae8c35a",
		  "Twofish paper, 128-bit key I=1", 128 },
		{ "twofish", "0000000000000000000000000000000000000000000000000000000000000000",
		  "00000000000000000000000000000000", "57ff739d4dc92c1bd7fc01700cc8216f",
		  "Twofish paper, 256-bit key I=1", 256 },
		{ "aes", "000102030405060708090a0b0c0d0e0f",
		  "00112233445566778899aabbccddeeff", "69c4e0d86a7b0430d8cdb78070b4c55a",
		  "FIPS-197 C.1", 128 },
		{ "aes", "000102030405060708090a0b0c0d0e0f1011121314151617",
		  "00112233445566778899aabbccddeeff", "dda97ca4864cdfe06eaf70a0ec0d7191",
		  "FIPS-197 C.2", 192 },
		{ "aes", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
		  "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089",
		  "FIPS-197 C.3", 256 },
	};
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		if (pass)
			setenv("LIBLOOP_CRYPTO_NO_AESNI", "1", 1);
		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			struct loop_cipher_spec spec;
			struct loop_key *key = NULL;
			struct loop_crypt *x = NULL;
			uint8_t k[32], sec[512], want[16], back[512];
			int r;

			unhex(k, v[i].key);
			memset(sec, 0x3c, sizeof(sec));
			unhex(sec, v[i].pt);
			unhex(want, v[i].ct);
			r = loop_cipher_spec_parse(&spec, v[i].spec, v[i].bits, 0);
			if (!r)
				r = loop_key_new_raw(&key, 1, v[i].bits / 8, k);
			if (!r)
				r = loop_crypt_new(&x, &spec, key, 0);
			if (!r)
				r = loop_crypt_encrypt(x, 0, back, sec, 1);
			ok(!r && !memcmp(back, want, 16), "%s (%s)", v[i].src,
			   loop_crypt_impl_name(x));
			if (!r)
				r = loop_crypt_decrypt(x, 0, back, back, 1);
			ok(!r && !memcmp(back, sec, 512), "%s decrypts back", v[i].src);
			loop_crypt_free(x);
			loop_key_free(key);
		}
	}
	unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
}

/* ---- AES-NI core against libgcrypt ----------------------------------- */
static void gcry_cbc(int enc, const uint8_t *key, size_t klen, const uint8_t *iv,
		     uint8_t *out, const uint8_t *in)
{
	gcry_cipher_hd_t h;

	gcry_cipher_open(&h, klen == 16 ? GCRY_CIPHER_AES128 :
			 klen == 24 ? GCRY_CIPHER_AES192 : GCRY_CIPHER_AES256,
			 GCRY_CIPHER_MODE_CBC, 0);
	gcry_cipher_setkey(h, key, klen);
	gcry_cipher_setiv(h, iv, 16);
	if (enc)
		gcry_cipher_encrypt(h, out, 512, in, 512);
	else
		gcry_cipher_decrypt(h, out, 512, in, 512);
	gcry_cipher_close(h);
}

static void test_aesni_vs_gcrypt(void)
{
	static const size_t klens[] = { 16, 24, 32 };
	struct loop_aesni_key *keys;
	uint8_t raw[8][32], iv[8][16], *pt, *ct, *ref, *dec;
	size_t ki, l, n, round;
	int bad_enc = 0, bad_dec = 0, bad_inplace = 0, tries = 0;

	if (!loop_aesni_available()) {
		skip("no AES-NI on this CPU");
		return;
	}
	keys = aligned_alloc(16, 8 * sizeof(*keys));
	pt = malloc(8 * 512 + 1);
	ct = malloc(8 * 512 + 1);
	ref = malloc(512);
	dec = malloc(512 + 3);
	for (ki = 0; ki < 3; ki++) {
		for (round = 0; round < 20; round++) {
			for (n = 1; n <= 8; n++) {
				const struct loop_aesni_key *kp[8];
				uint8_t *d[8];
				const uint8_t *s[8];
				/* odd offsets: loop_crypt must not need aligned I/O */
				uint8_t *p = pt + (round & 1), *c = ct + (n & 1);

				for (l = 0; l < n; l++) {
					fill_random(raw[l], klens[ki]);
					fill_random(iv[l], 16);
					fill_random(p + 512 * l, 512);
					loop_aesni_expand_key(&keys[l], raw[l], klens[ki]);
					kp[l] = &keys[l];
					s[l] = p + 512 * l;
					d[l] = c + 512 * l;
				}
				loop_aesni_cbc_encrypt_sectors(kp, (const uint8_t (*)[16])iv, d, s, (unsigned int)n);
				for (l = 0; l < n; l++) {
					tries++;
					gcry_cbc(1, raw[l], klens[ki], iv[l], ref, p + 512 * l);
					bad_enc += !!memcmp(ref, c + 512 * l, 512);
					loop_aesni_cbc_decrypt_sector_x8(&keys[l], iv[l], dec + 3, c + 512 * l);
					bad_dec += !!memcmp(dec + 3, p + 512 * l, 512);
					if (loop_aesni_vaes_available()) {
						loop_aesni_cbc_decrypt_sector_vaes(&keys[l], iv[l], dec + 3, c + 512 * l);
						bad_dec += !!memcmp(dec + 3, p + 512 * l, 512);
					}
				}
				/* in place */
				for (l = 0; l < n; l++)
					d[l] = p + 512 * l;
				memcpy(c, p, 512 * n);
				loop_aesni_cbc_encrypt_sectors(kp, (const uint8_t (*)[16])iv, d, (const uint8_t *const *)d, (unsigned int)n);
				for (l = 0; l < n; l++) {
					gcry_cbc(1, raw[l], klens[ki], iv[l], ref, c + 512 * l);
					bad_inplace += !!memcmp(ref, p + 512 * l, 512);
					if ((l & 1) || !loop_aesni_vaes_available())
						loop_aesni_cbc_decrypt_sector_x8(&keys[l], iv[l], p + 512 * l, p + 512 * l);
					else
						loop_aesni_cbc_decrypt_sector_vaes(&keys[l], iv[l], p + 512 * l, p + 512 * l);
					bad_inplace += !!memcmp(c + 512 * l, p + 512 * l, 512);
				}
			}
		}
		ok(!bad_enc, "AES-%zu 1..8-lane encrypt == libgcrypt CBC (%d sectors)", klens[ki] * 8, tries);
		ok(!bad_dec, "AES-%zu decrypt (8-way xmm%s) == plaintext", klens[ki] * 8,
		   loop_aesni_vaes_available() ? " and VAES" : "; no VAES here");
		ok(!bad_inplace, "AES-%zu in-place encrypt/decrypt == libgcrypt", klens[ki] * 8);
		bad_enc = bad_dec = bad_inplace = tries = 0;
	}
	free(keys); free(pt); free(ct); free(ref); free(dec);
}

/* ---- lmk v2 IV == standard MD5 (libgcrypt) --------------------------- */
static void test_lmk_md5(void)
{
	static const uint64_t sectors[] = {
		0, 1, 63, 64, 0xFFFFFFFFull, 0x100000000ull, 0x123456789abcdefull,
		0xFFFFFFFFFFFFFFFFull,
	};
	uint32_t init[4];
	uint8_t sec[512], msg[503], iv[16];
	size_t i;
	int bad = 0;

	loop_md5_init_state(init);
	for (i = 0; i < sizeof(sectors) / sizeof(sectors[0]); i++) {
		int b;

		fill_random(sec, sizeof(sec));
		loop_lmk_iv(iv, init, sec, sectors[i]);
		/* IV = MD5(plaintext[16..511] || low 56 bits of sector, LE) */
		memcpy(msg, sec + 16, 496);
		for (b = 0; b < 7; b++)
			msg[496 + b] = (uint8_t)(sectors[i] >> (8 * b));
		gcry_md_hash_buffer(GCRY_MD_MD5, sec, msg, sizeof(msg));
		bad += !!memcmp(iv, sec, 16);
	}
	ok(!bad, "loop-AES v2 IV equals MD5(pt[16..511] || le56(sector)) for %zu sectors",
	   sizeof(sectors) / sizeof(sectors[0]));
}

/* ---- AVX2 eight-lane lmk IV == scalar -------------------------------- */
static void test_lmk_x8(void)
{
	uint8_t *sec = malloc(8 * 512), iv8[8][16], iv1[16];
	const uint8_t *p[8];
	uint64_t s[8];
	uint32_t seed[4];
	int round, l, bad = 0;

	if (!loop_md5_x8_available()) {
		skip("no AVX2 on this CPU");
		free(sec);
		return;
	}
	for (round = 0; round < 50; round++) {
		fill_random(sec, 8 * 512);
		fill_random(seed, sizeof(seed));
		if (round & 1)
			loop_md5_init_state(seed);
		for (l = 0; l < 8; l++) {
			fill_random(&s[l], sizeof(s[l]));
			if (round & 2)
				s[l] &= 0xFFFFFFFF;
			p[l] = sec + 512 * l;
		}
		loop_lmk_iv_x8(iv8, seed, p, s);
		for (l = 0; l < 8; l++) {
			loop_lmk_iv(iv1, seed, p[l], s[l]);
			bad += !!memcmp(iv1, iv8[l], 16);
		}
	}
	ok(!bad, "AVX2 8-lane lmk IV == scalar for 400 sectors (v2 and v3 seeds)");
	free(sec);
}

/* ---- both back ends, every format ------------------------------------ */
struct fmt_case {
	const char *spec;
	unsigned int bits, keys;
};

static const struct fmt_case fmts[] = {
	{ "aes", 0, 1 }, { "aes", 128, 1 }, { "aes", 192, 1 },
	{ "aes-cbc-plain64", 256, 1 }, { "AES128", 0, 64 }, { "AES192", 0, 65 },
	{ "AES256", 0, 64 }, { "AES256", 0, 65 }, { "twofish", 0, 1 },
	{ "serpent128", 0, 65 }, { "blowfish", 0, 1 },
};

static int make_crypt(struct loop_crypt **x, const struct fmt_case *f, const uint8_t *keys,
		      uint64_t ivoff, int no_aesni)
{
	struct loop_cipher_spec spec;
	struct loop_key *key = NULL;
	int r;

	if (no_aesni)
		setenv("LIBLOOP_CRYPTO_NO_AESNI", "1", 1);
	else
		unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
	r = loop_cipher_spec_parse(&spec, f->spec, f->bits, 0);
	if (!r)
		r = loop_key_new_raw(&key, f->keys, spec.key_bytes, keys);
	if (!r)
		r = loop_crypt_new(x, &spec, key, ivoff);
	loop_key_free(key);
	unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
	return r;
}

static void test_backends_agree(void)
{
	enum { NS = 37 };
	uint8_t keys[65 * 32], *pt = malloc(NS * 512 + 1), *a = malloc(NS * 512),
		*b = malloc(NS * 512 + 1), *c = malloc(NS * 512);
	size_t i;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct loop_crypt *xa = NULL, *xg = NULL;
		uint64_t ivoff = i & 1 ? 0xFFFFFFF0ull : 61;
		size_t done;
		int r;

		fill_random(keys, sizeof(keys));
		fill_random(pt, NS * 512 + 1);
		r = make_crypt(&xa, &fmts[i], keys, ivoff, 0);
		if (!r)
			r = make_crypt(&xg, &fmts[i], keys, ivoff, 1);
		ok(!r, "%s/%u keys: contexts (%s, %s)", fmts[i].spec, fmts[i].keys,
		   loop_crypt_impl_name(xa), loop_crypt_impl_name(xg));
		if (r)
			continue;
		/* one call vs. ragged calls; out of place (odd address) vs. in place */
		r = loop_crypt_encrypt(xa, 5, a, pt + 1, NS);
		memcpy(b + 1, pt + 1, NS * 512);
		for (done = 0; !r && done < NS; ) {
			size_t n = (done % 7) + 1;

			if (n > NS - done)
				n = NS - done;
			r = loop_crypt_encrypt(xg, 5 + done, b + 1 + 512 * done, b + 1 + 512 * done, n);
			done += n;
		}
		ok(!r && !memcmp(a, b + 1, NS * 512), "%s/%u keys: AES-NI and libgcrypt ciphertexts agree",
		   fmts[i].spec, fmts[i].keys);
		r = loop_crypt_decrypt(xg, 5, c, a, NS);
		ok(!r && !memcmp(c, pt + 1, NS * 512), "%s/%u keys: libgcrypt decrypts it",
		   fmts[i].spec, fmts[i].keys);
		r = loop_crypt_decrypt(xa, 5, a, a, NS);
		ok(!r && !memcmp(a, pt + 1, NS * 512), "%s/%u keys: in-place decrypt",
		   fmts[i].spec, fmts[i].keys);
		loop_crypt_free(xa);
		loop_crypt_free(xg);
	}
	free(pt); free(a); free(b); free(c);
}

/* ---- single key on every AES width, against libgcrypt ----------------- */

/* IV formats, key sizes and run lengths at one width: with VAES the
 * encrypt batches are 16 sectors, 8 without; lengths that are no
 * multiple of either leave 1..15 sectors for the narrower lanes. */
static void test_width(unsigned int width)
{
	static const struct fmt_case single[] = {
		{ "aes", 128, 1 }, { "aes", 192, 1 }, { "aes", 256, 1 },
		{ "aes-cbc-plain64", 128, 1 }, { "aes-cbc-plain64", 192, 1 },
		{ "aes-cbc-plain64", 256, 1 }, { "AES256", 0, 1 },
	};
	static const size_t sizes[] = { 1, 7, 15, 16, 17, 31, 33, 208 + 5 };
	enum { MAX = 213 };
	uint8_t keys[32], *pt = malloc(MAX * 512), *ref = malloc(MAX * 512),
		*got = malloc(MAX * 512 + 1), *buf = malloc(MAX * 512);
	char want[64];
	const char *name = "(none)";
	size_t f, si;
	int bad_name = 0, bad_enc = 0, bad_dec = 0, bad_inplace = 0, runs = 0;

	path_impl(want, sizeof(want), width, 1, 0);
	for (f = 0; f < PATH_COUNT(single); f++) {
		struct loop_crypt *xa = NULL, *xg = NULL;
		/* plain32 wraps at 2^32 inside the longer runs */
		uint64_t ivoff = f & 1 ? 0xFFFFFFF0ull : 61;

		fill_random(keys, sizeof(keys));
		path_set(width, 16);
		if (make_crypt(&xa, &single[f], keys, ivoff, 0) ||
		    make_crypt(&xg, &single[f], keys, ivoff, 1)) {
			bad_name++;
			path_clear();
			loop_crypt_free(xa);
			continue;
		}
		path_clear();
		name = loop_crypt_impl_name(xa);
		bad_name += !!strcmp(name, want);
		for (si = 0; si < PATH_COUNT(sizes); si++) {
			size_t n = sizes[si], b = n * 512;

			fill_random(pt, b);
			runs++;
			if (loop_crypt_encrypt(xg, 3, ref, pt, n)) {
				bad_enc++;
				continue;
			}
			/* out of place at an odd address, then in place */
			bad_enc += loop_crypt_encrypt(xa, 3, got + 1, pt, n) ||
				   memcmp(got + 1, ref, b);
			bad_dec += loop_crypt_decrypt(xa, 3, got + 1, ref, n) ||
				   memcmp(got + 1, pt, b);
			memcpy(buf, pt, b);
			bad_inplace += loop_crypt_encrypt(xa, 3, buf, buf, n) || memcmp(buf, ref, b);
			bad_inplace += loop_crypt_decrypt(xa, 3, buf, buf, n) || memcmp(buf, pt, b);
		}
		loop_crypt_free(xa);
		loop_crypt_free(xg);
	}
	ok(!bad_name, "AES width %u: every context runs \"%s\" (last: \"%s\")", width, want, name);
	ok(!bad_enc, "AES width %u: AES-128/192/256 plain32/plain64 encrypt == libgcrypt "
	   "(%d runs of 1..213 sectors)", width, runs);
	ok(!bad_dec, "AES width %u: decrypt of libgcrypt's ciphertext gives the plaintext", width);
	ok(!bad_inplace, "AES width %u: in place, both ways", width);
	free(pt); free(ref); free(got); free(buf);
}

static void test_widths(void)
{
	unsigned int most, i;
	static const struct { const char *env; int lowers; } env[] = {
		{ "128", 1 }, { "64", 1 }, { "garbage", 1 }, { "256", 0 }, { "512", 0 },
		{ "", 0 },
	};

	for (i = 0; i < PATH_COUNT(path_widths); i++) {
		const char *why = path_why_not(path_widths[i], 1);

		if (why)
			skip("single-key AES, AES width %u: %s", path_widths[i], why);
		else
			test_width(path_widths[i]);
	}
	path_skip_zmm("single-key AES");

	/* the knob only lowers; garbage is the narrowest, like MD5_LANES */
	unsetenv("LIBLOOP_CRYPTO_AES_WIDTH");
	most = loop_aes_width();
	ok(most == (loop_aesni_vaes_available() ? 256u : 128u),
	   "without LIBLOOP_CRYPTO_AES_WIDTH: %u, the CPU's widest", most);
	for (i = 0; i < PATH_COUNT(env); i++) {
		setenv("LIBLOOP_CRYPTO_AES_WIDTH", env[i].env, 1);
		is_u64(loop_aes_width(), env[i].lowers ? 128 : most,
		       "LIBLOOP_CRYPTO_AES_WIDTH=\"%s\" gives %u", env[i].env,
		       env[i].lowers ? 128 : most);
	}
	unsetenv("LIBLOOP_CRYPTO_AES_WIDTH");
}

/* ---- many threads, one context --------------------------------------- */
enum { T_SECTORS = 64, T_THREADS = 4, T_ROUNDS = 200 };

struct thr {
	struct loop_crypt *x;
	const uint8_t *pt, *want;
	int bad;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	uint8_t *buf = malloc(T_SECTORS * 512);
	int i;

	for (i = 0; i < T_ROUNDS; i++) {
		size_t first = (size_t)(i * 7) % (T_SECTORS - 8);

		memcpy(buf, t->pt + 512 * first, 8 * 512);
		if (loop_crypt_encrypt(t->x, first, buf, buf, 8) ||
		    memcmp(buf, t->want + 512 * first, 8 * 512))
			t->bad++;
		if (loop_crypt_decrypt(t->x, first, buf, buf, 8) ||
		    memcmp(buf, t->pt + 512 * first, 8 * 512))
			t->bad++;
	}
	free(buf);
	return NULL;
}

static void test_threads(void)
{
	uint8_t keys[65 * 32], *pt = malloc(T_SECTORS * 512), *want = malloc(T_SECTORS * 512);
	int pass;

	for (pass = 0; pass < 2; pass++) {
		const struct fmt_case *f = &fmts[pass ? 4 : 0];
		struct loop_crypt *x = NULL;
		struct thr t[T_THREADS];
		pthread_t tid[T_THREADS];
		int i, bad = 0;

		fill_random(keys, sizeof(keys));
		fill_random(pt, T_SECTORS * 512);
		if (make_crypt(&x, f, keys, 0, pass)) {
			ok(0, "thread test context");
			continue;
		}
		loop_crypt_encrypt(x, 0, want, pt, T_SECTORS);
		for (i = 0; i < T_THREADS; i++) {
			t[i] = (struct thr){ x, pt, want, 0 };
			pthread_create(&tid[i], NULL, thread_main, &t[i]);
		}
		for (i = 0; i < T_THREADS; i++) {
			pthread_join(tid[i], NULL);
			bad += t[i].bad;
		}
		ok(!bad, "%d threads sharing one %s context (%s): %d bad results",
		   T_THREADS, f->spec, loop_crypt_impl_name(x), bad);
		loop_crypt_free(x);
	}
	free(pt); free(want);
}

static void test_errors(void)
{
	struct loop_cipher_spec spec;
	struct loop_key *key = NULL;
	struct loop_crypt *x = NULL;
	uint8_t k[65 * 32] = { 0 };

	is_u64(loop_crypt_iv_offset(1536, -1), 3, "IV offset from a 1536-byte offset");
	is_u64(loop_crypt_iv_offset(1000, -1), 1, "IV offset rounds down (kernel: pos >> 9)");
	is_u64(loop_crypt_iv_offset(1536, 0), 0, "explicit IV offset 0 (cryptsetup --skip 0)");
	is_u64(loop_crypt_iv_offset(0, 7), 7, "explicit IV offset 7");

	loop_cipher_spec_parse(&spec, "aes", 0, 0);
	loop_key_new_raw(&key, 64, 32, k);
	ok(loop_crypt_new(&x, &spec, key, 0) == -EINVAL, "64 keys need a loop-AES spec");
	loop_key_free(key);
	loop_key_new_raw(&key, 1, 20, k);
	ok(loop_crypt_new(&x, &spec, key, 0) == -EINVAL, "20-byte key is no AES key");
	loop_key_free(key);
	loop_cipher_spec_parse(&spec, "blowfish128", 0, 0);
	loop_key_new_raw(&key, 65, 16, k);
	ok(loop_crypt_new(&x, &spec, key, 0) == -EINVAL, "multi-key needs a 16-byte block");
	loop_key_free(key);
	ok(loop_key_new_raw(&key, 2, 16, k) == -EINVAL, "2 keys is no key set");
	ok(loop_crypt_encrypt(NULL, 0, k, k, 1) == -EINVAL, "NULL context");
}

/* ---- 16 lanes (VAES: two sectors per ymm register) vs libgcrypt ------ */

static void test_encrypt_16_lanes(void)
{
	static const size_t klens[] = { 16, 24, 32 };
	struct loop_aesni_key *keys;
	uint8_t raw[16][32], iv[16][16], *pt, *ct, ref[512];
	size_t ki, l, shared, inplace;
	int bad = 0, tries = 0;
	const char *path = loop_aesni_vaes_available() ? "VAES 16-lane" : "2x 8-lane xmm (no VAES here)";

	if (!loop_aesni_available()) {
		skip("no AES-NI on this CPU");
		return;
	}
	keys = aligned_alloc(16, 16 * sizeof(*keys));
	pt = malloc(16 * 512 + 1);
	ct = malloc(16 * 512 + 1);
	for (ki = 0; ki < 3; ki++)
		for (shared = 0; shared < 2; shared++)
			for (inplace = 0; inplace < 2; inplace++) {
				const struct loop_aesni_key *kp[16];
				uint8_t *d[16];
				const uint8_t *s[16];
				/* odd offsets: no alignment needed */
				uint8_t *p = pt + 1, *c = inplace ? pt + 1 : ct + (ki & 1);

				for (l = 0; l < 16; l++) {
					fill_random(raw[l], klens[ki]);
					if (shared && l)
						memcpy(raw[l], raw[0], klens[ki]);
					fill_random(iv[l], 16);
					loop_aesni_expand_key(&keys[l], raw[l], klens[ki]);
					/* one key for all lanes, as single-key formats pass it */
					kp[l] = shared ? &keys[0] : &keys[l];
					s[l] = p + 512 * l;
					/* lanes out of order in memory: each lane its own sector */
					d[l] = c + 512 * (15 - l);
				}
				fill_random(p, 16 * 512);
				if (inplace)
					for (l = 0; l < 16; l++)
						s[l] = d[l];
				{
					uint8_t plain[16][512];

					for (l = 0; l < 16; l++)
						memcpy(plain[l], s[l], 512);
					loop_aesni_cbc_encrypt_sectors(kp, (const uint8_t (*)[16])iv, d, s, 16);
					for (l = 0; l < 16; l++) {
						tries++;
						gcry_cbc(1, raw[l], klens[ki], iv[l], ref, plain[l]);
						bad += !!memcmp(ref, d[l], 512);
					}
				}
			}
	ok(!bad, "16-lane encrypt (%s), AES-128/192/256, shared and per-lane keys, "
	   "in place and not == libgcrypt CBC (%d sectors)", path, tries);
	free(keys); free(pt); free(ct);
}

int main(void)
{
	test_nist_cbc();
	test_block_vectors();
	test_aesni_vs_gcrypt();
	test_encrypt_16_lanes();
	test_lmk_md5();
	test_lmk_x8();
	test_backends_agree();
	test_widths();
	test_threads();
	test_errors();
	return tap_done();
}
