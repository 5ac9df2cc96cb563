// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-unlock: set up the encrypted device of one fstab line, the
 * root line in an initramfs, and say which device holds the filesystem.
 *
 *   cryptoloop-unlock [--check] [--fstab FILE] MOUNTPOINT
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
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <blkid.h>
#include <libmount.h>
#include <libloop-engine.h>

#include "device.h"
#include "messages.h"
#include "mount-opts.h"
#include "spawn.h"
#include "unlock.h"
#include "xopts.h"

#define EX_WRONG_KEY		3
#define SOURCE_TIMEOUT_SEC	30
#define KEYDEV_TIMEOUT_SEC	30
/* the key device's mount point: a dot name, which libloop's walk over
 * its records in the same directory passes by */
#define KEYDEV_DIR_TEMPLATE	LOOP_STATE_DIR "/.keydev-XXXXXX"

struct root_line {
	const char *fstab;
	const char *target;
	char *where;		/* "FSTAB:N", or "FSTAB: the line of TARGET" */
	const char *device;	/* first field */
	const char *fstype;	/* third field */
	char *source;
	const char *engine;	/* "auto" when not given */
	const char *gpgkey, *keyfile;
	unsigned int keydev_timeout;
	struct mount_request req;
};

static void __attribute__((noreturn)) usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out, "Usage: %s [--check] [--fstab FILE] MOUNTPOINT\n"
		"\nSet up the encrypted device of the fstab line of MOUNTPOINT (an\n"
		"ordinary line for the decrypted device, with x-cryptoloop.source= and\n"
		"the encryption in x-cryptoloop.* options), and print the device and\n"
		"FSTYPE=<type> of the filesystem found on it. Mounts nothing.\n"
		"\nOptions:\n"
		"  --check        validate the line and print it as shell name='value'\n"
		"                 lines; no setup, no waiting\n"
		"  --fstab FILE   read FILE instead of /etc/fstab\n"
		"  -h, --help     display this help\n"
		"  -V, --version  display version\n"
		"\nExit status: 0 done, 1 error, 3 wrong passphrase or key (all tries).\n"
		"\nFor more details see cryptoloop-unlock(8).\n",
		program_invocation_short_name);
	exit(status);
}

/* fstab's field, or the first field's device: a shell word for eval */
static void put_value(const char *name, const char *value)
{
	const char *p;

	printf("%s='", name);
	for (p = value ? value : ""; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*p);
	}
	puts("'");
}

/* The value of losetup long option @opt among the request's arguments. */
static char **arg_of(struct mount_request *req, const char *opt)
{
	size_t i;

	for (i = 0; i + 1 < req->nargs; i += 2)
		if (!strcmp(req->losetup_args[i], opt))
			return &req->losetup_args[i + 1];
	return NULL;
}

static int push_arg(struct mount_request *req, const char *a, const char *b)
{
	if (req->nargs + 2 >= sizeof(req->losetup_args) / sizeof(req->losetup_args[0]))
		return -E2BIG;
	req->losetup_args[req->nargs] = strdup(a);
	req->losetup_args[req->nargs + 1] = strdup(b);
	req->nargs += 2;
	return req->losetup_args[req->nargs - 2] && req->losetup_args[req->nargs - 1] ?
	       0 : -ENOMEM;
}

static int __attribute__((format(printf, 2, 3))) line_error(const struct root_line *l,
							    const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", program_invocation_short_name, l->where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* The first line of @fstab for @target with x-cryptoloop.source=. */
static struct libmnt_fs *find_line(struct libmnt_table *tb, const char *target)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs, *found = NULL;

	if (!it)
		return NULL;
	while (!found && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *opts = mnt_fs_get_options(fs);

		if (mnt_fs_get_target(fs) && !strcmp(mnt_fs_get_target(fs), target) && opts &&
		    strstr(opts, XOPT_PREFIX "source="))
			found = fs;
	}
	mnt_free_iter(it);
	return found;
}

