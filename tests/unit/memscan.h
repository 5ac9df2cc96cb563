/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: is a secret still anywhere in this process's memory? */
#ifndef TESTS_MEMSCAN_H
#define TESTS_MEMSCAN_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ASan reserves terabytes of shadow and allocator space, readable page
 * by page: a scan would never end there. The plain build runs it. */
#if defined(__SANITIZE_ADDRESS__)
#define MEMSCAN_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMSCAN_UNDER_ASAN 1
#endif
#endif
#ifndef MEMSCAN_UNDER_ASAN
#define MEMSCAN_UNDER_ASAN 0
#endif

/* 1 when the @n bytes at @needle stand anywhere else in our writable
 * memory (after everything is freed, no passphrase or key may). */
static __attribute__((unused)) int memory_contains(const uint8_t *needle, size_t n)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	int mem = open("/proc/self/mem", O_RDONLY);
	char line[512];
	int found = 0;
	static uint8_t buf[1 << 16];

	while (maps && mem >= 0 && fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' ||
		    perms[1] != 'w' || strstr(line, "[vvar]"))
			continue;
		for (; lo < hi && !found; lo += sizeof(buf) - n) {
			size_t len = hi - lo < sizeof(buf) ? hi - lo : sizeof(buf);
			ssize_t got = pread(mem, buf, len, (off_t)lo);
			size_t i;

			if (got <= 0)
				break;
			for (i = 0; i + n <= (size_t)got; i++) {
				uintptr_t at = lo + i;

				/* the needle itself and our scan buffer don't count */
				if ((at >= (uintptr_t)needle && at < (uintptr_t)needle + n) ||
				    (at >= (uintptr_t)buf && at < (uintptr_t)buf + sizeof(buf)))
					continue;
				if (buf[i] == needle[0] && !memcmp(buf + i, needle, n)) {
					found = 1;
					fprintf(stderr, "# found at %#lx in %s", (unsigned long)at, line);
					break;
				}
			}
			if ((size_t)got < sizeof(buf))
				break;
		}
	}
	if (maps)
		fclose(maps);
	if (mem >= 0)
		close(mem);
	return found;
}

/* what stack_below_read() may read at most */
#define STACK_BELOW_MAX (1 << 16)

/*
 * Read the @depth bytes (at most STACK_BELOW_MAX) of stack below the
 * caller's frame into the end of @below (which has room for @depth),
 * where the frames of the functions it called were (and a signal's
 * saved registers). Read at once through @mem, an open /proc/self/mem,
 * so that no call runs there first to overwrite them. Inlined, so that
 * "the caller's frame" is that of the function it is written in.
 * Returns the index of the first byte read; below[i] was at
 * *@lo + i.
 */
static inline __attribute__((always_inline, unused)) size_t
stack_below_read(int mem, uint8_t *below, size_t depth, uintptr_t *lo)
{
	/* the page of our own frame too: the callers' frames were just below */
	uintptr_t top = ((uintptr_t)__builtin_frame_address(0) + 4095) & ~(uintptr_t)4095;
	size_t got = 0;

	if (depth > STACK_BELOW_MAX)
		depth = STACK_BELOW_MAX;
	/* page by page downwards, to where the stack's mapping ends */
	while (got + 4096 <= depth &&
	       pread(mem, below + depth - got - 4096, 4096, (off_t)(top - got - 4096)) == 4096)
		got += 4096;
	*lo = top - depth;
	return depth - got;
}

/*
 * 1 when the @n bytes at @needle stand in the @depth bytes of stack below
 * the caller's frame (stack_below_read()).
 */
static __attribute__((noinline, unused)) int stack_below_contains(int mem, const uint8_t *needle,
							   size_t n, size_t depth)
{
	static uint8_t below[STACK_BELOW_MAX];
	uintptr_t lo;
	size_t i;
	int found = 0;

	if (depth > sizeof(below))
		depth = sizeof(below);
	for (i = stack_below_read(mem, below, depth, &lo); i + n <= depth && !found; i++) {
		uintptr_t at = lo + i;

		/* a needle on the stack itself does not count */
		if (at + n > (uintptr_t)needle && at < (uintptr_t)needle + n)
			continue;
		found = below[i] == needle[0] && !memcmp(below + i, needle, n);
	}
	explicit_bzero(below, sizeof(below));
	return found;
}

#endif
