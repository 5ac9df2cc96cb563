// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What gpg prints for a -K key file, as loop_pass_from_gpg() reads it:
 * the multi-line rule over a pipe, drained to the end (gpg must not be
 * left blocked on a full pipe).
 */
#include "config.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libloop-crypto.h"
#include "crypto/crypto-internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct loop_pass *p = NULL;
	size_t i, n, len;
	int rc;

	if (fd < 0)
		fd = memfd_create("gpg-output", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	rc = loop_pass_read_fd_multi_drain(&p, fd);
	FUZZ_ASSERT(rc == 0 || rc == -E2BIG || rc == -ENOMEM);
	/* drained: nothing left unread */
	FUZZ_ASSERT(lseek(fd, 0, SEEK_CUR) == (off_t)size);
	if (rc == 0) {
		n = loop_pass_count(p);
		for (i = 0; i < n; i++) {
			const char *l = loop_pass_line(p, i, &len);

			FUZZ_ASSERT(l && !memchr(l, '\n', len));
		}
	}
	loop_pass_free(p);
	return 0;
}
