// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Swap never goes through the FUSE engine: the kernel swapping out to a
 * loop device over a userspace daemon waits for the daemon, and the daemon
 * may need memory that only the swap-out would free.  swapon(8) runs no
 * helper, so what can be caught is caught where it passes by us:
 *  - "-H random" is loop-AES's swap recipe: refused on FUSE (--force for
 *    scratch space that is never swap);
 *  - an image whose plaintext already is swap is not attached through
 *    FUSE (--force attaches it anyway);
 *  - the daemon refuses to write a swap signature, so mkswap fails
 *    (fuse/swap-guard.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach-msg.h"
#include "attach/swap-refuse.h"

int swap_refuse_random_fuse(enum loop_engine_kind engine, const char *image,
			    struct loop_attach_msg *m)
{
	if (engine != LOOP_ENGINE_FUSE)
		return 0;
	return attach_msg(m, -EPERM, "--phash", "%s: -H random on the FUSE engine refused: "
			  "it is the swap recipe, and swap through a userspace daemon can "
			  "deadlock; use " MSG_OPT_ARG("engine", "--engine ", "kmod")
			  " or dm for swap" MSG_ASIDE(" (" MSG_OPT("force", "--force")
			  " attaches anyway, for scratch space that is never swap)"), image);
}

bool swap_signature_on(const char *device)
{
	/* the signature's place for the page sizes mkswap uses */
	static const size_t pages[] = { 4096, 8192, 16384, 65536 };
	char buf[10];
	size_t i;
	int fd = open(device, O_RDONLY | O_CLOEXEC);
	bool found = false;

	if (fd < 0)
		return false;
	for (i = 0; !found && i < sizeof(pages) / sizeof(pages[0]); i++)
		found = pread(fd, buf, sizeof(buf), (off_t)(pages[i] - sizeof(buf))) ==
			(ssize_t)sizeof(buf) &&
			(!memcmp(buf, "SWAPSPACE2", 10) || !memcmp(buf, "SWAP-SPACE", 10));
	close(fd);
	return found;
}
