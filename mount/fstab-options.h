/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one table of fstab option names: what mount.cryptoloop accepts,
 * what "losetup -F" takes from a loop= line, what --convert-fstab emits,
 * and the NAME of every x-cryptoloop.NAME= option of a swap line.
 */
#ifndef MOUNT_FSTAB_OPTIONS_H
#define MOUNT_FSTAB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

enum fstab_opt_kind {
	FOPT_LOSETUP,		/* becomes a losetup option */
	FOPT_FSTYPE,		/* the filesystem inside */
	FOPT_PASSFD,		/* passphrase fd, read by libloop */
	FOPT_READONLY,		/* both losetup -r and the mount's ro */
	FOPT_UNLOCK,		/* cryptoloop-unlock's alone (the root line):
				 * refused by every other reader */
};

struct fstab_opt {
	/* the name in a "cryptoloop" line; stock mount(8) leaves it alone */
	const char *name;
	/*
	 * The name util-linux 2.12 / loop-AES used, if different. mount(8)
	 * acts on these itself ("encryption=" is stripped, "offset=" and
	 * "sizelimit=" set up a plain loop device), so a cryptoloop line
	 * uses the name above; x-cryptoloop.* swap options, which mount(8)
	 * and swapon(8) never look at, use this one (loop-AES's).
	 */
	const char *legacy;
	enum fstab_opt_kind kind;
	const char *losetup;	/* the losetup long option it maps to, which
				 * its messages name */
	bool has_value;
	/* it says where the passphrase or key comes from: meaningless for
	 * a random-key (phash=random) swap line */
	bool secret;
};

extern const struct fstab_opt fstab_opts[];
extern const size_t fstab_opts_count;

/* The row named @name (either name; @len bytes), or NULL. */
const struct fstab_opt *fstab_opt_find(const char *name, size_t len);

/* The name loop-AES wrote (legacy when there is one). */
const char *fstab_opt_legacy_name(const struct fstab_opt *o);

#endif
