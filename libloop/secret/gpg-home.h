/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef CRYPTOLOOP_GPG_HOME_H
#define CRYPTOLOOP_GPG_HOME_H

#include <stddef.h>

/*
 * gpg_home_fallback - a throwaway home for gpg when its own is missing.
 * @homedir: the --homedir the caller gives, or NULL
 * @buf:     receives the directory made, if one was
 *
 * Returns 1 with @buf set when a fresh private directory was made (pass it
 * as --homedir, then gpg_home_remove() it), 0 when gpg's home is there or
 * was given, or a -errno.
 */
int gpg_home_fallback(const char *homedir, char *buf, size_t size);
void gpg_home_remove(const char *dir);

#endif
