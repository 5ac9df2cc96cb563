// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one table of fstab option names. mount.cryptoloop, "losetup -F"
 * and the fstab converter all read it, so a name one of them accepts is
 * never ignored by another.
 */
#include "config.h"

#include <string.h>

#include "fstab-options.h"

const struct fstab_opt fstab_opts[] = {
	/* name             legacy          kind           losetup                has_value secret */
	{ "cipher",          "encryption",  FOPT_LOSETUP,  "--encryption",        true,  false },
	{ "keybits",         NULL,          FOPT_LOSETUP,  "--keybits",           true,  false },
	{ "phash",           NULL,          FOPT_LOSETUP,  "--phash",             true,  false },
	{ "pseed",           NULL,          FOPT_LOSETUP,  "--pseed",             true,  true },
	{ "itercountk",      NULL,          FOPT_LOSETUP,  "--itercountk",        true,  true },
	{ "gpgkey",          NULL,          FOPT_LOSETUP,  "--gpgkey",            true,  true },
	{ "gpghome",         NULL,          FOPT_LOSETUP,  "--gpghome",           true,  true },
	{ "loinit",          NULL,          FOPT_LOSETUP,  "--loinit",            true,  false },
	{ "crypt_offset",    "offset",      FOPT_LOSETUP,  "--offset",            true,  false },
	{ "crypt_sizelimit", "sizelimit",   FOPT_LOSETUP,  "--sizelimit",         true,  false },
	{ "engine",          NULL,          FOPT_LOSETUP,  "--engine",            true,  false },
	/* cipher=luks: a detached LUKS header (cryptsetup's --header) */
	{ "header",          NULL,          FOPT_LOSETUP,  "--header",            true,  false },
	/* loop-AES's mount took the cleartext key file (its losetup -P) as
	 * cleartextkey=; ours is keyfile=, and both mean the same */
	{ "keyfile",         "cleartextkey", FOPT_LOSETUP, "--cleartext-keyfile", true,  true },
	{ "passfd",          NULL,          FOPT_PASSFD,   "--pass-fd",           true,  true },
	{ "fstype",          NULL,          FOPT_FSTYPE,   NULL,                  true,  false },
	{ "ro",              NULL,          FOPT_READONLY, "--read-only",         false, false },
};

const size_t fstab_opts_count = sizeof(fstab_opts) / sizeof(fstab_opts[0]);

static bool name_is(const char *want, const char *name, size_t len)
{
	return want && strlen(want) == len && !strncmp(want, name, len);
}

const struct fstab_opt *fstab_opt_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < fstab_opts_count; i++)
		if (name_is(fstab_opts[i].name, name, len) ||
		    name_is(fstab_opts[i].legacy, name, len))
			return &fstab_opts[i];
	return NULL;
}

const char *fstab_opt_legacy_name(const struct fstab_opt *o)
{
	return o->legacy ? o->legacy : o->name;
}
