/* SPDX-License-Identifier: GPL-2.0-or-later */
/* No swap through the FUSE engine (swap-refuse.c says what is caught). */
#ifndef LOSETUP_SWAP_REFUSE_H
#define LOSETUP_SWAP_REFUSE_H

#include <stdbool.h>
#include <libloop.h>

/* Dies naming @image when -H random would attach through @engine FUSE. */
void swap_refuse_random_fuse(enum loop_engine_kind engine, const char *image);

/* The decrypted @device carries a swap signature (mkswap's, at the end
 * of the first page, for 4, 8, 16 and 64 KiB pages). */
bool swap_signature_on(const char *device);

#endif
