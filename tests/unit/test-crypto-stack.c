/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * No AES round key left on the stack by loop_crypt_encrypt() or
 * loop_crypt_decrypt(), on every path of crypto-paths.h's matrix (AES
 * width x lmk lanes), single-key and multi-key (v2 and v3) contexts.
 *
 * Each call runs from a known frame; a sibling frame then reads the
 * 64 KiB below it (memscan.h) and looks there for every 16-byte round
 * key, encryption and decryption (equivalent inverse cipher) schedule,
 * of every key of the context.  The schedules are expanded here by a
 * plain FIPS-197 reference, not by libloop.  A control plants a round
 * key deeper than any of libloop's frames and must find it; a scan
 * before each call must find nothing (else the test itself left a key).
 * Paths the CPU cannot run are reported as not run (SKIP with the
 * reason).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gcrypt.h>

#include "crypto/crypto-internal.h"
#include "tap.h"
#include "crypto-paths.h"
#include "memscan.h"

#define SCAN_DEPTH STACK_BELOW_MAX
/* deeper than libloop's deepest chain of frames (about 20 KiB) */
#define CONTROL_DEPTH (28 * 1024)
/*
 * The sizes of the calls, each way, on each context: what ran last, and
 * so what is left where, depends on it.  93: fused batches (two of 32
 * with 32 lanes), then a 16, an 8, a 4 and single sectors; 64 and 32
 * end on a fused run; the others run no fused loop.
 */
static const size_t sizes[] = { 93, 64, 32, 16, 8, 1 };
#define SECTORS 93

/* ---- reference key schedules ---------------------------------------- */
static uint8_t sbox[256];

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
	uint8_t p = 0;

	while (b) {
		if (b & 1)
			p ^= a;
		a = (uint8_t)((a << 1) ^ (a & 0x80 ? 0x1b : 0));
		b >>= 1;
	}
	return p;
}

/* FIPS-197 5.1.1: the multiplicative inverse, then the affine map */
static void sbox_init(void)
{
	unsigned int x, i;

	for (x = 0; x < 256; x++) {
		uint8_t inv = 0, s;

		for (i = 1; i < 256 && x; i++)
			if (gf_mul((uint8_t)x, (uint8_t)i) == 1)
				inv = (uint8_t)i;
		s = inv;
		for (i = 1; i < 5; i++)
			s ^= (uint8_t)((inv << i) | (inv >> (8 - i)));
		sbox[x] = s ^ 0x63;
	}
}

struct sched {
	uint8_t enc[15][16];
	uint8_t dec[15][16];	/* equivalent inverse cipher, round 0 first */
	unsigned int nr;
};

/* Written straight into @s (on the heap): only 4-byte words pass
 * through this frame, never a whole round key. */
static void expand(struct sched *s, const uint8_t *key, unsigned int klen)
{
	uint8_t *w = &s->enc[0][0], t[4], rcon = 1, u;
	unsigned int nk = klen / 4, i, r, c, j;

	s->nr = nk + 6;
	memcpy(w, key, klen);
	for (i = nk; i < 4 * (s->nr + 1); i++) {
		memcpy(t, w + 4 * (i - 1), 4);
		if (i % nk == 0) {
			u = t[0];
			t[0] = (uint8_t)(sbox[t[1]] ^ rcon);
			t[1] = sbox[t[2]];
			t[2] = sbox[t[3]];
			t[3] = sbox[u];
			rcon = gf_mul(rcon, 2);
		} else if (nk > 6 && i % nk == 4) {
			for (j = 0; j < 4; j++)
				t[j] = sbox[t[j]];
		}
		for (j = 0; j < 4; j++)
			w[4 * i + j] = w[4 * (i - nk) + j] ^ t[j];
	}
	memcpy(s->dec[0], s->enc[s->nr], 16);
	memcpy(s->dec[s->nr], s->enc[0], 16);
	for (r = 1; r < s->nr; r++)
		for (c = 0; c < 4; c++) {
			const uint8_t *a = s->enc[s->nr - r] + 4 * c;
			uint8_t *o = s->dec[r] + 4 * c;

			for (j = 0; j < 4; j++)
				o[j] = gf_mul(a[j], 14) ^ gf_mul(a[(j + 1) & 3], 11) ^
				       gf_mul(a[(j + 2) & 3], 13) ^ gf_mul(a[(j + 3) & 3], 9);
		}
	explicit_bzero(t, sizeof(t));
}

