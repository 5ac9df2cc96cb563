// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mount.cryptoloop: what mount(8) runs for fstab type "cryptoloop".
 *
 *   mount.cryptoloop IMAGE DIR [-sfnv] [-N NS] [-o OPTIONS] [-t TYPE]
 *
 * It sets up the encrypted device with libloop, makes sure a filesystem
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
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libmount.h>

#include "device.h"
#include "fstab-convert.h"
#include "messages.h"
#include "mount-opts.h"
#include "unlock.h"

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
		"crypt_sizelimit= (or sizelimit=), engine=, keyfile= (or cleartextkey=),\n"
		"header= (with cipher=luks), passfd=, fstype= (still probed for), ro,\n"
		"and any option of the filesystem inside. User mounts (user, users)\n"
		"are refused. cipher=luks opens a LUKS1 or LUKS2 volume.\n"
		"\n--convert-fstab prints the cryptoloop line for every legacy\n"
		"\"loop,encryption=\" line, which stock mount(8) rejects, and the\n"
		"/dev/cryptoloopN form of every loop-AES encrypted swap line.\n"
		"\nFor more details see mount.cryptoloop(8).\n",
		program_invocation_short_name, program_invocation_short_name);
	exit(status);
}

/*
 * Only root runs the helper, and the real uid decides, before any argument
 * is acted on.  mount(8) runs the helper of a "user"/"users" line with
 * the user's ids: setting up a device needs root, and a setuid copy would
 * hand the user whatever libloop can do, and read root's files for them
 * (--convert-fstab printed a 0600 fstab's pseed=).  Nothing is read or
 * asked for first, not even a passphrase.
 */
static void refuse_users(int argc, char **argv)
{
	if (getuid() == 0)
		return;
	/* mount(8)'s call is "mount.cryptoloop IMAGE DIR ...": name the image */
	if (argc > 2 && argv[1][0] != '-')
		errx(MOUNT_EX_USAGE, "%s: user mounts of encrypted images are not supported "
		     "(\"user\"/\"users\" in fstab): only root can mount it", argv[1]);
	errx(MOUNT_EX_USAGE, "only root can run %s", program_invocation_short_name);
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
	const struct fstab_opt *o = fstab_opt_find("cipher", 6);
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs;
	char *value = NULL, *res = NULL;
	size_t len = 0;

	if (!tb)
		return NULL;
	if (mnt_table_parse_fstab(tb, NULL) == 0) {
		fs = mnt_table_find_pair(tb, source, target, MNT_ITER_FORWARD);
		if (fs && (mnt_fs_get_option(fs, o->name, &value, &len) == 0 ||
			   mnt_fs_get_option(fs, o->legacy, &value, &len) == 0) && value)
			res = strndup(value, len);
	}
	mnt_unref_table(tb);
	return res;
}

/* The source mounted on @target (the kernel's mount table), or NULL. */
static char *mounted_source(const char *target)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs;
	char *res = NULL;

	if (!tb)
		return NULL;
	if (mnt_table_parse_mtab(tb, NULL) == 0) {
		fs = mnt_table_find_target(tb, target, MNT_ITER_BACKWARD);
		if (fs && mnt_fs_get_srcpath(fs))
			res = strdup(mnt_fs_get_srcpath(fs));
	}
	mnt_unref_table(tb);
	return res;
}

/*
 * Is our parent "mount -a"? mount(8) skips the lines it finds mounted
 * and says nothing; for ours it cannot tell (the mounted device is not
 * the image), so it runs us, and we must be as quiet as it would be.
 */
static bool parent_is_mount_all(void)
{
	char path[64], buf[4096], *p, *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)getppid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	end = buf + n;
	p = strrchr(buf, '/');
	if (strcmp(p ? p + 1 : buf, "mount"))
		return false;
	for (p = buf + strlen(buf) + 1; p < end; p += strlen(p) + 1) {
		const char *c;

		if (!strcmp(p, "--all"))
			return true;
		if (p[0] != '-' || p[1] == '-')
			continue;
		/* a cluster of short options, up to one that takes a value */
		for (c = p + 1; *c && !strchr("oOtTLUNBMRwr", *c) ; c++)
			if (*c == 'a')
				return true;
	}
	return false;
}

/*
 * Is @image already mounted on @target through one of our devices?
 * Returns true with the device in *device (malloc'ed).
 */
static bool already_mounted(const char *image, const char *target, char **device)
{
	char *dev = mounted_source(target), *img = NULL, real[PATH_MAX];
	bool same;

	if (!dev)
		return false;
	same = device_image(dev, &img) == 0 && img && realpath(image, real) &&
	       !strcmp(img, real);
	free(img);
	if (same)
		*device = dev;
	else
		free(dev);
	return same;
}

/*
 * Mount @device on the helper's target through @cxt, as ourselves (no
 * helper: we are it), with @opts; says why on failure. Frees @cxt and
 * @opts; returns mount(8)'s exit code.
 */
