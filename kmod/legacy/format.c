// SPDX-License-Identifier: GPL-2.0-only
/*
 * The formats and their sector crypto, from the same sources as the 5.16+
 * driver's (kmod/format/).  They are compiled here, in this module's own
 * directory, so the two builds never share an object file; Kbuild puts
 * their directory on the include path (format/ beside this file in a
 * packaged tree, ../format in the source tree).
 */
#include <linux/highmem.h>

/*
 * kmap_local_page() came with 5.11 (Kbuild probes for it).  Before it,
 * map atomically: nothing sleeps while a sector is mapped.
 */
#ifdef CLX_NO_KMAP_LOCAL
#define clo_kmap(page)		kmap_atomic(page)
#define clo_kunmap(addr)	kunmap_atomic(addr)
#endif

#include "md5.c"
#include "crypt.c"
