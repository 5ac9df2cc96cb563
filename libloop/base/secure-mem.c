/*
 * secure-mem.c - locked memory for secrets.
 *
 * Our own allocator rather than gcry_malloc_secure(): libgcrypt's pool is
 * process-global, may already be configured (or disabled) by the
 * application, and prints "using insecure memory" warnings, while libloop
 * must never print.  Page-sized mappings are cheap at our scale (a few
 * objects per device).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "crypto/crypto-internal.h"

static size_t round_to_pages(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (size + page - 1) / page * page;
}

LIBLOOP_EXPORT void *loop_secure_alloc(size_t size)
{
	size_t len;
	void *p;

	if (!size) {
		errno = EINVAL;
		return NULL;
	}
	len = round_to_pages(size);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* A secret that can be swapped out is not a secret; refuse rather
	 * than silently degrade. */
	if (mlock(p, len) < 0) {
		int e = errno;

		munmap(p, len);
		errno = (e == EPERM || e == EAGAIN) ? ENOMEM : e;
		return NULL;
	}
	/* Keep secrets out of core dumps.  (Not MADV_DONTFORK: a daemon that
	 * forks after setting up, like fuse_daemonize(), must keep its keys.
	 * mlock is not inherited across fork, so set up after forking.) */
	(void)madvise(p, len, MADV_DONTDUMP);
	return p;
}

LIBLOOP_EXPORT void loop_secure_free(void *p, size_t size)
{
	size_t len;

	if (!p)
		return;
	len = round_to_pages(size);
	explicit_bzero(p, len);
	munlock(p, len);
	munmap(p, len);
}
