/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Size arguments for the command-line tools (size.c). Linked into them
 * from libloopcli.la: not part of libloop's ABI.
 */
#ifndef LIBLOOP_SIZE_H
#define LIBLOOP_SIZE_H

#include <stdint.h>

/*
 * Parse a size the way util-linux does: an integer (decimal, 0x hex or
 * 0 octal) with an optional fraction and a suffix K, M, G, T, P, E, Z, Y
 * (powers of 1024, also as KiB...) or KB, MB... (powers of 1000).
 * Returns 0, -EINVAL for malformed input or -ERANGE on overflow.
 */
int loop_parse_size(const char *str, uint64_t *res);

#endif
