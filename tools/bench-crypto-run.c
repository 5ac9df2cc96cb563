/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-crypto-run - single-core throughput of libloop's sector encryption.
 *
 *   bench-crypto-run [-s SECONDS] [-c] [-e|-d] FORMAT...
 *
 * FORMAT is a cipher name (as for losetup -e) optionally followed by
 * ":64" or ":65" for loop-AES multi-key.  Each run encrypts (or decrypts)
 * a 1 MiB buffer of 512-byte sectors in place, over and over, for the
 * given time, and prints "FORMAT enc|dec IMPL MB/s" (MB = 10^6 bytes,
 * like openssl speed's "k" = 1000 bytes).  Keys are random.  With -c the
 * time counted is this thread's CPU time, not the wall clock (as openssl
 * speed without -elapsed): on a machine shared with other work, time
 * spent waiting for the CPU is then not charged to the cipher.
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
	printf("%s %s %s %.1f\n", fmt, decrypt ? "dec" : "enc", loop_crypt_impl_name(x),
	       (double)bytes / t / 1e6);
	loop_crypt_free(x);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 2.0;
	int c, decrypt = 0, r = 0;

	while ((c = getopt(argc, argv, "s:ced")) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'c': bench_clock = CLOCK_THREAD_CPUTIME_ID; break;
		case 'e': decrypt = 0; break;
		case 'd': decrypt = 1; break;
		default:
			fprintf(stderr, "usage: bench-crypto-run [-s SECONDS] [-c] [-e|-d] FORMAT...\n");
			return 2;
		}
	}
	for (; optind < argc; optind++)
		r |= bench(argv[optind], decrypt, seconds);
	return r;
}
