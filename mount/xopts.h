/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x-cryptoloop.* options of an ordinary fstab line (a swap line, the
 * root line): mount(8), swapon(8) and systemd ignore x-* options, and the
 * NAME of each x-cryptoloop.NAME= is a row of the option table.
 */
#ifndef MOUNT_XOPTS_H
#define MOUNT_XOPTS_H

#define XOPT_PREFIX "x-cryptoloop."

/*
 * Split the x-cryptoloop.* options of @opts (the line's option string,
 * may be NULL): source= apart into *@source, the rest as an option string
 * of the table into *@ours ("encryption=AES128,phash=random"); both
 * malloc'ed, NULL when absent. Returns 0, -EINVAL for a source= that is
 * empty or repeated, or -ENOMEM.
 */
int xopts_collect(const char *opts, char **source, char **ours);

#endif
