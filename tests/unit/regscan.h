/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: is a secret still in a vector register? glibc's lazy
 * binding trampoline and the kernel's signal frames save every vector
 * register on the stack, so a secret left in one ends up in memory.
 * x86-64 only: elsewhere the check says it could not look.
 */
#ifndef TESTS_REGSCAN_H
#define TESTS_REGSCAN_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct vec_regs {
	int have;		/* 0: nothing read (not x86-64, or no AVX) */
	int have_avx512;	/* zmm0-31 read in full, else ymm0-15 */
	int count;		/* registers read */
	int width;		/* bytes each */
	uint8_t r[32][64];
};

#if defined(__x86_64__)
#define YMM_STORE(n) "vmovdqu %%ymm" #n ", " #n "*64(%0)\n\t"
#define ZMM_STORE(n) "vmovdqu64 %%zmm" #n ", " #n "*64(%0)\n\t"

__attribute__((noinline, target("avx"))) static void regs_read_ymm(uint8_t (*r)[64])
{
	__asm__ volatile(YMM_STORE(0) YMM_STORE(1) YMM_STORE(2) YMM_STORE(3)
			 YMM_STORE(4) YMM_STORE(5) YMM_STORE(6) YMM_STORE(7)
			 YMM_STORE(8) YMM_STORE(9) YMM_STORE(10) YMM_STORE(11)
			 YMM_STORE(12) YMM_STORE(13) YMM_STORE(14) YMM_STORE(15)
			 : : "r"(r) : "memory");
}

__attribute__((noinline, target("avx512f"))) static void regs_read_zmm(uint8_t (*r)[64])
{
	__asm__ volatile(ZMM_STORE(0) ZMM_STORE(1) ZMM_STORE(2) ZMM_STORE(3)
			 ZMM_STORE(4) ZMM_STORE(5) ZMM_STORE(6) ZMM_STORE(7)
			 ZMM_STORE(8) ZMM_STORE(9) ZMM_STORE(10) ZMM_STORE(11)
			 ZMM_STORE(12) ZMM_STORE(13) ZMM_STORE(14) ZMM_STORE(15)
			 ZMM_STORE(16) ZMM_STORE(17) ZMM_STORE(18) ZMM_STORE(19)
			 ZMM_STORE(20) ZMM_STORE(21) ZMM_STORE(22) ZMM_STORE(23)
			 ZMM_STORE(24) ZMM_STORE(25) ZMM_STORE(26) ZMM_STORE(27)
			 ZMM_STORE(28) ZMM_STORE(29) ZMM_STORE(30) ZMM_STORE(31)
			 : : "r"(r) : "memory");
}
#endif

/*
 * Read the vector registers as they are now: call it first thing after
 * the code under test returns (this function moves no data through
 * them). __builtin_cpu_supports() checks that the kernel saves the
 * state too, not only that the CPU has it.
 */
__attribute__((noinline)) static void regs_read(struct vec_regs *v)
{
	v->have = v->have_avx512 = v->count = v->width = 0;
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx512f")) {
		regs_read_zmm(v->r);
		v->have = v->have_avx512 = 1;
		v->count = 32;
		v->width = 64;
	} else if (__builtin_cpu_supports("avx")) {
		regs_read_ymm(v->r);
		v->have = 1;
		v->count = 16;
		v->width = 32;
	}
#endif
}

/*
 * The first register holding @window consecutive bytes of @secret (a
 * window of zeros does not count), or -1. Plain byte loops, so that the
 * comparison itself puts nothing in a vector register worth finding.
 */
static int regs_find(const struct vec_regs *v, const uint8_t *secret, size_t n, size_t window)
{
	size_t s, i, k;
	int reg;

	for (s = 0; s + window <= n; s++) {
		for (k = 0; k < window && !secret[s + k]; k++)
			;
		if (k == window)
			continue;
		for (reg = 0; reg < v->count; reg++)
			for (i = 0; i + window <= (size_t)v->width; i++) {
				for (k = 0; k < window && v->r[reg][i + k] == secret[s + k]; k++)
					;
				if (k == window)
					return reg;
			}
	}
	return -1;
}

static void regs_wipe(struct vec_regs *v)
{
	explicit_bzero(v->r, sizeof(v->r));
}

#endif
