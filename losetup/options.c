// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The option table. One row per option drives getopt_long(), the usage
 * text and the --help layout, so they cannot drift apart. The key
 * options are the shared list's (cli-options.h).
 */
#include "config.h"

#include "options.h"

static const struct opt_desc opt_table[] = {
	/* -o, --sizelimit and the encryption options lead their sections */
	LOOP_KEY_OPTIONS(LOOP_KEY_ANY_ROW)
	/* commands */
	{ "all",          no_argument,       'a', NULL, "list all used devices", SEC_COMMANDS },
	{ "detach",       no_argument,       'd', "<loopdev>...", "detach one or more devices", SEC_COMMANDS },
	{ "detach-all",   no_argument,       'D', NULL, "detach all used devices", SEC_COMMANDS },
	{ "find",         no_argument,       'f', NULL, "find first unused device", SEC_COMMANDS },
	{ "set-capacity", no_argument,       'c', "<loopdev>", "resize the device", SEC_COMMANDS },
	{ "associated",   required_argument, 'j', "<file>", "list all devices associated with <file>", SEC_COMMANDS },
	{ "nooverlap",    no_argument,       'L', NULL, "avoid possible conflict between devices", SEC_COMMANDS },
	{ "remove",       no_argument,       OPT_REMOVE, "<loopdev>...", "remove one or more devices", SEC_COMMANDS },
	/* setup options */
	{ "sector-size",  required_argument, 'b', "<num>", "set the logical sector size to <num>", SEC_SETUP },
	{ "partscan",     no_argument,       'P', NULL, "create a partitioned loop device", SEC_SETUP },
	{ "read-only",    no_argument,       'r', NULL, "set up a read-only loop device", SEC_SETUP },
	{ "direct-io",    optional_argument, OPT_DIO, "[=<on|off>]", "open backing file with O_DIRECT", SEC_SETUP },
	{ "loop-ref",     required_argument, OPT_REF, "<string>", "loop device reference", SEC_SETUP },
	{ "show",         no_argument,       OPT_SHOW, NULL, "print device name after setup (with -f)", SEC_SETUP },
	/* util-linux 2.42 dropped -v, a no-op since 2.22; 2.41's scripts may pass it */
	{ "verbose",      no_argument,       'v', NULL, NULL, SEC_HIDDEN },
	/* output options */
	{ "json",         no_argument,       'J', NULL, "use JSON --list output format", SEC_OUTPUT },
	{ "list",         no_argument,       'l', NULL, "list info about all or specified (default)", SEC_OUTPUT },
	{ "noheadings",   no_argument,       'n', NULL, "don't print headings for --list output", SEC_OUTPUT },
	{ "output",       required_argument, 'O', "<cols>", "specify columns to output for --list", SEC_OUTPUT },
	{ "output-all",   no_argument,       OPT_OUTPUT_ALL, NULL, "output all columns", SEC_OUTPUT },
	{ "raw",          no_argument,       OPT_RAW, NULL, "use raw --list output format", SEC_OUTPUT },
	/* help */
	{ "help",         no_argument,       'h', NULL, "display this help", SEC_HELP },
	{ "version",      no_argument,       'V', NULL, "display version", SEC_HELP },
	/* encryption, after the key options */
	{ "swap",         no_argument,       OPT_SWAP, NULL, "pin a backing file for swap (kmod engine; see below)", SEC_CRYPT },
	{ "fstab",        no_argument,       'F', NULL, "set up <loopdev> from the fstab line with loop=<loopdev>", SEC_CRYPT },
	{ "list-ciphers", no_argument,       OPT_LIST_CIPHERS, NULL, "list the encryption names and exit", SEC_CRYPT },
};

const struct opt_table losetup_opts = { opt_table, sizeof(opt_table) / sizeof(opt_table[0]) };

/*
 * Groups of options that exclude each other, util-linux 2.42's rows, each
 * in ascending order of option code (2.38's third row was not, so that
 * -O was never caught there).
 */
const excl_group_t opt_excl[] = {
	{ 'D', 'a', 'c', 'd', 'f', 'j', OPT_REMOVE },
	{ 'D', 'c', 'd', 'f', 'l', OPT_REMOVE },
	{ 'D', 'O', 'c', 'd', 'f', OPT_REMOVE },
	{ 'J', OPT_RAW },
	{ 0 }
};
