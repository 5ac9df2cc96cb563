// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * No swap on the FUSE engine.  The kernel swapping out to a loop device
 * over this daemon waits for the daemon, and the daemon may need memory
 * that only that swap-out would free: a deadlock.  swapon(8) runs no
 * helper we could stop, but it refuses a device without a swap signature,
 * and mkswap(8) writes that signature ("SWAPSPACE2", or the old
 * "SWAP-SPACE") in the last 10 bytes of the first page.  So we refuse that
 * one write, mkswap fails, and the reason goes to syslog.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon.h"

#define SIG_LEN 10

/* The signature of a page size @page, if this write covers all of it. */
static bool covers_signature(const char *data, uint64_t pos, size_t size, uint64_t page)
{
	uint64_t sig = page - SIG_LEN;
	const char *p;

	if (pos > sig || pos + size < page)
		return false;
	p = data + (sig - pos);
	return !memcmp(p, "SWAPSPACE2", SIG_LEN) || !memcmp(p, "SWAP-SPACE", SIG_LEN);
}

bool clf_refuse_swap_write(const char *image, const char *data, uint64_t pos, size_t size)
{
	/* mkswap -p lets the user pick another page size: the common ones */
	static const uint64_t pages[] = { 4096, 8192, 16384, 65536 };
	uint64_t sys = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t i;
	bool hit = covers_signature(data, pos, size, sys);

	for (i = 0; !hit && i < sizeof(pages) / sizeof(pages[0]); i++)
		hit = covers_signature(data, pos, size, pages[i]);
	if (hit)
		syslog(LOG_WARNING, "%s: refused to write a swap signature: swap through "
		       "the FUSE engine can deadlock (use the kmod or dm engine for swap)",
		       image);
	return hit;
}
