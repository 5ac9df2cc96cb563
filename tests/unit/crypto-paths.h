/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AES-NI back end's paths, as the crypto unit tests walk them: AES
 * register width (LIBLOOP_CRYPTO_AES_WIDTH) x lmk MD5 lanes
 * (LIBLOOP_CRYPTO_MD5_LANES).  Both only ever lower what the CPU runs,
 * so a path the CPU cannot run would silently be another path: the tests
 * ask path_why_not() first and report such a path as a SKIP.
 * Include after tap.h and crypto-internal.h.
 */
#ifndef TESTS_CRYPTO_PATHS_H
#define TESTS_CRYPTO_PATHS_H

#include <stdio.h>
#include <stdlib.h>

static const unsigned int path_widths[] = { 128, 256 };
static const unsigned int path_lanes[] = { 32, 16, 8, 1 };
#define PATH_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* what the next loop_crypt_new() reads */
static inline void path_set(unsigned int width, unsigned int lanes)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", width);
	setenv("LIBLOOP_CRYPTO_AES_WIDTH", v, 1);
	snprintf(v, sizeof(v), "%u", lanes);
	setenv("LIBLOOP_CRYPTO_MD5_LANES", v, 1);
}

static inline void path_clear(void)
{
	unsetenv("LIBLOOP_CRYPTO_AES_WIDTH");
	unsetenv("LIBLOOP_CRYPTO_MD5_LANES");
}

/* the CPU has AVX-512F and the OS saves zmm state (gcc asks both) */
static inline int cpu_has_avx512f(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_cpu_supports("avx512f");
#else
	return 0;
#endif
}

/* why the 32-lane (AVX-512) lmk hash does not run here */
static inline const char *md5_x32_why_not(void)
{
	if (cpu_has_avx512f())
		return "AVX-512F present, but the 32-lane MD5 failed its self-test";
	return "no AVX-512F on this CPU";
}

/* NULL if this CPU runs the path, else why not */
static inline const char *path_why_not(unsigned int width, unsigned int lanes)
{
	if (!loop_aesni_available())
		return "no AES-NI on this CPU";
	if (width >= 256 && !loop_aesni_vaes_available())
		return "no working VAES on this CPU (absent, failed its self-test, or no ymm state)";
	if (lanes >= 32 && !loop_md5_x32_available())
		return md5_x32_why_not();
	if (lanes >= 8 && !loop_md5_x8_available())
		return "no AVX2 on this CPU (or the OS does not save ymm)";
	return NULL;
}

/* AVX512VL too: the fused 32-lane loops are compiled for it */
static inline int cpu_has_avx512vl(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_cpu_supports("avx512vl");
#else
	return 0;
#endif
}

/* loop_crypt_impl_name() of a context on that path; lmk: multi-key.
 * With VAES the hash runs fused with the AES at 16 lanes (AVX2) and at
 * 32 (AVX-512F and VL). */
static inline void path_impl(char *buf, size_t len, unsigned int width, unsigned int lanes,
			     int lmk)
{
	const char *aes = width >= 256 ? "aesni-8way+vaes, ymm" : "aesni-8way, xmm";

	if (!lmk)
		snprintf(buf, len, "%s", aes);
	else
		snprintf(buf, len, "%s, md5 %u-lane%s%s", aes, lanes,
			 lanes >= 32 ? " avx512" : lanes >= 8 ? " avx2" : "",
			 width >= 256 && (lanes == 16 || (lanes == 32 && cpu_has_avx512vl())) ?
			 " fused" : "");
}

/* No zmm AES code exists (only the lmk hash has a zmm path): whatever
 * the CPU, that row is not run. */
static inline void path_skip_zmm(const char *what)
{
	skip("%s on zmm (AVX-512): no zmm path is built%s", what,
	     cpu_has_avx512f() ? "" : ", and this CPU has no AVX-512F");
}

#endif
