// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Migration help. Stock mount(8) rejects the old "loop,encryption=aes"
 * lines outright ("failed to parse mount options") before any helper can
 * see them, so the helper offers to translate them instead.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmount.h>

#include "fstab-convert.h"

/* old option name -> new one ("" drops it) */
static const struct {
	const char *old;
	const char *new;
} renames[] = {
	{ "encryption", "cipher" },
	{ "offset",     "crypt_offset" },
	{ "sizelimit",  "crypt_sizelimit" },
	{ "loop",       "" },
};

char *fstab_convert_options(const char *fstype, const char *options)
{
	char *str, *p, *name, *val, *res = NULL;
	size_t nlen, vlen, i;
	int found = 0;

	if (!options || mnt_optstr_get_option(options, "encryption", &val, &vlen) != 0)
		return NULL;
	str = strdup(options);
	if (!str)
		return NULL;
	p = str;
	while (mnt_optstr_next_option(&p, &name, &nlen, &val, &vlen) == 0) {
		const char *newname = NULL;
		char *n, *v = val ? strndup(val, vlen) : NULL;

		for (i = 0; i < sizeof(renames) / sizeof(renames[0]); i++)
			if (strlen(renames[i].old) == nlen && !strncmp(renames[i].old, name, nlen))
				newname = renames[i].new;
		if (newname && !*newname) {
			free(v);
			continue;
		}
		n = newname ? strdup(newname) : strndup(name, nlen);
		if (!n || mnt_optstr_append_option(&res, n, v) != 0) {
			free(n);
			free(v);
			free(res);
			free(str);
			return NULL;
		}
		found = 1;
		free(n);
		free(v);
	}
	free(str);
	/* the filesystem inside, unless it was left to detection */
	if (found && fstype && *fstype && strcmp(fstype, "auto") &&
	    mnt_optstr_append_option(&res, "fstype", fstype) != 0) {
		free(res);
		return NULL;
	}
	return res;
}

int fstab_convert_file(const char *fstab, FILE *out)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int rc, n = 0;

	if (!tb || !itr) {
		rc = -ENOMEM;
		goto out;
	}
	rc = mnt_table_parse_fstab(tb, fstab);
	if (rc)
		goto out;
	while (mnt_table_next_fs(tb, itr, &fs) == 0) {
		char *opts = fstab_convert_options(mnt_fs_get_fstype(fs),
						   mnt_fs_get_options(fs));

		if (!opts)
			continue;
		fprintf(out, "# was: %s %s %s %s %d %d\n", mnt_fs_get_source(fs),
			mnt_fs_get_target(fs), mnt_fs_get_fstype(fs), mnt_fs_get_options(fs),
			mnt_fs_get_freq(fs), mnt_fs_get_passno(fs));
		fprintf(out, "%s %s cryptoloop %s %d %d\n", mnt_fs_get_source(fs),
			mnt_fs_get_target(fs), opts, mnt_fs_get_freq(fs), mnt_fs_get_passno(fs));
		free(opts);
		n++;
	}
	rc = n;
out:
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	return rc;
}
