// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * secret-scrub.c - leave no copy of a secret in the vector registers or
 * on the stack after the code that handled it.
 *
 * glibc copies and compares with SIMD (ymm0-15; with AVX-512 its EVEX
 * functions use ymm16-31), so a passphrase or key passes through vector
 * registers and stays there until something overwrites them. Whatever
 * saves the registers then writes it to the stack: the kernel at every
 * signal (the XSAVE area of the signal frame) and glibc's lazy-binding
 * trampoline (_dl_runtime_resolve_xsavec). Frames of the functions that
 * handled the secret hold copies as well. Like the kernel's crypto code
 * (vector registers cleared after use) and libgcrypt's _gcry_burn_stack,
 * we clear both before returning to the caller.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "base/private.h"
#include "base/secure-mem.h"

/*
 * Deep enough for the frames below loop_attach() and the key derivation
 * (the deepest, gcrypt's hashing and gpg's spawn, stay under 8 KiB) and
 * an AVX-512 XSAVE area (2.7 KiB) on top of them.
 */
#define SCRUB_STACK_BYTES (32 * 1024)

/* noinline: its frame must lie below the caller's, where the callees' were */
__attribute__((noinline)) void loop_stack_burn(size_t bytes)
{
	unsigned char below[bytes && bytes < SCRUB_STACK_BYTES ? bytes : SCRUB_STACK_BYTES];

	explicit_bzero(below, sizeof(below));
	/* the array must exist and be written, not optimised away */
	__asm__ volatile("" : : "r"(below) : "memory");
}

#if defined(__x86_64__)
/* vzeroall clears ymm0-15 (and zmm0-15's upper halves), never 16-31 */
static __attribute__((noinline, target("avx"))) void clear_avx(void)
{
	__asm__ volatile("vzeroall" : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			 "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
			 "xmm14", "xmm15");
}

#define ZERO_ZMM(n) "vpxord %%zmm" #n ", %%zmm" #n ", %%zmm" #n "\n\t"
static __attribute__((noinline, target("avx512f"))) void clear_avx512_high(void)
{
	__asm__ volatile(ZERO_ZMM(16) ZERO_ZMM(17) ZERO_ZMM(18) ZERO_ZMM(19)
			 ZERO_ZMM(20) ZERO_ZMM(21) ZERO_ZMM(22) ZERO_ZMM(23)
			 ZERO_ZMM(24) ZERO_ZMM(25) ZERO_ZMM(26) ZERO_ZMM(27)
			 ZERO_ZMM(28) ZERO_ZMM(29) ZERO_ZMM(30) ZERO_ZMM(31)
			 : : : "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21",
			 "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",
			 "xmm28", "xmm29", "xmm30", "xmm31");
}

#define ZERO_XMM(n) "pxor %%xmm" #n ", %%xmm" #n "\n\t"
static __attribute__((noinline)) void clear_sse(void)
{
	__asm__ volatile(ZERO_XMM(0) ZERO_XMM(1) ZERO_XMM(2) ZERO_XMM(3)
			 ZERO_XMM(4) ZERO_XMM(5) ZERO_XMM(6) ZERO_XMM(7)
			 ZERO_XMM(8) ZERO_XMM(9) ZERO_XMM(10) ZERO_XMM(11)
			 ZERO_XMM(12) ZERO_XMM(13) ZERO_XMM(14) ZERO_XMM(15)
			 : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			 "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
			 "xmm15");
}
#endif

LIBLOOP_EXPORT void loop_vector_regs_clear(void)
{
#if defined(__x86_64__)
	/* supports() asks whether the kernel saves the state, not only
	 * whether the CPU has it */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		clear_avx512_high();
	if (__builtin_cpu_supports("avx"))
		clear_avx();
	else
		clear_sse();
#endif
}

/* The registers last: the stack's wipe itself moves zeros through them. */
LIBLOOP_EXPORT void loop_secret_scrub(void)
{
	loop_stack_burn(SCRUB_STACK_BYTES);
	loop_vector_regs_clear();
}
