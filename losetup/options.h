/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LOSETUP_OPTIONS_H
#define LOSETUP_OPTIONS_H

#include "cli/cli-options.h"
#include "losetup.h"

/* Codes of losetup's own long-only options: above every shared code, so
 * that they come last in the ascending exclusion rows. */
enum {
	OPT_REMOVE = OPT_OWN,
};

/* losetup's rows: the key options (cli-options.h), then its own */
extern const struct opt_table losetup_opts;
extern const excl_group_t opt_excl[];

#endif
