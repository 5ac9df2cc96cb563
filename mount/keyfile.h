/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The key file on a mounted key device, opened without leaving it. */
#ifndef CRYPTOLOOP_KEYFILE_H
#define CRYPTOLOOP_KEYFILE_H

#include <stddef.h>

/*
 * The most any key file reader takes: libcryptsetup reads a LUKS key
 * file up to 8 MiB (cryptsetup's default --keyfile-size limit); loop-AES
 * key files (66 lines of at most 4094 bytes) and gpg's encryption of
 * them are far smaller.
 */
#define KEYFILE_MAX_BYTES	(8U << 20)

/*
 * Open @name (an absolute path on the mount at @dir) read-only, with no
 * symbolic link followed and nothing outside @dir reached, and check that
 * it is a regular file of at most KEYFILE_MAX_BYTES. Returns the
 * descriptor (close-on-exec, blocking), or -errno with @why set to what
 * failed, in words for a message after the file's name.
 */
int keyfile_open(const char *dir, const char *name, char *why, size_t size);

#endif