static int parse_timeout(const struct root_line *l, const char *v, unsigned int *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (!*v || *end || errno || n > 3600 || *v == '-' || *v == '+')
		return line_error(l, "x-cryptoloop.keydev-timeout=%s: not a number of "
				  "seconds from 0 to 3600", v);
	*out = (unsigned int)n;
	return 0;
}

/* Read and check the line's options into @l; messages name the line. */
static int read_line(struct root_line *l, struct libmnt_fs *fs)
{
	char *ours = NULL, *bad = NULL, **v;
	int rc = -1;

	l->device = mnt_fs_get_source(fs);
	l->fstype = mnt_fs_get_fstype(fs);
	if (!l->device || !l->fstype)
		return line_error(l, "the line needs a device and a filesystem type");
	if (xopts_collect(mnt_fs_get_options(fs), &l->source, &ours) < 0)
		return line_error(l, "x-cryptoloop.source= is empty or repeated");
	if (mopt_parse(&l->req, ours, &bad) < 0) {
		line_error(l, "bad option x-cryptoloop.%s (unknown value, missing or repeated)",
			   bad ? bad : "?");
		goto out;
	}
	if (l->req.fs_options || l->req.fstype || l->req.readonly) {
		line_error(l, "x-cryptoloop.%s is not an encryption option",
			   l->req.fs_options ? l->req.fs_options :
			   l->req.fstype ? "fstype=" : "ro");
		goto out;
	}
	if (l->req.passfd >= 0) {
		line_error(l, "x-cryptoloop.passfd= has no meaning at boot: the passphrase "
			   "is asked for");
		goto out;
	}
	if (!mopt_given(&l->req, "cipher")) {
		line_error(l, "no cipher: add x-cryptoloop.encryption=NAME");
		goto out;
	}
	v = arg_of(&l->req, "--phash");
	if (v && !strcasecmp(*v, "random")) {
		line_error(l, "x-cryptoloop.phash=random: a new key on every boot "
			   "cannot hold a filesystem");
		goto out;
	}
	v = arg_of(&l->req, "--engine");
	l->engine = v ? *v : "auto";
	if (!strcasecmp(l->engine, "fuse") || !strcasecmp(l->engine, "xfer")) {
		line_error(l, "x-cryptoloop.engine=%s: only kmod or dm can hold a root "
			   "filesystem (%s)", l->engine, !strcasecmp(l->engine, "fuse") ?
			   "the FUSE daemon does not outlive the initramfs" :
			   "xfer is a loop-AES module the kernel must carry");
		goto out;
	}
	if (strcasecmp(l->engine, "kmod") && strcasecmp(l->engine, "dm") &&
	    strcasecmp(l->engine, "auto")) {
		line_error(l, "x-cryptoloop.engine=%s: kmod, dm or auto", l->engine);
		goto out;
	}
	v = arg_of(&l->req, "--gpgkey");
	l->gpgkey = v ? *v : NULL;
	v = arg_of(&l->req, "--cleartext-keyfile");
	l->keyfile = v ? *v : NULL;
	l->keydev_timeout = KEYDEV_TIMEOUT_SEC;
	if (l->req.keydev_timeout && parse_timeout(l, l->req.keydev_timeout,
						   &l->keydev_timeout) < 0)
		goto out;
	if (l->req.keydev && !l->gpgkey && !l->keyfile) {
		line_error(l, "x-cryptoloop.keydev= names where the key file is: add "
			   "x-cryptoloop.gpgkey= or x-cryptoloop.keyfile=");
		goto out;
	}
	if (l->req.keydev && ((l->gpgkey && *l->gpgkey != '/') ||
			      (l->keyfile && *l->keyfile != '/'))) {
		line_error(l, "with x-cryptoloop.keydev= the key file is an absolute "
			   "path on that device");
		goto out;
	}
	rc = 0;
out:
	free(ours);
	free(bad);
	return rc;
}

