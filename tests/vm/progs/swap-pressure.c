// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * swap-pressure: dirty more anonymous memory than the machine has, with a
 * pattern that is different in every 8-byte word of every page, then read
 * all of it back and check it.  Most of it must have gone to swap and come
 * back, so a device that loses, mixes up or corrupts swapped pages shows
 * up as a mismatch.
 *
 *   swap-pressure MIB [SEED]
 *
 * Prints what it did (MiB, seconds per pass, pages swapped out and in
 * according to /proc/vmstat) as "key=value" words on one line, and its
 * progress every PROGRESS_MIB on stderr (a slow device is not a hung one).
 * Exit status: 0 all words matched, 1 mismatches (the first few are
 * printed), 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REPORT_MAX	8
#define PROGRESS_MIB	64

/* splitmix64's finaliser: a page's base word from its index. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * Word w of page p.  Different for every word and page, so a page that
 * comes back at the wrong place, or a sector of one page in another,
 * does not match; and never the same page twice, so nothing along the
 * way (same-page merging, zero-page detection) can make the test easy.
 */
static inline uint64_t word(uint64_t seed, uint64_t p, uint64_t w)
{
	return mix(seed ^ p) + w * 0xd6e8feb86659fd93ULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(const char *pass, uint64_t p, uint64_t npages,
		     long page, double start)
{
	uint64_t every = ((uint64_t)PROGRESS_MIB << 20) / page;

	if (p && p % every == 0)
		fprintf(stderr, "swap-pressure: %s %" PRIu64 "/%" PRIu64 " MiB, %.1f s\n",
			pass, p * page >> 20, npages * page >> 20, now() - start);
}

static long long vmstat(const char *key)
{
	char name[64];
	long long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "re");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (!strcmp(name, key)) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	uint64_t seed = 0x5eed, p, w, npages, words, bad_pages = 0;
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long mib;
	long long out0, in0, out1, in1;
	double t0, t1, t2;
	uint64_t *mem;
	size_t bytes;
	char *end;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: swap-pressure MIB [SEED]\n");
		return 2;
	}
	errno = 0;
	mib = strtoull(argv[1], &end, 10);
	if (errno || *end || !mib || mib > (1ULL << 30)) {
		fprintf(stderr, "swap-pressure: %s: not a size in MiB\n", argv[1]);
		return 2;
	}
	if (argc == 3)
		seed = strtoull(argv[2], NULL, 0);
	bytes = (size_t)mib << 20;
	npages = bytes / page;
	words = page / sizeof(uint64_t);

	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "swap-pressure: mmap %llu MiB: %s\n", mib,
			strerror(errno));
		return 2;
	}
	/* 4 KiB pages: swap them one by one, as real workloads do. */
	madvise(mem, bytes, MADV_NOHUGEPAGE);

	out0 = vmstat("pswpout");
	in0 = vmstat("pswpin");
	t0 = now();
	for (p = 0; p < npages; p++) {
		uint64_t *pg = mem + p * words;

		progress("write", p, npages, page, t0);
		for (w = 0; w < words; w++)
			pg[w] = word(seed, p, w);
	}
	t1 = now();
	/* Same order: the first pages are the ones longest in swap. */
	for (p = 0; p < npages; p++) {
		uint64_t *pg = mem + p * words;

		progress("verify", p, npages, page, t1);
		for (w = 0; w < words; w++) {
			if (pg[w] == word(seed, p, w))
				continue;
			if (bad_pages < REPORT_MAX)
				fprintf(stderr,
					"swap-pressure: page %" PRIu64 " word %" PRIu64
					": %016" PRIx64 ", expected %016" PRIx64 "\n",
					p, w, pg[w], word(seed, p, w));
			bad_pages++;
			break;
		}
	}
	t2 = now();
	out1 = vmstat("pswpout");
	in1 = vmstat("pswpin");

	printf("mib=%llu pages=%" PRIu64 " write_s=%.1f verify_s=%.1f "
	       "pswpout=%lld pswpin=%lld bad_pages=%" PRIu64 "\n",
	       mib, npages, t1 - t0, t2 - t1, out1 - out0, in1 - in0,
	       bad_pages);
	munmap(mem, bytes);
	return bad_pages ? 1 : 0;
}