static int run_mount(struct libmnt_context *cxt, const struct helper_args *a,
		     const char *device, char *opts)
{
	char buf[BUFSIZ] = "";
	int rc;

	mnt_context_disable_helpers(cxt, 1);
	mnt_context_set_source(cxt, device);
	mnt_context_set_target(cxt, a->target);
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

/*
 * "mount -o remount,..." (mount(8) comes back to us through the helper=
 * recorded in utab): the device stays, the filesystem is remounted with
 * the options that are the filesystem's.
 */
static int remount(const struct helper_args *a)
{
	struct libmnt_context *cxt;
	char *str, *p, *name, *val, *opts = NULL, *device;
	size_t nlen, vlen;
	int rc;

	device = mounted_source(a->target);
	if (!device)
		errx(MOUNT_EX_FAIL, "%s: not mounted", a->target);
	str = strdup(a->options ? a->options : "");
	if (!str)
		err(MOUNT_EX_SYSERR, "%s", a->target);
	p = str;
	while (mnt_optstr_next_option(&p, &name, &nlen, &val, &vlen) == 0) {
		const struct fstab_opt *o = fstab_opt_find(name, nlen);
		char *opt;

		/* ours set the device up, which stays as it is; "ro" is
		 * both, and here it is the filesystem's */
		if ((o && o->kind != FOPT_READONLY) ||
		    (nlen == 6 && !strncmp(name, "helper", 6)) ||
		    (nlen == 7 && !strncmp(name, "uhelper", 7)))
			continue;
		opt = strndup(name, val ? (size_t)(val + vlen - name) : nlen);
		if (!opt || mnt_optstr_append_option(&opts, opt, NULL))
			err(MOUNT_EX_SYSERR, "%s", a->target);
		free(opt);
	}
	free(str);
	mnt_optstr_append_option(&opts, "uhelper", "cryptoloop");
	mnt_optstr_append_option(&opts, "helper", "cryptoloop");

	cxt = mnt_new_context();
	if (!cxt)
		err(MOUNT_EX_SYSERR, "failed to allocate a libmount context");
	/* neither fstab nor mountinfo: their lines carry our options */
	mnt_context_set_optsmode(cxt, MNT_OMODE_IGNORE);
	rc = run_mount(cxt, a, device, opts);
	free(device);
	return rc;
}

static int mount_fs(const struct helper_args *a, const char *device,
		    const char *fstype, const char *options)
{
	struct libmnt_context *cxt = mnt_new_context();
	char *opts = NULL;

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
	mnt_context_set_fstype(cxt, fstype);
	return run_mount(cxt, a, device, opts);
}

int main(int argc, char **argv)
{
	struct helper_args a = { 0 };
	struct mount_request req;
	char *bad = NULL, *device = NULL, *fstype = NULL, *cipher = NULL, *where;
	struct stat st;
	int rc;

	refuse_users(argc, argv);
	parse_args(argc, argv, &a);
	mnt_init_debug(0);
	if (a.options && mnt_optstr_get_option(a.options, "remount", NULL, NULL) == 0)
		return remount(&a);

	where = fstab_line_of(a.source, a.target);
	mopt_init(&req);
	if (mopt_parse(&req, a.options, &bad) < 0)
		errx(MOUNT_EX_USAGE, "%s%s%s: bad option '%s' (missing or repeated value?)",
		     where ? where : "", where ? ": " : "", a.source, bad ? bad : "?");
	if (mopt_unlock_only(&req))
		errx(MOUNT_EX_USAGE, "%s%s%s: %s= is only for the root line of "
		     "cryptoloop-unlock(8) (x-cryptoloop.%s=)", where ? where : "",
		     where ? ": " : "", a.source, mopt_unlock_only(&req), mopt_unlock_only(&req));
	if (!mopt_given(&req, "cipher")) {
		char opt[300];

		cipher = fstab_cipher(a.source, a.target);
		if (!cipher)
			errx(MOUNT_EX_USAGE, "%s%s%s: no cipher given: add cipher=NAME to the options",
			     where ? where : "", where ? ": " : "", a.source);
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
	if (already_mounted(a.source, a.target, &device)) {
		rc = 0;
		if (!parent_is_mount_all()) {
			warnx("%s: %s is already mounted on %s", a.target, a.source, a.target);
			rc = MOUNT_EX_FAIL;
		}
		goto out;
	}
	if (req.passfd >= 0 && fcntl(req.passfd, F_GETFD) < 0)
		errx(MOUNT_EX_USAGE, "%s%s%s: passfd=%d: no such open descriptor "
		     "(open it for mount: \"mount ... %d<FILE\")", where ? where : "",
		     where ? ": " : "", a.source, req.passfd, req.passfd);

	rc = unlock_device(&req, a.source, where, &device, &fstype);
	if (rc) {
		rc = MOUNT_EX_FAIL;
		goto out;
	}
	if (req.fstype) {
		free(fstype);
		fstype = strdup(req.fstype);
	}

	rc = mount_fs(&a, device, fstype, req.fs_options);
	if (rc)
		device_teardown(device);
out:
	free(where);
	free(device);
	free(fstype);
	free(cipher);
	mopt_free(&req);
	return rc;
}