static void print_check(const struct root_line *l)
{
	char timeout[16];

	snprintf(timeout, sizeof(timeout), "%u", l->keydev_timeout);
	put_value("device", l->device);
	put_value("fstype", l->fstype);
	put_value("source", l->source);
	put_value("engine", l->engine);
	put_value("gpgkey", l->gpgkey);
	put_value("keyfile", l->keyfile);
	put_value("keydev", l->req.keydev);
	put_value("keydev_timeout", timeout);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* @spec (TAG=value or a path) as a path that exists, or NULL. */
static char *resolve(const char *spec)
{
	char *path = blkid_evaluate_spec(spec, NULL);

	if (path && access(path, F_OK) < 0) {
		free(path);
		path = NULL;
	}
	return path;
}

/*
 * @spec as a path, waiting up to @timeout seconds for it to appear (udev
 * may still be making the disk's links) after saying so once: @what
 * names it for that message.
 */
static char *wait_for(const char *spec, unsigned int timeout, const char *what)
{
	double end = now() + timeout;
	char *path = resolve(spec);

	if (path || !timeout)
		return path;
	fprintf(stderr, "%s: waiting up to %u s for %s\n", program_invocation_short_name,
		timeout, what);
	while (!path && now() < end) {
		struct timespec half = { 0, 500000000L };

		nanosleep(&half, NULL);
		path = resolve(spec);
	}
	return path;
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
 * only the distribution's dm-crypt. CRYPTOLOOP_UNLOCK_ENGINE replaces the
 * choice (the test suite runs on hosts with neither).
 */
static const char *choose_engine(void)
{
	static const char *const modprobe[] = { "/sbin/modprobe", "/usr/sbin/modprobe" };
	char *argv[] = { "modprobe", "-q", "cryptoloop", NULL };
	const char *forced = getenv("CRYPTOLOOP_UNLOCK_ENGINE");
	int status;
	size_t i;
	pid_t pid;

	if (forced && *forced)
		return forced;
	if (access("/sys/module/cryptoloop", F_OK) == 0)
		return "kmod";
	for (i = 0; i < sizeof(modprobe) / sizeof(modprobe[0]); i++) {
		if (loop_spawn(modprobe[i], argv, NULL, NULL, 0, 0, &pid) < 0)
			continue;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status))
			return "kmod";
		break;
	}
	return "dm";
}

struct keydev {
	char dir[sizeof(KEYDEV_DIR_TEMPLATE)];
	bool made, mounted;
};

static void keydev_release(const struct root_line *l, struct keydev *k)
{
	if (k->mounted && umount2(k->dir, 0) < 0)
		line_error(l, "cannot unmount the key device from %s: %s", k->dir,
			   strerror(errno));
	else if (k->made && rmdir(k->dir) < 0)
		line_error(l, "cannot remove %s: %s", k->dir, strerror(errno));
}

/*
 * Wait for the key device, mount it read-only on a private directory, and
 * make the key file option a path under it.
 */
