/*
 * cpu-features.c - which x86 instruction sets the hand-written paths may
 * use here.
 *
 * cpuid alone is not enough for the vector paths: the OS must also save
 * the register state they use on a context switch (XCR0), or another
 * task's switch corrupts them.  Asked once: cpuid traps to the hypervisor
 * in a VM, and every context creation asks.  The self-tests that guard
 * against emulators which advertise an instruction they get wrong stay
 * with each path (aesni-cbc.c, md5-x32.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "crypto/crypto-internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* XCR0: SSE and AVX state; then opmask and both halves of zmm */
#define XCR0_YMM	0x06u
#define XCR0_ZMM	0xe6u

static unsigned int probe(void)
{
	unsigned int a, b, c, d, f = 0;
	unsigned long long xcr0 = 0;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if ((c & bit_AES) && (c & bit_SSSE3))
		f |= LOOP_CPU_AESNI;
	if (c & bit_OSXSAVE) {
		__asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
		xcr0 = ((unsigned long long)d << 32) | a;
	}
	if ((xcr0 & XCR0_YMM) != XCR0_YMM || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return f;
	if (b & bit_AVX2) {
		f |= LOOP_CPU_AVX2;
		if ((f & LOOP_CPU_AESNI) && (c & bit_VAES))
			f |= LOOP_CPU_VAES;
	}
	if ((xcr0 & XCR0_ZMM) == XCR0_ZMM && (b & bit_AVX512F)) {
		f |= LOOP_CPU_AVX512F;
		if (b & bit_AVX512VL)
			f |= LOOP_CPU_AVX512VL;
	}
	return f;
}

/* the features with bit 31 set once known (every thread computes the same) */
static unsigned int known;

int loop_cpu_has(unsigned int features)
{
	unsigned int f = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (!f) {
		f = probe() | 0x80000000u;
		__atomic_store_n(&known, f, __ATOMIC_RELAXED);
	}
	return (f & features) == features;
}

#else

int loop_cpu_has(unsigned int features)
{
	return !features;
}

#endif
