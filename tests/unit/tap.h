/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A minimal TAP producer for the unit tests (automake reads exit codes). */
#ifndef TESTS_TAP_H
#define TESTS_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do {						\
	tap_n++;							\
	if (cond) {							\
		printf("ok %d - ", tap_n);				\
	} else {							\
		tap_failed++;						\
		printf("not ok %d - ", tap_n);				\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

#define is_u64(got, want, ...) do {					\
	unsigned long long g_ = (got), w_ = (want);			\
	ok(g_ == w_, __VA_ARGS__);					\
	if (g_ != w_)							\
		printf("#   got %llu, want %llu\n", g_, w_);		\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int same_ = g_ && w_ ? !strcmp(g_, w_) : g_ == w_;		\
	ok(same_, __VA_ARGS__);						\
	if (!same_)							\
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

/* a check that was not run, with the reason: never counted as a pass */
#define skip(...) do {							\
	tap_n++;							\
	printf("ok %d # SKIP ", tap_n);					\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif
