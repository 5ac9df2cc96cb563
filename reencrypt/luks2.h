/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --new --luks2 --header FILE: the image's data becomes the data area of
 * a LUKS2 volume whose header lives in FILE (written with libcryptsetup),
 * so that "cryptsetup open --header FILE IMAGE name" opens it.
 */
#ifndef REENCRYPT_LUKS2_H
#define REENCRYPT_LUKS2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libloop.h"

struct luks2_target;

/*
 * Create the header (fresh start) or unlock it (@resuming), and set up
 * the data cipher. @cipher: "aes-xts-plain64" style, NULL for that
 * default. @data_off: where the data starts in the image, in bytes.
 * The volume key is returned in @key (for the journal's key check).
 * Dies with a message on failure.
 */
struct luks2_target *luks2_open(const char *header, const char *image,
				const char *cipher, uint64_t data_off,
				const struct loop_pass *pass, bool resuming,
				struct loop_key **key, char *name, size_t namesz);

/* @nsectors 512-byte sectors; @sector counts from the start of the data. */
int luks2_encrypt(struct luks2_target *t, uint64_t sector, void *dst,
		  const void *src, size_t nsectors);
int luks2_decrypt(struct luks2_target *t, uint64_t sector, void *dst,
		  const void *src, size_t nsectors);

void luks2_close(struct luks2_target *t);

#endif
