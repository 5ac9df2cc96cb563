/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef LIBLOOP_SECURE_MEM_H
#define LIBLOOP_SECURE_MEM_H

#include <stddef.h>

/*
 * crypto/secure-mem.c: page-granular mmap'd, mlock'd, MADV_DONTDUMP
 * memory for anything that holds key bytes, wiped and unmapped on free.
 * NULL on failure (errno set: ENOMEM also when it cannot be locked).
 */
void *loop_secure_alloc(size_t size);
void loop_secure_free(void *p, size_t size);

#endif
