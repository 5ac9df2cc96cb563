// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memscan-pid: does a running process hold a secret? For the tests that
 * look into the FUSE daemon and cryptoloop-reencrypt after a passphrase
 * or key was used (the unit tests scan their own memory: memscan.h).
 *
 *   memscan-pid [--stack] PID NEEDLEFILE
 *
 * The needle is the whole content of NEEDLEFILE (a file, so that the
 * secret is in no argv). Every writable mapping of PID is read through
 * /proc/PID/mem; --stack reads only the main thread's [stack], all of it
 * down to its lowest page, below the stack pointer too. Prints each
 * place it is found ("found at ADDR in MAPPING") and how many.
 * Exits 0 when not found, 1 when found, 2 on an error. As root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static size_t read_needle(const char *path, unsigned char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, size);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

int main(int argc, char **argv)
{
	static unsigned char buf[CHUNK], needle[4096];
	int stack_only = argc > 1 && !strcmp(argv[1], "--stack");
	char path[64], line[512];
	unsigned long found = 0;
	size_t n;
	FILE *maps;
	int mem;

	if (argc != 3 + stack_only) {
		fputs("usage: memscan-pid [--stack] PID NEEDLEFILE\n", stderr);
		return 2;
	}
	n = read_needle(argv[2 + stack_only], needle, sizeof(needle));
	if (!n) {
		fprintf(stderr, "memscan-pid: %s: empty or unreadable\n", argv[2 + stack_only]);
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%s/maps", argv[1 + stack_only]);
	maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%s/mem", argv[1 + stack_only]);
	mem = open(path, O_RDONLY);
	if (!maps || mem < 0) {
		fprintf(stderr, "memscan-pid: %s: %s\n", path, strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi, at;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[1] != 'w' ||
		    strstr(line, "[vvar]"))
			continue;
		if (stack_only && !strstr(line, "[stack]"))
			continue;
		/* overlapping chunks, so that no match is cut in two */
		for (at = lo; at < hi; at += CHUNK - n) {
			size_t len = hi - at < CHUNK ? hi - at : CHUNK, i;
			ssize_t got = pread(mem, buf, len, (off_t)at);

			if (got < (ssize_t)n)
				break;
			for (i = 0; i + n <= (size_t)got; i++)
				if (buf[i] == needle[0] && !memcmp(buf + i, needle, n)) {
					printf("found at %#lx in %s", at + i, line);
					found++;
				}
			if ((size_t)got < len || at + len >= hi)
				break;
		}
	}
	printf("%lu found\n", found);
	explicit_bzero(needle, sizeof(needle));
	explicit_bzero(buf, sizeof(buf));
	return found ? 1 : 0;
}
