/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "losetup -e luks": LUKS volumes through the dm engine (luks.c). */
#ifndef LOSETUP_LUKS_H
#define LOSETUP_LUKS_H

#include <stdbool.h>
#include <stddef.h>

#include "losetup.h"

/* -e luks, luks1 or luks2 */
bool luks_requested(const struct crypt_opts *k);

/* Open the LUKS volume; @shown receives the mapping. Dies on bad options
 * or a missing header, with a message; returns -errno of a failed attach
 * after reporting it. */
int create_luks(struct loopdev *ld, const struct create_opts *c,
		const struct crypt_opts *k, char *shown, size_t size);

/* Any other -e: refuse --header, and a LUKS image (unless --force, or
 * @unencrypted: "-e none" attaches the image as it is, as without -e). */
void luks_refuse_loop_cipher(const struct create_opts *c, const struct crypt_opts *k,
			     bool unencrypted);

#endif
