/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CRYPTOLOOP_IMAGE_LIST_H
#define CRYPTOLOOP_IMAGE_LIST_H

#include <stdbool.h>

#include "root-line.h"

/*
 * --image-list: everything an initramfs needs to unlock @l with kernel
 * @kver, one "KIND VALUE" line each on standard output (cryptoloop-unlock(8)).
 * The initramfs-tools hook and the dracut module copy what it names and
 * decide nothing themselves. 0, or -1 (told, naming the line).
 */
int image_list_print(const struct root_line *l, const char *kver);

/* /dev/cryptoloopN: a kmod device by its number */
bool is_cryptoloop_device(const char *path);

#endif
