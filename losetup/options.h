/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LOSETUP_OPTIONS_H
#define LOSETUP_OPTIONS_H

#include <getopt.h>
#include <limits.h>
#include <stdio.h>

#include "losetup.h"

/* Codes of options without a short letter. */
enum {
	OPT_SIZELIMIT = CHAR_MAX + 1,
	OPT_SHOW,
	OPT_RAW,
	OPT_DIO,
	OPT_OUTPUT_ALL,
	OPT_CLEARTEXT_KEYFILE,
	OPT_LIST_CIPHERS,
	OPT_ENGINE,
	OPT_ALLOW_SHORT,
	OPT_ALLOW_EMPTY,
	OPT_FORCE,
	OPT_SWAP,
	OPT_LUKS_HEADER,
};

enum opt_section {
	SEC_COMMANDS,
	SEC_SETUP,
	SEC_OUTPUT,
	SEC_HELP,
	SEC_CRYPT,	/* ours, printed after all of util-linux's text */
};

struct opt_desc {
	const char *name;	/* long name */
	int has_arg;
	int val;		/* short letter, or OPT_* */
	const char *arg;	/* argument shown in --help */
	const char *help;
	enum opt_section section;
};

extern const struct opt_desc opt_table[];
extern const size_t opt_table_size;
extern const excl_group_t opt_excl[];

#define OPT_MAX 64

/* Fill getopt_long()'s arrays (OPT_MAX + 1 entries, 3 * OPT_MAX chars). */
void opt_build_getopt(struct option *longopts, char *shortopts);
/* The long name of an option code, or NULL. */
const char *opt_long_name(int val);
/* Print the --help lines of one section. */
void opt_print_section(FILE *out, enum opt_section sec);

#endif
