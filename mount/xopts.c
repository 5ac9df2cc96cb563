// SPDX-License-Identifier: GPL-2.0-or-later
/* The x-cryptoloop.* options of an fstab line, as the option table reads them. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmount.h>

#include "xopts.h"

int xopts_collect(const char *opts, char **source, char **ours)
{
	char *str, *p, *name, *val;
	size_t nlen, vlen, plen = strlen(XOPT_PREFIX);
	int rc = 0;

	*source = NULL;
	*ours = NULL;
	if (!opts)
		return 0;
	str = strdup(opts);
	if (!str)
		return -ENOMEM;
	p = str;
	while (rc == 0 && mnt_optstr_next_option(&p, &name, &nlen, &val, &vlen) == 0) {
		char *n, *v;

		if (nlen <= plen || strncmp(name, XOPT_PREFIX, plen))
			continue;
		n = strndup(name + plen, nlen - plen);
		v = val ? strndup(val, vlen) : NULL;
		if (!n || (val && !v))
			rc = -ENOMEM;
		else if (!strcmp(n, "source"))
			rc = *source || !v || !*v ? -EINVAL : (*source = v, v = NULL, 0);
		else
			rc = mnt_optstr_append_option(ours, n, v);
		free(n);
		free(v);
	}
	free(str);
	if (rc) {
		free(*source);
		free(*ours);
		*source = NULL;
		*ours = NULL;
	}
	return rc;
}
