// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The image mapped for reading. A read decrypts straight from the page
 * cache into the reply buffer: the cipher's one pass over the data takes
 * the place of the copy pread() would make, so an encrypted read does
 * the work of a passthrough read (a memcpy from the same mapping) plus
 * the difference between the cipher and that memcpy, not plus a cipher
 * pass over a buffer already copied once.
 *
 * Writes still go through pwrite(): a store through a shared mapping
 * faults per page on file systems that track dirty pages, and a full
 * disk would kill us with SIGBUS instead of failing the write.
 *
 * A mapped page that is gone (the image shrank behind our back) or that
 * the disk cannot read raises SIGBUS; the handler turns it into -EIO for
 * the request that touched it, which is what pread() returns then.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon.h"

#define SECTOR LOOP_SECTOR_SIZE
/* From this size on, ask for the whole range to be read ahead at once
 * (a cold image on disk would otherwise be read one fault window at a
 * time); on tmpfs or a cached image that is a cheap no-op. */
#define WILLNEED_MIN (128 * 1024)
#define PREFETCH_MAX (16 * 1024)

/* set while this thread reads through the mapping */
static __thread sigjmp_buf *map_guard;

static void on_sigbus(int sig)
{
	sigjmp_buf *jb = map_guard;

	if (jb) {
		map_guard = NULL;
		siglongjmp(*jb, 1);
	}
	/* not a mapped read: die of it, as without a handler */
	signal(sig, SIG_DFL);
}

void clf_map_setup(struct clf *c, bool locked_on_fault)
{
	uint64_t size = atomic_load(&c->size);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start = c->offset & ~(uint64_t)(page - 1);
	uint64_t len = c->offset - start + size;
	struct sigaction sa;
	void *p;

	/* mlockall(MCL_FUTURE) without MCL_ONFAULT would read and lock
	 * the whole image right in mmap(); a 32-bit address space may not
	 * hold it */
	if (!locked_on_fault || sizeof(size_t) < 8)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	/* the handler jumps out: SIGBUS must not stay blocked after it */
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) < 0)
		return;
	p = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, c->img_fd, (off_t)start);
	if (p == MAP_FAILED)
		return;
	/* ciphertext: it need not be locked, and a big image must not be */
	if (munlock(p, (size_t)len) < 0) {
		munmap(p, (size_t)len);
		return;
	}
	c->map_base = p;
	c->map_total = (size_t)len;
	c->map = (const char *)p + (c->offset - start);
	c->map_len = size;
	c->map_page = (size_t)page;
	/* our AES-NI code holds no lock and allocates nothing, so a SIGBUS
	 * may leave it mid-way; libgcrypt's handles come from a locked pool,
	 * so for other ciphers the mapping is copied first */
	c->map_decrypt = c->crypt && !strncmp(loop_crypt_impl_name(c->crypt), "aesni", 5);
}

void clf_map_release(struct clf *c)
{
	if (c->map_base)
		munmap(c->map_base, c->map_total);
	c->map_base = NULL;
	c->map = NULL;
	c->map_len = 0;
}

bool clf_map_covers(const struct clf *c, uint64_t pos, size_t len)
{
	return c->map && pos <= c->map_len && len <= c->map_len - pos;
}

/* The one pass over mapped bytes, under the SIGBUS guard. */
static int mapped_pass(struct clf *c, char *buf, const char *src, uint64_t pos, size_t len)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0))
		return -EIO;
	map_guard = &jb;
	if (c->map_decrypt) {
		size_t o;

		/* a small random read is not in the cache: ask for all its
		 * lines at once, or the cipher waits on memory a block group
		 * at a time (memcpy keeps many loads in flight by itself;
		 * big reads have the hardware prefetcher) */
		for (o = 0; len <= PREFETCH_MAX && o < len; o += 64)
			__builtin_prefetch(src + o);
		int rc = loop_crypt_decrypt(c->crypt, pos / SECTOR, buf, src, len / SECTOR);

		map_guard = NULL;
		return rc;
	}
	memcpy(buf, src, len);
	map_guard = NULL;
	return 0;
}

int clf_map_read(struct clf *c, char *buf, uint64_t pos, size_t len)
{
	const char *src = c->map + pos;
	int rc;

	if (len >= WILLNEED_MIN) {
		uintptr_t a = (uintptr_t)src & ~(uintptr_t)(c->map_page - 1);

		madvise((void *)a, (uintptr_t)src + len - a, MADV_WILLNEED);
	}
	rc = mapped_pass(c, buf, src, pos, len);
	if (rc == 0 && c->crypt && !c->map_decrypt)
		rc = loop_crypt_decrypt(c->crypt, pos / SECTOR, buf, buf, len / SECTOR);
	return rc;
}
