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
struct job;

/*
 * The keyslot's key derivation, as cryptsetup luksFormat's options: a 0 or
 * NULL field keeps libcryptsetup's default. @iterations (pbkdf2's count,
 * argon2's time cost) skips the benchmark; without it, @time_ms is what
 * the benchmark aims at and @memory_kib argon2's ceiling.
 */
struct luks2_pbkdf {
	const char *type;	/* CRYPT_KDF_PBKDF2, _ARGON2I or _ARGON2ID */
	uint32_t time_ms;
	uint32_t iterations;
	uint32_t memory_kib;
};

/* what libcryptsetup's default LUKS2 header and keyslot areas take */
#define LUKS2_HEADER_BYTES (16u << 20)

/* whether libcryptsetup takes @pbkdf (it says why not): 0 or -errno */
int luks2_pbkdf_check(const struct luks2_pbkdf *pbkdf);

/*
 * Create the header (fresh start) or unlock it (@resuming), and set up
 * the data cipher. @cipher: "aes-xts-plain64" style, NULL for that
 * default. @data_off: where the data starts in the image, in bytes.
 * @pbkdf: the new keyslot's key derivation.
 * The volume key is returned in @key (for the journal's key check).
 * Dies with a message on failure.
 */
struct luks2_target *luks2_open(const char *header, const char *image,
				const char *cipher, uint64_t data_off,
				const struct luks2_pbkdf *pbkdf, const struct loop_pass *pass, bool resuming,
				struct loop_key **key, char *name, size_t namesz);

/* @nsectors 512-byte sectors; @sector counts from the start of the data. */
int luks2_encrypt(struct luks2_target *t, uint64_t sector, void *dst,
		  const void *src, size_t nsectors);
int luks2_decrypt(struct luks2_target *t, uint64_t sector, void *dst,
		  const void *src, size_t nsectors);

void luks2_close(struct luks2_target *t);

/* luks2-inplace.c, --luks2 without --header */

/* where the data goes: after the header, or where it is when there is room */
uint64_t luks2_inplace_offset(uint64_t old_off);

/* whether the image starts with a LUKS header already */
bool luks2_has_magic(int fd);

/* grow the file to hold the moved data, allocated and durable; on failure
 * it keeps its size. 0, -ENOSPC or -errno. */
int luks2_inplace_grow(struct job *job);

/* copy the header made aside into the image, check that libcryptsetup
 * reads it there, then remove the copy aside. 0 (also when there is no
 * copy aside any more) or -errno. */
int luks2_inplace_finish(struct job *job);

#endif
