// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mount.cryptoloop: what mount(8) runs for fstab type "cryptoloop".
 *
 *   mount.cryptoloop IMAGE DIR [-sfnv] [-N NS] [-o OPTIONS] [-t TYPE]
 *
 * It sets up the encrypted device with losetup, makes sure a filesystem
 * is really there (a wrong passphrase gives garbage, never an error from
 * the cipher), mounts it through libmount, and records
 * uhelper=cryptoloop in utab so that a plain umount tears it down.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libmount.h>

#include "device.h"
#include "fstab-convert.h"
#include "mount-opts.h"

/* mount(8)'s exit codes, which callers of helpers interpret */
#define MOUNT_EX_USAGE   1
#define MOUNT_EX_SYSERR  2
#define MOUNT_EX_FAIL    32

struct helper_args {
	const char *source;
	const char *target;
	const char *options;
	bool fake;
	bool nomtab;
	bool verbose;
	bool sloppy;
};

static void __attribute__((noreturn)) usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out, "Usage: %s IMAGE DIR [-sfnv] [-o OPTIONS]\n"
		"       %s --convert-fstab [FSTAB]\n"
		"\nMount an encrypted image (fstab type \"cryptoloop\").\n"
		"Options: cipher= (or encryption=), keybits=, phash=, pseed=, itercountk=,\n"
		"gpgkey=, gpghome=, loinit=, crypt_offset= (or offset=),\n"
		"crypt_sizelimit= (or sizelimit=), engine=, keyfile=, passfd=, fstype=, ro,\n"
		"and any option of the filesystem inside.\n"
		"\n--convert-fstab prints the cryptoloop line for every legacy\n"
		"\"loop,encryption=\" line, which stock mount(8) rejects.\n"
		"\nFor more details see mount.cryptoloop(8).\n",
		program_invocation_short_name, program_invocation_short_name);
	exit(status);
}

static void parse_args(int argc, char **argv, struct helper_args *a)
{
	int c;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		usage(0);
	if (argc > 1 && !strcmp(argv[1], "--convert-fstab")) {
		int n = fstab_convert_file(argc > 2 ? argv[2] : NULL, stdout);

		if (n < 0)
			errx(MOUNT_EX_USAGE, "%s: cannot parse: %s",
			     argc > 2 ? argv[2] : mnt_get_fstab_path(), strerror(-n));
		if (n == 0)
			fprintf(stderr, "%s: no legacy encrypted lines\n",
				argc > 2 ? argv[2] : mnt_get_fstab_path());
		exit(0);
	}
	if (argc > 1 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("%s from %s\n", program_invocation_short_name, PACKAGE_STRING);
		exit(0);
	}
	if (argc < 3)
		usage(MOUNT_EX_USAGE);
	a->source = argv[1];
	a->target = argv[2];
	optind = 3;
	while ((c = getopt(argc, argv, "sfnvo:t:N:")) != -1) {
		switch (c) {
		case 's': a->sloppy = true; break;
		case 'f': a->fake = true; break;
		case 'n': a->nomtab = true; break;
		case 'v': a->verbose = true; break;
		case 'o': a->options = optarg; break;
		case 't': break;	/* always "cryptoloop" */
		case 'N':
			errx(MOUNT_EX_USAGE, "mount namespaces (-N) are not supported");
		default:
			usage(MOUNT_EX_USAGE);
		}
	}
}

/*
 * libmount strips "encryption=" before it runs a helper; recover it
 * from the fstab entry of this source and target.
 */
static char *fstab_cipher(const char *source, const char *target)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs;
	char *value = NULL, *res = NULL;
	size_t len = 0;

	if (!tb)
		return NULL;
	if (mnt_table_parse_fstab(tb, NULL) == 0) {
		fs = mnt_table_find_pair(tb, source, target, MNT_ITER_FORWARD);
		if (fs && (mnt_fs_get_option(fs, "cipher", &value, &len) == 0 ||
			   mnt_fs_get_option(fs, "encryption", &value, &len) == 0) && value)
			res = strndup(value, len);
	}
	mnt_unref_table(tb);
	return res;
}

