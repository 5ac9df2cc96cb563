/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* loop_attach()'s LUKS path (attach-luks.c); not installed. */
#ifndef LIBLOOP_ATTACH_LUKS_H
#define LIBLOOP_ATTACH_LUKS_H

#include <stdbool.h>
#include <stddef.h>

#include "libloop.h"

/* -e luks, luks1 or luks2 */
bool attach_luks_requested(const struct loop_attach_opts *o);

/*
 * Open the LUKS volume o->image (its header there or in o->header)
 * through the dm engine; @device receives the mapping. Returns 0, or
 * -errno with @m filled.
 */
int attach_luks(struct loopdev *ld, const struct loop_attach_opts *o,
		char *device, size_t size, struct loop_attach_msg *m);

/*
 * Any other -e: refuse --header, and a LUKS image (unless --force or an
 * offset, or @unencrypted: "-e none" attaches the image as it is).
 * Returns 0, or -EINVAL with @m filled.
 */
int attach_luks_refuse(const struct loop_attach_opts *o, bool unencrypted,
		       struct loop_attach_msg *m);

#endif
