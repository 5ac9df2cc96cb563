/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether only root can change which file a swap source's path names. */
#ifndef CRYPTOLOOP_SWAP_SOURCE_PATH_H
#define CRYPTOLOOP_SWAP_SOURCE_PATH_H

#include <stddef.h>

/*
 * @source, open as @fd: 0 when the file @fd is what the path names and
 * no one but root can make the path name another file (every directory
 * on its canonical path root's and writable by root alone, or sticky
 * with a root-owned entry). Else -1 with @why set.
 */
int swap_source_path_safe(const char *source, int fd, char *why, size_t size);

#endif
