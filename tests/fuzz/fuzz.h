/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the libFuzzer targets: the input as a C string. */
#ifndef TESTS_FUZZ_H
#define TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy (parsers take strings; an inner NUL ends it). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A check that must hold: a crash libFuzzer reports with its input. */
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)

#endif