/* ---- what the scan looks for ----------------------------------------- */
struct needle {
	uint8_t b[16];
	unsigned short key, round, nr;
	char kind;		/* 'e' encryption, 'd' decryption round key, 'r' raw */
};

struct needles {
	struct needle *n;
	size_t count;
	uint8_t first2[65536 / 8];	/* their first two bytes, as a bitmap */
};

static int needle_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static void needle_add(struct needles *nd, const uint8_t *b, unsigned int key, unsigned int round,
		       unsigned int nr, char kind)
{
	struct needle *p = &nd->n[nd->count++];

	memcpy(p->b, b, 16);
	p->key = (unsigned short)key;
	p->round = (unsigned short)round;
	p->nr = (unsigned short)nr;
	p->kind = kind;
}

static void needles_sort(struct needles *nd)
{
	size_t i;

	qsort(nd->n, nd->count, sizeof(nd->n[0]), needle_cmp);
	memset(nd->first2, 0, sizeof(nd->first2));
	for (i = 0; i < nd->count; i++) {
		unsigned int f = nd->n[i].b[0] | nd->n[i].b[1] << 8;

		nd->first2[f / 8] |= (uint8_t)(1u << (f % 8));
	}
}

/* ---- the frames ------------------------------------------------------ */
/* what was found: not the bytes, which would then be on the stack too */
struct hit {
	int found;
	size_t index;			/* in the table, which is refilled per context */
	unsigned short key, round, nr;
	char kind;
	size_t depth;			/* bytes below the scanning frame's page */
};

/* the first needle in the SCAN_DEPTH bytes below the caller's frame */
static __attribute__((noinline)) struct hit scan(int mem, const struct needles *nd)
{
	static uint8_t below[SCAN_DEPTH];
	struct hit h;
	const struct needle *n;
	uintptr_t lo;
	size_t i;

	memset(&h, 0, sizeof(h));

	for (i = stack_below_read(mem, below, sizeof(below), &lo); i + 16 <= sizeof(below); i++) {
		unsigned int f = below[i] | below[i + 1] << 8;

		if (!(nd->first2[f / 8] & (1u << (f % 8))))
			continue;
		n = bsearch(below + i, nd->n, nd->count, sizeof(nd->n[0]), needle_cmp);
		if (n) {
			h.found = 1;
			h.index = (size_t)(n - nd->n);
			h.key = n->key;
			h.round = n->round;
			h.nr = n->nr;
			h.kind = n->kind;
			h.depth = sizeof(below) - i;
			break;
		}
	}
	explicit_bzero(below, sizeof(below));
	return h;
}

/* what the test's own calls (random numbers, schedules) left there */
static __attribute__((noinline)) void wipe_below(void)
{
	uint8_t b[SCAN_DEPTH];

	explicit_bzero(b, sizeof(b));
	__asm__ volatile("" : : "r"(b) : "memory");
}

static __attribute__((noinline)) void plant(const uint8_t *rk)
{
	uint8_t frame[CONTROL_DEPTH];

	memcpy(frame, rk, 16);
	__asm__ volatile("" : : "r"(frame) : "memory");
}

static __attribute__((noinline)) int op(struct loop_crypt *x, int enc, uint64_t sector,
					uint8_t *buf, size_t n)
{
	return enc ? loop_crypt_encrypt(x, sector, buf, buf, n) :
		     loop_crypt_decrypt(x, sector, buf, buf, n);
}