static int mount_fs(const struct helper_args *a, const char *device,
		    const char *fstype, const char *options)
{
	struct libmnt_context *cxt = mnt_new_context();
	char *opts = NULL, buf[BUFSIZ] = "";
	int rc;

	if (!cxt)
		err(MOUNT_EX_SYSERR, "failed to allocate a libmount context");
	if (options)
		opts = strdup(options);
	/*
	 * utab then sends umount(8) back to umount.cryptoloop: libmount 2.38
	 * honours helper= for root and uhelper= for users' umounts.
	 */
	mnt_optstr_append_option(&opts, "uhelper", "cryptoloop");
	mnt_optstr_append_option(&opts, "helper", "cryptoloop");
	mnt_context_disable_helpers(cxt, 1);
	mnt_context_set_source(cxt, device);
	mnt_context_set_target(cxt, a->target);
	mnt_context_set_fstype(cxt, fstype);
	mnt_context_set_options(cxt, opts);
	mnt_context_enable_fake(cxt, a->fake);
	mnt_context_disable_mtab(cxt, a->nomtab);
	mnt_context_enable_verbose(cxt, a->verbose);

	rc = mnt_context_mount(cxt);
	rc = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));
	if (rc && *buf)
		warnx("%s: %s", a->target, buf);
	mnt_free_context(cxt);
	free(opts);
	return rc;
}

int main(int argc, char **argv)
{
	struct helper_args a = { 0 };
	struct mount_request req;
	char *bad = NULL, *device = NULL, *fstype = NULL, *cipher = NULL;
	struct stat st;
	int rc;

	parse_args(argc, argv, &a);
	mnt_init_debug(0);
	mopt_init(&req);
	if (mopt_parse(&req, a.options, &bad) < 0)
		errx(MOUNT_EX_USAGE, "%s: bad option '%s' (missing or repeated value?)",
		     a.source, bad ? bad : "?");
	if (!mopt_given(&req, "cipher")) {
		char opt[300];

		cipher = fstab_cipher(a.source, a.target);
		if (!cipher)
			errx(MOUNT_EX_USAGE, "%s: no cipher given: add cipher=NAME to the options",
			     a.source);
		snprintf(opt, sizeof(opt), "cipher=%s", cipher);
		if (mopt_parse(&req, opt, &bad) < 0)
			errx(MOUNT_EX_USAGE, "%s: bad cipher '%s'", a.source, cipher);
	}
	if (stat(a.source, &st) != 0) {
		/* nofail: a missing image is not an error for "mount -a" */
		if (req.nofail && errno == ENOENT)
			return 0;
		err(MOUNT_EX_FAIL, "%s", a.source);
	}

	rc = device_setup(&req, a.source, &device);
	if (rc) {
		if (rc < 0)
			warnx("%s: cannot set up the encrypted device: %s", a.source, strerror(-rc));
		mopt_free(&req);
		return MOUNT_EX_FAIL;
	}

	if (req.fstype) {
		fstype = strdup(req.fstype);
	} else {
		rc = device_probe_fstype(device, &fstype);
		if (rc) {
			if (rc > 0)
				warnx("%s: no filesystem found on the decrypted device %s: "
				      "wrong passphrase or cipher?", a.source, device);
			else
				warnx("%s: cannot probe %s: %s", a.source, device, strerror(-rc));
			device_teardown(device);
			rc = MOUNT_EX_FAIL;
			goto out;
		}
	}

	rc = mount_fs(&a, device, fstype, req.fs_options);
	if (rc)
		device_teardown(device);
out:
	free(device);
	free(fstype);
	free(cipher);
	mopt_free(&req);
	return rc;
}