static int keydev_mount(struct root_line *l, struct keydev *k)
{
	const char *key = l->gpgkey ? l->gpgkey : l->keyfile;
	char what[PATH_MAX + 200], *dev, *type = NULL, *path, **v;
	int rc;

	snprintf(what, sizeof(what), "the key device %s holding %s for %s", l->req.keydev,
		 key, l->target);
	dev = wait_for(l->req.keydev, l->keydev_timeout, what);
	if (!dev)
		return line_error(l, "the key device %s did not appear within %u s",
				  l->req.keydev, l->keydev_timeout);
	rc = device_probe_fstype(dev, &type);
	if (rc) {
		line_error(l, "key device %s (%s): %s", l->req.keydev, dev,
			   rc > 0 ? "no filesystem found" : strerror(-rc));
		goto out;
	}
	if (mkdir(LOOP_STATE_DIR, 0700) < 0 && errno != EEXIST) {
		rc = line_error(l, "cannot make %s: %s", LOOP_STATE_DIR, strerror(errno));
		goto out;
	}
	memcpy(k->dir, KEYDEV_DIR_TEMPLATE, sizeof(k->dir));
	if (!mkdtemp(k->dir)) {
		rc = line_error(l, "cannot make a directory in %s: %s", LOOP_STATE_DIR,
				strerror(errno));
		goto out;
	}
	k->made = true;
	if (mount(dev, k->dir, type, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		rc = line_error(l, "cannot mount the key device %s (%s, %s) read-only: %s",
				l->req.keydev, dev, type, strerror(errno));
		goto out;
	}
	k->mounted = true;
	v = arg_of(&l->req, l->gpgkey ? "--gpgkey" : "--cleartext-keyfile");
	if (asprintf(&path, "%s%s", k->dir, key) < 0) {
		rc = line_error(l, "%s", strerror(ENOMEM));
		goto out;
	}
	free(*v);
	*v = path;
	rc = 0;
out:
	free(type);
	free(dev);
	return rc;
}

static int unlock_line(struct root_line *l)
{
	struct keydev k = { .made = false };
	char what[PATH_MAX + 100], *image, *device = NULL, *fstype = NULL;
	int rc;

	snprintf(what, sizeof(what), "the source %s of %s", l->source, l->target);
	image = wait_for(l->source, SOURCE_TIMEOUT_SEC, what);
	if (!image) {
		line_error(l, "the source %s did not appear within %d s", l->source,
			   SOURCE_TIMEOUT_SEC);
		return 1;
	}
	device = already_set_up(image);
	if (device) {
		rc = device_probe_fstype(device, &fstype);
		if (rc) {
			rc = line_error(l, "%s is already set up on %s, without a filesystem "
					"found", image, device);
			goto out;
		}
		goto print;
	}
	if (!strcasecmp(l->engine, "auto") && push_arg(&l->req, "--engine", choose_engine())) {
		rc = line_error(l, "%s", strerror(ENOMEM));
		goto out;
	}
	if (strcmp(l->fstype, "auto"))
		l->req.fstype = strdup(l->fstype);
	if (l->req.keydev && keydev_mount(l, &k) < 0) {
		rc = -1;
		goto out;
	}
	rc = unlock_device(&l->req, image, l->where, &device, &fstype);
	if (rc == UNLOCK_WRONG_KEY) {
		line_error(l, "the passphrase or key was wrong on every try: %s is not set up",
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
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct root_line l = { .fstab = "/etc/fstab" };
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	bool check = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': check = true; break;
		case 'f': l.fstab = optarg; break;
		case 'h': usage(0);
		case 'V':
			printf("%s from %s\n", program_invocation_short_name, PACKAGE_STRING);
			return 0;
		default: usage(1);
		}
	}
	if (optind + 1 != argc)
		usage(1);
	l.target = argv[optind];
	mopt_init(&l.req);

	tb = mnt_new_table();
	if (!tb)
		errx(1, "%s", strerror(ENOMEM));
	rc = mnt_table_parse_file(tb, l.fstab);
	if (rc < 0)
		errx(1, "%s: cannot read: %s", l.fstab, strerror(-rc));
	fs = find_line(tb, l.target);
	if (!fs)
		errx(1, "%s: no line for %s with x-cryptoloop.source=", l.fstab, l.target);
	l.where = fstab_line_in(l.fstab, mnt_fs_get_source(fs), l.target);
	if (!l.where && asprintf(&l.where, "%s: the line of %s", l.fstab, l.target) < 0)
		errx(1, "%s", strerror(ENOMEM));
	rc = read_line(&l, fs) < 0 ? 1 : 0;
	if (!rc && check)
		print_check(&l);
	else if (!rc)
		rc = unlock_line(&l);
	free(l.where);
	free(l.source);
	mopt_free(&l.req);
	mnt_unref_table(tb);
	return rc;
}