/* op (or, control, plant) and scan are siblings: called from this frame */
static __attribute__((noinline)) struct hit run_then_scan(int mem, const struct needles *nd,
							  struct loop_crypt *x, int enc,
							  uint64_t sector, uint8_t *buf, size_t n,
							  const uint8_t *control, struct hit *before)
{
	wipe_below();
	*before = scan(mem, nd);
	if (control)
		plant(control);
	else
		op(x, enc, sector, buf, n);
	return scan(mem, nd);
}

/* ---- the matrix ------------------------------------------------------ */
static const struct ctx_kind {
	const char *spec;
	unsigned int count;
} kinds[] = {
	{ "AES256", 64 }, { "AES128", 65 }, { "AES192", 64 },
	{ "aes", 1 },		/* cryptoloop: AES-256, 32-bit IV */
	{ "AES128", 1 },
};

struct row_result {
	int made, bad_name, before, found[2], runs;
	struct hit first[2];
};

static void fill_random(void *p, size_t n)
{
	gcry_create_nonce(p, n);
}

/* the needles of one context: every round key of every AES key, and
 * v3's 65th key (an MD5 seed, no AES key) as it was given */
static void needles_of(struct needles *nd, struct sched *s, const uint8_t *raw,
		       unsigned int count, unsigned int klen)
{
	unsigned int k, r;

	nd->count = 0;
	for (k = 0; k < count; k++) {
		if (k == 64) {
			needle_add(nd, raw + 64 * klen, k, 0, 0, 'r');
			continue;
		}
		expand(&s[k], raw + k * klen, klen);
		for (r = 0; r <= s[k].nr; r++) {
			needle_add(nd, s[k].enc[r], k, r, s[k].nr, 'e');
			if (r && r < s[k].nr)
				needle_add(nd, s[k].dec[r], k, r, s[k].nr, 'd');
		}
	}
	needles_sort(nd);
}

static void run_kind(int mem, const struct ctx_kind *kd, unsigned int width, unsigned int lanes,
		     struct needles *nd, struct sched *s, uint8_t *raw, uint8_t *buf,
		     struct row_result *res)
{
	struct loop_cipher_spec spec;
	struct loop_key *key = NULL;
	struct loop_crypt *x = NULL;
	char want[64];
	int run, enc, r;

	r = loop_cipher_spec_parse(&spec, kd->spec, 0, 0);
	if (r)
		return;
	fill_random(raw, (size_t)kd->count * spec.key_bytes);
	needles_of(nd, s, raw, kd->count, spec.key_bytes);
	r = loop_key_new_raw(&key, kd->count, spec.key_bytes, raw);
	if (!r)
		r = loop_crypt_new(&x, &spec, key, 0);
	loop_key_free(key);
	if (r)
		return;
	res->made++;
	path_impl(want, sizeof(want), width, lanes, kd->count > 1);
	res->bad_name += !!strcmp(loop_crypt_impl_name(x), want);
	for (run = 0; run < (int)PATH_COUNT(sizes); run++) {
		/* the run starts at another key each time */
		uint64_t sector = 17 * (uint64_t)run + 3;

		fill_random(buf, SECTORS * 512);
		for (enc = 1; enc >= 0; enc--) {
			struct hit before, h;

			h = run_then_scan(mem, nd, x, enc, sector, buf, sizes[run], NULL, &before);
			res->before += before.found;
			if (h.found && !res->found[enc]++)
				res->first[enc] = h;
		}
		res->runs++;
	}
	loop_crypt_free(x);
}

static void report(const char *label, const char *what, const struct row_result *res, int enc)
{
	const struct hit *h = &res->first[enc];

	ok(!res->found[enc], "%s: no round key on the stack after %s (%d runs)", label, what,
	   res->runs);
	if (!res->found[enc])
		return;
	printf("# in %d of %d runs; first: key %u, ", res->found[enc], res->runs, h->key);
	if (h->kind == 'r')
		printf("its first 16 bytes");
	else if (h->kind == 'd')
		printf("decryption round key %u", h->round);
	else if (h->round == 0 || h->round == h->nr)
		printf("encryption round key %u (decryption round key %u)", h->round,
		       h->nr - h->round);
	else
		printf("encryption round key %u", h->round);
	printf(", %zu bytes below\n", h->depth);
}

