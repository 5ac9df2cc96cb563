// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * swap-at-open: an LD_PRELOAD shim that, at the first open() of the path
 * SWAP_AT_OPEN, first renames SWAP_WITH over it: another file put in
 * place between a program's check of a name and its open, on cue.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int done;

static void maybe_swap(const char *path)
{
	const char *at = getenv("SWAP_AT_OPEN"), *with = getenv("SWAP_WITH");

	if (done || !at || !with || strcmp(path, at))
		return;
	done = 1;
	if (rename(with, at) < 0)
		perror("swap-at-open");
}

#define WRAP(name)							\
int name(const char *path, int flags, ...)				\
{									\
	int (*real)(const char *, int, ...) =				\
		(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
	mode_t mode = 0;						\
	va_list ap;							\
									\
	va_start(ap, flags);						\
	if (flags & (O_CREAT | __O_TMPFILE))				\
		mode = va_arg(ap, mode_t);				\
	va_end(ap);							\
	maybe_swap(path);						\
	return real(path, flags, mode);					\
}

WRAP(open)
WRAP(open64)

int __open_2(const char *path, int flags)
{
	int (*real)(const char *, int) =
		(int (*)(const char *, int))dlsym(RTLD_NEXT, "__open_2");

	maybe_swap(path);
	return real(path, flags);
}

int __open64_2(const char *path, int flags)
{
	int (*real)(const char *, int) =
		(int (*)(const char *, int))dlsym(RTLD_NEXT, "__open64_2");

	maybe_swap(path);
	return real(path, flags);
}
