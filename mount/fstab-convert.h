/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef MOUNT_FSTAB_CONVERT_H
#define MOUNT_FSTAB_CONVERT_H

#include <stdio.h>

/*
 * Turn the options of a legacy encrypted fstab line ("loop,encryption=aes,
 * offset=4096" with fstype "ext4") into those of a "cryptoloop" line.
 * Returns a malloc'ed option string, or NULL when the line has no
 * encryption= (nothing to convert) or on allocation failure.
 */
char *fstab_convert_options(const char *fstype, const char *options);

/*
 * Print, for every legacy encrypted line of @fstab (NULL: the default
 * fstab), the line and its replacement. Returns the number of legacy
 * lines found, or -errno when the file cannot be parsed.
 */
int fstab_convert_file(const char *fstab, FILE *out);

#endif
