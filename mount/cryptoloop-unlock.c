// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-unlock: set up the encrypted device of one fstab line, the
 * root line in an initramfs, and say which device holds the filesystem.
 *
 *   cryptoloop-unlock [--check] [--fstab FILE] MOUNTPOINT
 *   cryptoloop-unlock --image-list --kernel VERSION [--fstab FILE] MOUNTPOINT
 *
 * The line is an ordinary one for the decrypted device, the encryption
 * in x-cryptoloop.* options (the grammar of cryptoloop-generator's swap
 * lines, the same option table), because after switch_root the booted
 * system remounts "/" with those options: mount(8) and systemd ignore
 * x-* options, and would hand cipher= to the filesystem.
 *
 * Nothing is mounted but the key device, read-only, for the unlock.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libmount.h>
#include <libloop-engine.h>

#include "device.h"
#include "image-list.h"
#include "keydev.h"
#include "messages.h"
#include "root-line.h"
#include "unlock.h"

#define EX_WRONG_KEY		3
#define SOURCE_TIMEOUT_SEC	30

static void __attribute__((noreturn)) usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out, "Usage: %s [--check] [--fstab FILE] MOUNTPOINT\n"
		"       %s --image-list --kernel VERSION [--fstab FILE] MOUNTPOINT\n"
		"\nSet up the encrypted device of the fstab line of MOUNTPOINT (an\n"
		"ordinary line for the decrypted device, with x-cryptoloop.source= and\n"
		"the encryption in x-cryptoloop.* options), and print the device and\n"
		"FSTYPE=<type> of the filesystem found on it. Mounts nothing.\n"
		"\nOptions:\n"
		"  --check        validate the line and print it as shell name='value'\n"
		"                 lines; no setup, no waiting\n"
		"  --image-list   print what an initramfs for kernel VERSION needs to\n"
		"                 set the line up, one KIND VALUE line each\n"
		"  --kernel VERSION\n"
		"                 the kernel the initramfs is for (with --image-list)\n"
		"  --fstab FILE   read FILE instead of /etc/fstab\n"
		"  -h, --help     display this help\n"
		"  -V, --version  display version\n"
		"\nExit status: 0 done, 1 error, 3 wrong passphrase or key (all tries).\n"
		"\nFor more details see cryptoloop-unlock(8).\n",
		program_invocation_short_name, program_invocation_short_name);
	exit(status);
}

struct find_ctx {
	struct stat st;
	char *device;
};

static int same_image(const struct loop_state *s, void *data)
{
	struct find_ctx *c = data;

	if (loop_state_get_image_dev(s) != c->st.st_dev ||
	    loop_state_get_image_ino(s) != c->st.st_ino)
		return 0;
	c->device = strdup(loop_state_get_device(s));
	return 1;
}

/* The device already set up on @image (a second run), or NULL. */
static char *already_set_up(const char *image)
{
	struct find_ctx c = { .device = NULL };

	if (stat(image, &c.st) < 0)
		return NULL;
	loop_state_foreach(same_image, &c);
	return c.device;
}

/*
 * kmod when the module is there or loads, else dm: the dm engine needs
 * only the distribution's dm-crypt. A module the kernel refuses for its
 * signature (Secure Boot) is said on the console, with the way out, since
 * the admin chose it and the root is unlocked without it.
 * CRYPTOLOOP_UNLOCK_ENGINE replaces the choice (the test suite runs on
 * hosts with neither).
 */
static const char *choose_engine(const struct root_line *l)
{
	const char *forced = getenv("CRYPTOLOOP_UNLOCK_ENGINE");
	char why[400];
	int rc;

	if (forced && *forced)
		return forced;
	rc = loop_kmod_load();
	if (!rc)
		return "kmod";
	if (loop_kmod_refusal(rc, why, sizeof(why)))
		warnx("%s: %s; unlocking it through dm-crypt", l->target, why);
	return "dm";
}

