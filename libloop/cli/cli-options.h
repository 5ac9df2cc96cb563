/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command-line option tables of losetup, cryptoloop-reencrypt and
 * mount.cryptoloop (cli-options.c, in libloopcli.la: not part of
 * libloop's ABI). One row per option drives getopt_long(), the --help
 * line and, for the key options, the fstab name, so none of them can
 * drift from another.
 */
#ifndef LIBLOOP_CLI_OPTIONS_H
#define LIBLOOP_CLI_OPTIONS_H

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/* Codes of options without a short letter. */
enum {
	OPT_SIZELIMIT = CHAR_MAX + 1,
	OPT_SHOW,
	OPT_RAW,
	OPT_DIO,
	OPT_OUTPUT_ALL,
	OPT_REF,
	OPT_CLEARTEXT_KEYFILE,
	OPT_LIST_CIPHERS,
	OPT_ENGINE,
	OPT_ALLOW_SHORT,
	OPT_ALLOW_EMPTY,
	OPT_FORCE,
	OPT_SWAP,
	OPT_LUKS_HEADER,
	OPT_OWN = 1000,		/* a program's own codes start here */
};

enum opt_section {
	SEC_COMMANDS,
	SEC_SETUP,
	SEC_OUTPUT,
	SEC_HELP,
	SEC_CRYPT,	/* losetup's own, printed after all of util-linux's text */
	SEC_HIDDEN,	/* still accepted, never listed */
};

struct opt_desc {
	const char *name;	/* long name */
	int has_arg;
	int val;		/* short letter, or OPT_* */
	const char *arg;	/* argument shown in --help */
	const char *help;
	enum opt_section section;
};

/*
 * The key options: those of loop_attach() (libloop-attach.h), set by
 * their long name through loop_attach_opt_set(), and the image's offset
 * and size limit. Each program takes its rows from this one list:
 *
 *   X(code, long name, has_arg, --help argument, --help text,
 *     losetup's --help section,
 *     in cryptoloop-reencrypt (0/1),
 *     in fstab (0/1), fstab name, loop-AES's fstab name, fstab kind,
 *     names where the secret comes from (0/1))
 *
 * The fstab kind is FOPT_<kind> of mount/fstab-options.h. Adding a key
 * option is a row here and its handling in libloop's attach-opts.c.
 * Rows that loop_attach_opt_set() does not know (offset, sizelimit) are
 * each program's to handle. cryptoloop-reencrypt takes neither --header
 * (its own --header is the new LUKS2 header), --engine nor --force: it
 * attaches nothing.
 */
#define LOOP_KEY_OPTIONS(X) \
	X('e', "encryption", required_argument, "<name>", "encrypt with cipher <name> (see losetup --list-ciphers)", \
	  SEC_CRYPT, 1, 1, "cipher", "encryption", LOSETUP, 0) \
	X('k', "keybits", required_argument, "<num>", "key size in bits", \
	  SEC_CRYPT, 1, 1, "keybits", NULL, LOSETUP, 0) \
	X('p', "pass-fd", required_argument, "<fd>", "read the passphrase (or key lines) from <fd>", \
	  SEC_CRYPT, 1, 1, "passfd", NULL, PASSFD, 1) \
	X('T', "verify-passphrase", no_argument, NULL, "ask for the passphrase twice", \
	  SEC_CRYPT, 1, 0, NULL, NULL, LOSETUP, 0) \
	X('H', "phash", required_argument, "<hash>", "loop-AES passphrase hash (sha256, rmd160, ..., random)", \
	  SEC_CRYPT, 1, 1, "phash", NULL, LOSETUP, 0) \
	X('K', "gpgkey", required_argument, "<file>", "loop-AES gpg encrypted key file", \
	  SEC_CRYPT, 1, 1, "gpgkey", NULL, LOSETUP, 1) \
	X('G', "gpghome", required_argument, "<dir>", "gpg home directory for --gpgkey", \
	  SEC_CRYPT, 1, 1, "gpghome", NULL, LOSETUP, 1) \
	/* loop-AES's mount took the cleartext key file (its losetup -P) as \
	 * cleartextkey=; ours is keyfile=, and both mean the same */ \
	X(OPT_CLEARTEXT_KEYFILE, "cleartext-keyfile", required_argument, "<file>", "loop-AES key file in clear text (loop-AES -P)", \
	  SEC_CRYPT, 1, 1, "keyfile", "cleartextkey", LOSETUP, 1) \
	X('S', "pseed", required_argument, "<seed>", "loop-AES passphrase seed", \
	  SEC_CRYPT, 1, 1, "pseed", NULL, LOSETUP, 1) \
	X('C', "itercountk", required_argument, "<num>", "loop-AES: <num> thousand key iterations", \
	  SEC_CRYPT, 1, 1, "itercountk", NULL, LOSETUP, 1) \
	X('I', "loinit", required_argument, "<num>", "IV offset: sector number of the first sector", \
	  SEC_CRYPT, 1, 1, "loinit", NULL, LOSETUP, 0) \
	X(OPT_ALLOW_SHORT, "allow-short-passphrase", no_argument, NULL, "accept loop-AES passphrases under 20 characters", \
	  SEC_CRYPT, 1, 0, NULL, NULL, LOSETUP, 0) \
	X(OPT_ALLOW_EMPTY, "allow-empty-passphrase", no_argument, NULL, "accept an empty passphrase (with -e aes, an all-zero key)", \
	  SEC_CRYPT, 1, 0, NULL, NULL, LOSETUP, 0) \
	/* cipher=luks: a detached LUKS header (cryptsetup's --header) */ \
	X(OPT_LUKS_HEADER, "header", required_argument, "<file>", "with -e luks (and -c on its mapping): the detached LUKS header", \
	  SEC_CRYPT, 0, 1, "header", NULL, LOSETUP, 0) \
	X(OPT_ENGINE, "engine", required_argument, "<name>", "kmod, xfer, dm, fuse or auto (default)", \
	  SEC_CRYPT, 0, 1, "engine", NULL, LOSETUP, 0) \
	X(OPT_FORCE, "force", no_argument, NULL, "attach an image already in use; -H random on FUSE", \
	  SEC_CRYPT, 0, 0, NULL, NULL, LOSETUP, 0) \
	/* mount(8) acts on offset= and sizelimit= itself (a plain loop \
	 * device), so a cryptoloop line names them crypt_* */ \
	X('o', "offset", required_argument, "<num>", "start at offset <num> into file", \
	  SEC_SETUP, 1, 1, "crypt_offset", "offset", LOSETUP, 0) \
	X(OPT_SIZELIMIT, "sizelimit", required_argument, "<num>", "device is limited to <num> bytes of the file", \
	  SEC_SETUP, 1, 1, "crypt_sizelimit", "sizelimit", LOSETUP, 0)

/* Expanders: a row in a program's table only where its column is 1. */
#define LOOP_KEY_IF_0(...)
#define LOOP_KEY_IF_1(...) __VA_ARGS__
#define LOOP_KEY_IF(flag, ...) LOOP_KEY_IF_##flag(__VA_ARGS__)

/* A key option as a row of a getopt table. */
#define LOOP_KEY_ROW(code, name, has_arg, arg, help, sec) \
	{ name, has_arg, code, arg, help, sec }
/* The X of a table that takes every row. */
#define LOOP_KEY_ANY_ROW(code, name, has_arg, arg, help, sec, ...) \
	LOOP_KEY_ROW(code, name, has_arg, arg, help, sec),

/* All of them, in the list's order. */
extern const struct opt_desc key_opts[];
extern const size_t key_opts_count;

/* A table of rows; a program's options may come from several. */
struct opt_table {
	const struct opt_desc *rows;
	size_t n;
};

#define OPT_MAX 64

/*
 * Fill getopt_long()'s arrays from the rows of @t[0..@nt): @longopts
 * holds OPT_MAX + 1 entries, @shortopts 3 * OPT_MAX + 1 chars.
 */
void opt_build_getopt(const struct opt_table *t, size_t nt, struct option *longopts,
		      char *shortopts);
/* The row of option code @val, or NULL. */
const struct opt_desc *opt_find(const struct opt_table *t, size_t nt, int val);
/* One --help line (or two, when the left part is long). */
void opt_print_row(FILE *out, const struct opt_desc *o);
/* The --help lines of section @sec, table by table. */
void opt_print_section(FILE *out, const struct opt_table *t, size_t nt, enum opt_section sec);
/* The key option of code @val, or NULL. */
const struct opt_desc *key_opt_find(int val);

#endif
