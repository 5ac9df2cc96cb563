// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The option table. One row per option drives getopt_long(), the usage
 * text and the --help layout, so they cannot drift apart.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

const struct opt_desc opt_table[] = {
	/* commands */
	{ "all",          no_argument,       'a', NULL, "list all used devices", SEC_COMMANDS },
	{ "detach",       required_argument, 'd', "<loopdev>...", "detach one or more devices", SEC_COMMANDS },
	{ "detach-all",   no_argument,       'D', NULL, "detach all used devices", SEC_COMMANDS },
	{ "find",         no_argument,       'f', NULL, "find first unused device", SEC_COMMANDS },
	{ "set-capacity", required_argument, 'c', "<loopdev>", "resize the device", SEC_COMMANDS },
	{ "associated",   required_argument, 'j', "<file>", "list all devices associated with <file>", SEC_COMMANDS },
	{ "nooverlap",    no_argument,       'L', NULL, "avoid possible conflict between devices", SEC_COMMANDS },
	/* setup options */
	{ "offset",       required_argument, 'o', "<num>", "start at offset <num> into file", SEC_SETUP },
	{ "sizelimit",    required_argument, OPT_SIZELIMIT, "<num>", "device is limited to <num> bytes of the file", SEC_SETUP },
	{ "sector-size",  required_argument, 'b', "<num>", "set the logical sector size to <num>", SEC_SETUP },
	{ "partscan",     no_argument,       'P', NULL, "create a partitioned loop device", SEC_SETUP },
	{ "read-only",    no_argument,       'r', NULL, "set up a read-only loop device", SEC_SETUP },
	{ "direct-io",    optional_argument, OPT_DIO, "[=<on|off>]", "open backing file with O_DIRECT", SEC_SETUP },
	{ "show",         no_argument,       OPT_SHOW, NULL, "print device name after setup (with -f)", SEC_SETUP },
	{ "verbose",      no_argument,       'v', NULL, "verbose mode", SEC_SETUP },
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
	/* encryption: loop-AES's letters where util-linux leaves them free */
	{ "encryption",   required_argument, 'e', "<name>", "encrypt with cipher <name> (see --list-ciphers)", SEC_CRYPT },
	{ "keybits",      required_argument, 'k', "<num>", "key size in bits", SEC_CRYPT },
	{ "pass-fd",      required_argument, 'p', "<fd>", "read the passphrase (or key lines) from <fd>", SEC_CRYPT },
	{ "verify-passphrase", no_argument,  'T', NULL, "ask for the passphrase twice", SEC_CRYPT },
	{ "phash",        required_argument, 'H', "<hash>", "loop-AES passphrase hash (sha256, rmd160, ..., random)", SEC_CRYPT },
	{ "gpgkey",       required_argument, 'K', "<file>", "loop-AES gpg encrypted key file", SEC_CRYPT },
	{ "gpghome",      required_argument, 'G', "<dir>", "gpg home directory for --gpgkey", SEC_CRYPT },
	{ "cleartext-keyfile", required_argument, OPT_CLEARTEXT_KEYFILE, "<file>", "loop-AES key file in clear text (loop-AES -P)", SEC_CRYPT },
	{ "pseed",        required_argument, 'S', "<seed>", "loop-AES passphrase seed", SEC_CRYPT },
	{ "itercountk",   required_argument, 'C', "<num>", "loop-AES: <num> thousand key iterations", SEC_CRYPT },
	{ "loinit",       required_argument, 'I', "<num>", "IV offset: sector number of the first sector", SEC_CRYPT },
	{ "allow-short-passphrase", no_argument, OPT_ALLOW_SHORT, NULL, "accept loop-AES passphrases under 20 characters", SEC_CRYPT },
	{ "allow-empty-passphrase", no_argument, OPT_ALLOW_EMPTY, NULL, "accept an empty passphrase (with -e aes, an all-zero key)", SEC_CRYPT },
	{ "header",       required_argument, OPT_LUKS_HEADER, "<file>", "with -e luks (and -c on its mapping): the detached LUKS header", SEC_CRYPT },
	{ "engine",       required_argument, OPT_ENGINE, "<name>", "kmod, xfer, dm, fuse or auto (default)", SEC_CRYPT },
	{ "force",        no_argument,       OPT_FORCE, NULL, "attach an image already in use; -H random on FUSE", SEC_CRYPT },
	{ "swap",         no_argument,       OPT_SWAP, NULL, "pin a backing file for swap (kmod engine; see below)", SEC_CRYPT },
	{ "fstab",        no_argument,       'F', NULL, "set up <loopdev> from the fstab line with loop=<loopdev>", SEC_CRYPT },
	{ "list-ciphers", no_argument,       OPT_LIST_CIPHERS, NULL, "list the encryption names and exit", SEC_CRYPT },
};

const size_t opt_table_size = sizeof(opt_table) / sizeof(opt_table[0]);

/*
 * Groups of options that exclude each other, util-linux's rows, each in
 * ascending order of option code.
 */
const excl_group_t opt_excl[] = {
	{ 'D', 'a', 'c', 'd', 'f', 'j' },
	{ 'D', 'c', 'd', 'f', 'l' },
	{ 'D', 'c', 'd', 'f', 'O' },
	{ 'J', OPT_RAW },
	{ 0 }
};

void opt_build_getopt(struct option *longopts, char *shortopts)
{
	size_t i;

	for (i = 0; i < opt_table_size; i++) {
		const struct opt_desc *o = &opt_table[i];

		longopts[i] = (struct option){ o->name, o->has_arg, NULL, o->val };
		if (o->val < 128) {
			*shortopts++ = (char)o->val;
			if (o->has_arg == required_argument)
				*shortopts++ = ':';
			else if (o->has_arg == optional_argument) {
				*shortopts++ = ':';
				*shortopts++ = ':';
			}
		}
	}
	longopts[i] = (struct option){ NULL, 0, NULL, 0 };
	*shortopts = '\0';
}

const char *opt_long_name(int val)
{
	size_t i;

	for (i = 0; i < opt_table_size; i++)
		if (opt_table[i].val == val)
			return opt_table[i].name;
	return NULL;
}

void opt_print_section(FILE *out, enum opt_section sec)
{
	size_t i;

	for (i = 0; i < opt_table_size; i++) {
		const struct opt_desc *o = &opt_table[i];
		char left[96];

		if (o->section != sec)
			continue;
		if (o->val < 128)
			snprintf(left, sizeof(left), " -%c, --%s%s%s", o->val, o->name,
				 o->arg && *o->arg != '[' ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "     --%s%s%s", o->name,
				 o->arg && *o->arg != '[' ? " " : "", o->arg ? o->arg : "");
		/* help lines are aligned at column 31, util-linux's layout */
		if (strlen(left) >= 31)
			fprintf(out, "%s\n%-31s%s\n", left, "", o->help);
		else
			fprintf(out, "%-31s%s\n", left, o->help);
	}
}
