// SPDX-License-Identifier: GPL-2.0-or-later
/* mopt_parse(): the options of a "cryptoloop" fstab line or mount -o. */
#include "config.h"

#include <errno.h>

#include "fstab-options.h"
#include "mount-opts.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mount_request req;
	char *s = fuzz_str(data, size), *bad = NULL;
	size_t i;
	int rc;

	mopt_init(&req);
	rc = mopt_parse(&req, s, &bad);
	FUZZ_ASSERT(rc == 0 || rc < 0);
	FUZZ_ASSERT(req.nargs < sizeof(req.losetup_args) / sizeof(req.losetup_args[0]));
	for (i = 0; i < req.nargs; i++)
		FUZZ_ASSERT(req.losetup_args[i] != NULL);
	for (i = 0; i < fstab_opts_count; i++)
		(void)mopt_given(&req, fstab_opts[i].name);
	free(bad);
	mopt_free(&req);
	free(s);
	return 0;
}
