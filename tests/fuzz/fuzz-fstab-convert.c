// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mount.cryptoloop --convert-fstab: a legacy line's options (and its
 * fstype, before the first newline of the input) into a cryptoloop line's.
 * What comes out must itself parse as cryptoloop options.
 */
#include "config.h"

#include <errno.h>

#include "fstab-convert.h"
#include "mount-opts.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), *opts, *nl, *out, *bad = NULL;
	struct mount_request req;

	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		opts = nl + 1;
	} else {
		opts = s;
	}
	out = fstab_convert_options(nl ? s : "ext4", opts);
	if (out) {
		mopt_init(&req);
		(void)mopt_parse(&req, out, &bad);
		free(bad);
		mopt_free(&req);
	}
	free(out);
	free(s);
	return 0;
}
