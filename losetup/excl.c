// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Mutually exclusive options. Groups list option codes in ascending
 * order; the first option seen from a group claims it, and any other
 * option of that group is a conflict.
 */
#include "config.h"

#include "losetup.h"

int excl_check(int c, const excl_group_t *groups, int *status)
{
	int g;

	for (g = 0; groups[g][0] && groups[g][0] <= c; g++) {
		const int *op;

		for (op = groups[g]; *op && *op <= c; op++) {
			if (*op != c)
				continue;
			if (status[g] == 0)
				status[g] = c;
			else if (status[g] != c)
				return g + 1;
			break;
		}
	}
	return 0;
}
