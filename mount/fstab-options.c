// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one table of fstab option names. mount.cryptoloop, "losetup -F"
 * and the fstab converter all read it, so a name one of them accepts is
 * never ignored by another. The key options' names come from the key
 * list that losetup and cryptoloop-reencrypt take their rows from.
 */
#include "config.h"

#include <string.h>

#include "cli/cli-options.h"
#include "fstab-options.h"

/* the key list's rows marked for fstab (cli-options.h) */
#define FSTAB_ROW(code, lname, has_arg, arg, help, sec, reencrypt, in_fstab, name, legacy, \
		  kind, secret) \
	LOOP_KEY_IF(in_fstab, { name, legacy, FOPT_##kind, "--" lname, \
				has_arg != no_argument, secret },)

const struct fstab_opt fstab_opts[] = {
	LOOP_KEY_OPTIONS(FSTAB_ROW)
	/* name             legacy          kind           losetup                has_value secret */
	{ "fstype",          NULL,          FOPT_FSTYPE,   NULL,                  true,  false },
	{ "ro",              NULL,          FOPT_READONLY, "--read-only",         false, false },
	/* the key file's device, mounted for the unlock at boot only */
	{ "keydev",          NULL,          FOPT_UNLOCK,   NULL,                  true,  true  },
	{ "keydev-timeout",  NULL,          FOPT_UNLOCK,   NULL,                  true,  false },
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
