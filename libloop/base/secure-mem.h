/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef LIBLOOP_SECURE_MEM_H
#define LIBLOOP_SECURE_MEM_H

#include <stddef.h>

/*
 * secure-mem.c: page-granular mmap'd, mlock'd, MADV_DONTDUMP
 * memory for anything that holds key bytes, wiped and unmapped on free.
 * NULL on failure (errno set: ENOMEM also when it cannot be locked).
 */
void *loop_secure_alloc(size_t size);
void loop_secure_free(void *p, size_t size);

/*
 * secret-scrub.c: call on the way out of code that handled a
 * passphrase or key, after its callees returned: wipes the stack below
 * the caller (32 KiB) and clears the vector registers (on x86-64; with
 * AVX-512, zmm16-31 too), where copies would otherwise stay until a
 * signal or a lazy binding saves them to memory.
 */
void loop_secret_scrub(void);
/* The registers alone, for the sector encryption's every call. */
void loop_vector_regs_clear(void);
/*
 * The stack alone: zero @bytes (at most 32 KiB) below the caller, where
 * its callees' frames were, spill slots included, which no wipe in the
 * callees can reach (libgcrypt's _gcry_burn_stack).
 */
void loop_stack_burn(size_t bytes);

#endif
