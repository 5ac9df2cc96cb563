/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* No swap through the FUSE engine (swap-refuse.c says what is caught).
 * Internal to libloop (loop_attach()); not installed. */
#ifndef LIBLOOP_SWAP_REFUSE_H
#define LIBLOOP_SWAP_REFUSE_H

#include <stdbool.h>
#include "libloop.h"

/* -EPERM with @m naming @image when -H random would attach through
 * @engine FUSE; else 0. */
int swap_refuse_random_fuse(enum loop_engine_kind engine, const char *image,
			    struct loop_attach_msg *m);

/* The decrypted @device carries a swap signature (mkswap's, at the end
 * of the first page, for 4, 8, 16 and 64 KiB pages). */
bool swap_signature_on(const char *device);

#endif
