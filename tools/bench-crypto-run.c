/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-crypto-run - single-core throughput of libloop's sector encryption.
 *
 *   bench-crypto-run [-s SECONDS] [-c] [-e|-d] FORMAT...
 *   bench-crypto-run [-s SECONDS] [-c] [-m] -p KEYBITS
 *
 * FORMAT is a cipher name (as for losetup -e) optionally followed by
 * ":64" or ":65" for loop-AES multi-key.  Each run encrypts (or decrypts)
 * a 1 MiB buffer of 512-byte sectors in place, over and over, for the
 * given time, and prints "FORMAT enc|dec MB/s IMPL" (MB = 10^6 bytes,
 * like openssl speed's "k" = 1000 bytes; IMPL, loop_crypt_impl_name(),
 * is the rest of the line and has spaces).  Keys are random.  The paths
 * follow LIBLOOP_CRYPTO_AES_WIDTH and LIBLOOP_CRYPTO_MD5_LANES, as a
 * context does; tools/bench-crypto sets them to time the narrower
 * paths next to the best one.  With -c the
 * time counted is this thread's CPU time, not the wall clock (as openssl
 * speed without -elapsed): on a machine shared with other work, time
 * spent waiting for the CPU is then not charged to the cipher.
 *
 * -p times the two halves of loop-AES multi-key (lmk) on their own, over
 * the same 1 MiB of sectors with 64 AES keys of KEYBITS: the lmk IVs
 * alone ("pieces md5", as many lanes as the CPU runs), the CBC alone with
 * the IVs given ("pieces aes-enc") and with a zero IV as lmk decryption
 * does it ("pieces aes-dec"), each line "pieces WHAT MB/s PATH".  -m
 * times the MD5 alone.  Throughput is counted in sector bytes, so it
 * compares with the whole path's figure: tools/bench-crypto derives the
 * bounds a combined path can reach from them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libloop-crypto.h"
#include "crypto/crypto-internal.h"

#define RUN_BYTES (1 << 20)

static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench(const char *fmt, int decrypt, double seconds)
{
	struct loop_cipher_spec spec;
	struct loop_key *key = NULL;
	struct loop_crypt *x = NULL;
	char name[64], *colon;
	unsigned int nkeys = 1;
	static uint8_t keybytes[65 * 64];
	uint8_t *buf;
	double t0, t;
	unsigned long long bytes = 0, sector = 0;
	int r;

	snprintf(name, sizeof(name), "%s", fmt);
	colon = strchr(name, ':');
	if (colon) {
		*colon = '\0';
		nkeys = (unsigned int)atoi(colon + 1);
	}
	r = loop_cipher_spec_parse(&spec, name, 0, 0);
	if (r) {
		fprintf(stderr, "bench-crypto-run: %s: bad cipher (%d)\n", name, r);
		return 1;
	}
	FILE *u = fopen("/dev/urandom", "r");
	if (!u || fread(keybytes, 1, sizeof(keybytes), u) != sizeof(keybytes)) {
		fprintf(stderr, "bench-crypto-run: /dev/urandom\n");
		return 1;
	}
	fclose(u);
	buf = aligned_alloc(64, RUN_BYTES);
	memset(buf, 0x5a, RUN_BYTES);
	r = loop_key_new_raw(&key, nkeys, spec.key_bytes, keybytes);
	if (!r)
		r = loop_crypt_new(&x, &spec, key, 0);
	loop_key_free(key);
	if (r) {
		fprintf(stderr, "bench-crypto-run: %s: %d\n", fmt, r);
		return 1;
	}
	/* warm up caches and clocks */
	loop_crypt_encrypt(x, 0, buf, buf, RUN_BYTES / LOOP_SECTOR_SIZE);
	t0 = now();
	do {
		if (decrypt)
			loop_crypt_decrypt(x, sector, buf, buf, RUN_BYTES / LOOP_SECTOR_SIZE);
		else
			loop_crypt_encrypt(x, sector, buf, buf, RUN_BYTES / LOOP_SECTOR_SIZE);
		sector += RUN_BYTES / LOOP_SECTOR_SIZE;
		bytes += RUN_BYTES;
		t = now() - t0;
	} while (t < seconds);
	printf("%s %s %.1f %s\n", fmt, decrypt ? "dec" : "enc", (double)bytes / t / 1e6,
	       loop_crypt_impl_name(x));
	loop_crypt_free(x);
	free(buf);
	return 0;
}

#define RUN_SECTORS (RUN_BYTES / LOOP_SECTOR_SIZE)

enum piece { PIECE_MD5, PIECE_AES_ENC, PIECE_AES_DEC };

/* one pass of a piece over the buffer, 32 sectors at a time: the widest
 * lmk hash (md5-x32.c) takes them at once, the others in 16s or 8s as
 * loop_crypt does */