static void test_row(int mem, unsigned int width, unsigned int lanes, struct needles *nd,
		     struct sched *s, uint8_t *raw, uint8_t *buf)
{
	struct row_result res;
	char label[64];
	size_t k;

	memset(&res, 0, sizeof(res));
	if (width)
		snprintf(label, sizeof(label), "AES width %u, %u lanes", width, lanes);
	else
		snprintf(label, sizeof(label), "libgcrypt back end");
	for (k = 0; k < PATH_COUNT(kinds); k++)
		run_kind(mem, &kinds[k], width, lanes, nd, s, raw, buf, &res);
	ok(res.made == (int)PATH_COUNT(kinds) && (!width || !res.bad_name),
	   "%s: %d contexts (1, 64 and 65 keys) made, running that path", label, res.made);
	ok(!res.before, "%s: nothing found before the calls (%d times)", label, res.before);
	report(label, "encrypt", &res, 1);
	report(label, "decrypt", &res, 0);
}

/* the scan finds a round key that a frame deeper than libloop's left */
static void test_control(int mem, struct needles *nd, struct sched *s, uint8_t *raw)
{
	struct hit before, h;

	fill_random(raw, 64 * 32);
	needles_of(nd, s, raw, 64, 32);
	h = run_then_scan(mem, nd, NULL, 0, 0, NULL, 0, s[31].dec[14], &before);
	ok(!before.found && h.found && !memcmp(nd->n[h.index].b, s[31].dec[14], 16) &&
	   h.depth >= CONTROL_DEPTH - 64,
	   "control: a round key planted %d KiB below the caller is found (%zu bytes below)",
	   CONTROL_DEPTH / 1024, h.depth);
}

int main(void)
{
	struct needles *nd = calloc(1, sizeof(*nd));
	struct sched *s = calloc(64, sizeof(*s));
	uint8_t *raw = malloc(65 * 32), *buf = malloc(SECTORS * 512);
	int mem = open("/proc/self/mem", O_RDONLY);
	unsigned int w, l;

	if (!nd || !s || !raw || !buf || mem < 0) {
		printf("Bail out! no memory, or /proc/self/mem cannot be read\n");
		return 1;
	}
	nd->n = calloc(65 * 29, sizeof(*nd->n));
	if (!nd->n) {
		printf("Bail out! no memory\n");
		return 1;
	}
	loop_gcrypt_init();
	sbox_init();
	path_clear();
	unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
	printf("# this CPU: AES-NI %s, AES width at most %u, lmk lanes at most %u\n",
	       loop_aesni_available() ? "yes" : "no", loop_aes_width(), loop_md5_lanes());
	test_control(mem, nd, s, raw);
	/* the same matrix as the other crypto tests: a new path is scanned too */
	for (w = 0; w < PATH_COUNT(path_widths); w++)
		for (l = 0; l < PATH_COUNT(path_lanes); l++) {
			const char *why = path_why_not(path_widths[w], path_lanes[l]);

			if (why) {
				skip("AES width %u, %u lanes: stack after encrypt and decrypt: %s",
				     path_widths[w], path_lanes[l], why);
				continue;
			}
			path_set(path_widths[w], path_lanes[l]);
			test_row(mem, path_widths[w], path_lanes[l], nd, s, raw, buf);
			path_clear();
		}
	/* and the libgcrypt back end (its own stack burning, and ours) */
	setenv("LIBLOOP_CRYPTO_NO_AESNI", "1", 1);
	test_row(mem, 0, 1, nd, s, raw, buf);
	unsetenv("LIBLOOP_CRYPTO_NO_AESNI");
	explicit_bzero(raw, 65 * 32);
	explicit_bzero(s, 64 * sizeof(*s));
	explicit_bzero(nd->n, 65 * 29 * sizeof(*nd->n));
	free(nd->n);
	free(nd);
	free(s);
	free(raw);
	free(buf);
	close(mem);
	return tap_done();
}
