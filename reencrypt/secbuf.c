// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Buffers that hold a chunk of the image (plaintext, ciphertext) or a
 * key: each a mapping of its own, so that MADV_DONTDUMP covers it and
 * nothing else, and so that it is page-aligned for O_DIRECT.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "reencrypt.h"

void *secbuf_alloc(size_t len, enum secbuf_lock lock)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int e;

	if (p == MAP_FAILED)
		return NULL;
	/* out of a core dump also when something made the process dumpable */
	if (madvise(p, len, MADV_DONTDUMP) < 0)
		goto fail;
	/* a large plaintext buffer may exceed RLIMIT_MEMLOCK: kept unlocked
	 * then, as swap is the administrator's to encrypt; a key never */
	if (lock != SECBUF_UNLOCKED && mlock(p, len) < 0 && lock == SECBUF_LOCK)
		goto fail;
	return p;
fail:
	e = errno;
	munmap(p, len);
	errno = e;
	return NULL;
}

void secbuf_free(void *p, size_t len)
{
	if (!p)
		return;
	explicit_bzero(p, len);
	munlock(p, len);
	munmap(p, len);
}