static void piece_pass(enum piece what, unsigned int lanes, int vaes,
		       const struct loop_aesni_key *keys, const uint32_t seed[4], uint8_t *buf,
		       uint64_t first)
{
	static const uint8_t zero[16] __attribute__((aligned(16)));
	const struct loop_aesni_key *k[32];
	uint8_t iv[32][16] __attribute__((aligned(16)));
	const uint8_t *p[32];
	uint8_t *d[32];
	uint64_t sec[32];
	size_t i, l;

	memset(iv, 0x3c, sizeof(iv));
	for (i = 0; i < RUN_SECTORS; i += 32) {
		for (l = 0; l < 32; l++) {
			sec[l] = first + i + l;
			k[l] = &keys[sec[l] & 63];
			d[l] = buf + (i + l) * LOOP_SECTOR_SIZE;
			p[l] = d[l];
		}
		switch (what) {
		case PIECE_MD5:
			if (lanes >= 32)
				loop_lmk_iv_x32(iv, seed, p, sec);
			else if (lanes >= 16)
				for (l = 0; l < 32; l += 16)
					loop_lmk_iv_x16(iv + l, seed, p + l, sec + l);
			else if (lanes >= 8)
				for (l = 0; l < 32; l += 8)
					loop_lmk_iv_x8(iv + l, seed, p + l, sec + l);
			else
				for (l = 0; l < 32; l++)
					loop_lmk_iv(iv[l], seed, p[l], sec[l]);
			break;
		case PIECE_AES_ENC:
			for (l = 0; l < 32; l += vaes ? 16 : 8)
				loop_aesni_cbc_encrypt_sectors(k + l, (const uint8_t (*)[16])iv + l,
							       d + l, p + l, vaes ? 16 : 8);
			break;
		case PIECE_AES_DEC:
			for (l = 0; l < 32; l++)
				if (vaes)
					loop_aesni_cbc_decrypt_sector_vaes(k[l], zero, d[l], p[l]);
				else
					loop_aesni_cbc_decrypt_sector_x8(k[l], zero, d[l], p[l]);
			break;
		}
	}
}

static int pieces(unsigned int bits, double seconds, int md5_only)
{
	static const char *const name[] = { "md5", "aes-enc", "aes-dec" };
	struct loop_aesni_key *keys;
	uint8_t raw[32];
	uint32_t seed[4];
	uint8_t *buf;
	int w, i;
	/* once: they ask cpuid, which traps to the hypervisor in a VM */
	const unsigned int lanes = loop_md5_lanes();
	const int vaes = loop_aes_width() >= 256;
	char md5_path[32];

	if ((bits != 128 && bits != 192 && bits != 256) || !loop_aesni_available()) {
		fprintf(stderr, "bench-crypto-run: -p needs AES-NI and 128, 192 or 256\n");
		return 1;
	}
	keys = aligned_alloc(64, 64 * sizeof(*keys));
	buf = aligned_alloc(64, RUN_BYTES);
	if (!keys || !buf)
		return 1;
	memset(buf, 0x5a, RUN_BYTES);
	for (i = 0; i < 64; i++) {
		memset(raw, 0xa0 + i, sizeof(raw));
		loop_aesni_expand_key(&keys[i], raw, bits / 8);
	}
	loop_md5_init_state(seed);
	/* named as loop_crypt_impl_name() names the lmk part */
	snprintf(md5_path, sizeof(md5_path), "md5 %u-lane%s", lanes,
		 lanes >= 32 ? " avx512" : lanes >= 8 ? " avx2" : "");
	for (w = PIECE_MD5; w <= (md5_only ? PIECE_MD5 : PIECE_AES_DEC); w++) {
		unsigned long long bytes = 0, first = 0;
		double t0, t;

		piece_pass((enum piece)w, lanes, vaes, keys, seed, buf, 0);
		t0 = now();
		do {
			piece_pass((enum piece)w, lanes, vaes, keys, seed, buf, first);
			first += RUN_SECTORS;
			bytes += RUN_BYTES;
			t = now() - t0;
		} while (t < seconds);
		printf("pieces %s %.1f %s\n", name[w], (double)bytes / t / 1e6,
		       w == PIECE_MD5 ? md5_path : vaes ? "aesni-8way+vaes, ymm" : "aesni-8way, xmm");
	}
	free(keys);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 2.0;
	int c, decrypt = 0, md5_only = 0, r = 0;
	unsigned int piece_bits = 0;

	while ((c = getopt(argc, argv, "s:cedmp:")) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'p': piece_bits = (unsigned int)atoi(optarg); break;
		case 'c': bench_clock = CLOCK_THREAD_CPUTIME_ID; break;
		case 'm': md5_only = 1; break;
		case 'e': decrypt = 0; break;
		case 'd': decrypt = 1; break;
		default:
			fprintf(stderr, "usage: bench-crypto-run [-s SECONDS] [-c] [-e|-d] FORMAT...\n"
					"       bench-crypto-run [-s SECONDS] [-c] [-m] -p KEYBITS\n");
			return 2;
		}
	}
	if (piece_bits)
		return pieces(piece_bits, seconds, md5_only);
	for (; optind < argc; optind++)
		r |= bench(argv[optind], decrypt, seconds);
	return r;
}
