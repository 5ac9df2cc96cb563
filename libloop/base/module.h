/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Modules of this project that libloop finds next to itself (module.c):
 * the dm engine and losetup's fstab reader, loaded only by their users.
 * For the project's own programs (version node LIBLOOP_PRIVATE); not
 * installed.
 */
#ifndef LIBLOOP_MODULE_H
#define LIBLOOP_MODULE_H

/*
 * Load NAME.so from LIBDIR/cryptoloop/ (installed) or from the directory
 * of libloop.so itself (a build tree); *@handle is for dlsym().
 * Returns 0, or -ENOENT when no such module loads.
 */
__attribute__((visibility("default")))
int loop_module_open(const char *name, void **handle);

#endif