static int unlock_line(struct root_line *l)
{
	struct keydev k = KEYDEV_INIT;
	char what[PATH_MAX + 100], *image, *device = NULL, *fstype = NULL;
	int rc;

	snprintf(what, sizeof(what), "the source %s of %s", l->source, l->target);
	image = wait_for_device(l->source, SOURCE_TIMEOUT_SEC, what);
	if (!image) {
		root_line_error(l, "the source %s did not appear within %d s", l->source,
			   SOURCE_TIMEOUT_SEC);
		return 1;
	}
	device = already_set_up(image);
	if (device) {
		rc = device_probe_fstype(device, &fstype);
		if (rc) {
			rc = root_line_error(l, "%s is already set up on %s, without a filesystem "
					"found", image, device);
			goto out;
		}
		goto print;
	}
	if (!strcasecmp(l->engine, "auto")) {
		l->engine = choose_engine(l);
		if (root_line_push_arg(&l->req, "--engine", l->engine)) {
			rc = root_line_error(l, "%s", strerror(ENOMEM));
			goto out;
		}
	}
	/*
	 * The kmod engine sets up the first field's /dev/cryptoloopN, so that
	 * the booted system's fstab names the device its root is on, and a
	 * swap line on cryptoloop0 does not find the root there.  The dm
	 * engine makes a mapping of its own: UUID= is the first field that
	 * fits both (cryptoloop-initramfs(7)).
	 */
	if (!strcasecmp(l->engine, "kmod") && is_cryptoloop_device(l->device)) {
		l->req.device = strdup(l->device);
		if (!l->req.device) {
			rc = root_line_error(l, "%s", strerror(ENOMEM));
			goto out;
		}
	}
	if (strcmp(l->fstype, "auto"))
		l->req.fstype = strdup(l->fstype);
	if (l->req.keydev && keydev_mount(l, &k) < 0) {
		rc = -1;
		goto out;
	}
	rc = unlock_device(&l->req, image, l->where, &device, &fstype);
	if (rc == UNLOCK_WRONG_KEY) {
		root_line_error(l, "the passphrase or key was wrong on every try: %s is not set up",
			   l->source);
		rc = EX_WRONG_KEY;
		goto out;
	}
	if (rc)
		goto out;
print:
	printf("%s\nFSTYPE=%s\n", device, fstype);
	rc = 0;
out:
	keydev_release(l, &k);
	free(device);
	free(fstype);
	free(image);
	return rc < 0 ? 1 : rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "fstab", required_argument, NULL, 'f' },
		{ "image-list", no_argument, NULL, 'i' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct root_line l = { .fstab = "/etc/fstab" };
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	const char *kver = NULL;
	bool check = false, image_list = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': check = true; break;
		case 'f': l.fstab = optarg; break;
		case 'i': image_list = true; break;
		case 'k': kver = optarg; break;
		case 'h': usage(0);
		case 'V':
			printf("%s from %s\n", program_invocation_short_name, PACKAGE_STRING);
			return 0;
		default: usage(1);
		}
	}
	if (optind + 1 != argc || check + image_list > 1 || !image_list != !kver)
		usage(1);
	l.target = argv[optind];
	mopt_init(&l.req);

	tb = mnt_new_table();
	if (!tb)
		errx(1, "%s", strerror(ENOMEM));
	rc = mnt_table_parse_file(tb, l.fstab);
	if (rc < 0)
		errx(1, "%s: cannot read: %s", l.fstab, strerror(-rc));
	fs = root_line_find(tb, l.target);
	if (!fs)
		errx(1, "%s: no line for %s with x-cryptoloop.source=", l.fstab, l.target);
	l.where = fstab_line_in(l.fstab, mnt_fs_get_source(fs), l.target);
	if (!l.where && asprintf(&l.where, "%s: the line of %s", l.fstab, l.target) < 0)
		errx(1, "%s", strerror(ENOMEM));
	rc = root_line_read(&l, fs) < 0 ? 1 : 0;
	if (!rc && check)
		root_line_print(&l);
	else if (!rc && image_list)
		rc = image_list_print(&l, kver) < 0 ? 1 : 0;
	else if (!rc)
		rc = unlock_line(&l);
	free(l.where);
	free(l.source);
	mopt_free(&l.req);
	mnt_unref_table(tb);
	return rc;
}
