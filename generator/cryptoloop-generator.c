// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-generator: a systemd generator (systemd.generator(7)) for
 * the encrypted swap lines of /etc/fstab, which swapon(8) and systemd
 * cannot set up themselves because swapon runs no helper:
 *
 *   /dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,
 *       x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0
 *
 * systemd-fstab-generator makes dev-cryptoloop0.swap of that line (it
 * ignores x-* options); we add the service that sets /dev/cryptoloop0 up
 * with losetup, ordered after the source device and before the swap unit,
 * and required by it.  With phash=random (loop-AES's swap recipe) the key
 * is new on every boot and the service runs mkswap.
 *
 * loop-AES's own form (sw,loop=/dev/loopN,encryption=...) names the raw
 * partition: stock swapon(8) and systemd would swap on it unencrypted.
 * Its swap unit is made to fail, and the log says how to convert the line.
 *
 * Mount lines are not ours: systemd-fstab-generator's mount units run
 * mount(8), which runs mount.cryptoloop, which asks for passphrases
 * through the password agents.
 *
 *   cryptoloop-generator NORMAL-DIR [EARLY-DIR LATE-DIR]
 *
 * A random-key swap is also where "systemctl hibernate" would write its
 * image when the command line names no resume= device (systemd then picks
 * the active swap with the most room): the key dies at power-off and the
 * image with it. Hibernation is turned off in /run/systemd/sleep.conf.d
 * then, and the log says why.
 *
 * SYSTEMD_FSTAB names another fstab (as for systemd-fstab-generator),
 * CRYPTOLOOP_MODULES_DIR another module tree than /lib/modules/`uname -r`,
 * SYSTEMD_PROC_CMDLINE the kernel command line itself (as for systemd's
 * own generators) and CRYPTOLOOP_SLEEP_CONF_DIR another directory than
 * /run/systemd/sleep.conf.d; all are for tests, and a generator's
 * environment is PID 1's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>
#include <libmount.h>

#include "mount-opts.h"
#include "unit-name.h"
#include "xopts.h"

static const char *fstab_path;

/*
 * Say @fmt on stderr and, when systemd runs us at boot ($SYSTEMD_SCOPE),
 * on /dev/kmsg too: systemd 257 sends a generator's stderr neither to the
 * console nor to the journal, and its own generators log to the kernel's
 * buffer, which reaches both.  By hand (tests, an administrator trying an
 * fstab) stderr is enough and the kernel's log stays clean.
 */
static void __attribute__((format(printf, 2, 0))) say(int prio, const char *fmt, va_list ap)
{
	char msg[1024];
	const char *scope = getenv("SYSTEMD_SCOPE");
	int fd;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "cryptoloop-generator: %s\n", msg);
	if (!scope || strcmp(scope, "system"))
		return;
	fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	dprintf(fd, "<%d>cryptoloop-generator[%ld]: %s\n", LOG_DAEMON | prio, (long)getpid(), msg);
	close(fd);
}

static void __attribute__((format(printf, 2, 3))) gen_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(prio, fmt, ap);
	va_end(ap);
}

/* The latest swap line refused, and why: the unit that fails in its
 * place at boot says it again. */
static char last_refusal[1024];

static void __attribute__((format(printf, 3, 4))) line_say(struct libmnt_fs *fs, int prio,
							   const char *fmt, ...)
{
	char what[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(last_refusal, sizeof(last_refusal), "%s: swap line %s: %s", fstab_path,
		 mnt_fs_get_source(fs) ? mnt_fs_get_source(fs) : "?", what);
	gen_log(prio, "%s", last_refusal);
}

#define line_error(fs, ...) line_say(fs, LOG_ERR, __VA_ARGS__)

/* Is the cryptoloop module loaded, built in, or installed for this kernel? */
static bool module_available(void)
{
	static const char *const lists[] = { "modules.dep", "modules.builtin" };
	const char *dir = getenv("CRYPTOLOOP_MODULES_DIR");
	char path[512], line[4096];
	struct utsname u;
	size_t i;

	if (!dir && access("/sys/module/cryptoloop", F_OK) == 0)
		return true;
	if (!dir) {
		if (uname(&u) < 0)
			return false;
		snprintf(path, sizeof(path), "/lib/modules/%s", u.release);
		if (access(path, F_OK) < 0)
			snprintf(path, sizeof(path), "/usr/lib/modules/%s", u.release);
	} else {
		snprintf(path, sizeof(path), "%s", dir);
	}
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		char file[600];
		FILE *f;

		snprintf(file, sizeof(file), "%s/%s", path, lists[i]);
		f = fopen(file, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			/* "updates/dkms/cryptoloop.ko.xz: ..." or "kernel/.../cryptoloop.ko" */
			char *end = line + strcspn(line, ":\n");
			char *base;

			*end = '\0';
			base = strrchr(line, '/');
			base = base ? base + 1 : line;
			if (!strncmp(base, "cryptoloop.ko", 13)) {
				fclose(f);
				return true;
			}
		}
		fclose(f);
	}
	return false;
}

/*
 * N of "/dev/cryptoloopN", written as the kernel names the device: decimal
 * digits, no sign, no leading zero.  Another spelling of the same number
 * ("/dev/cryptoloop05") is another path to systemd-fstab-generator's swap
 * unit, and to swapon, than the device this service sets up.
 */
static int device_number(const char *src, unsigned int *n)
{
	static const char prefix[] = "/dev/cryptoloop";
	const char *d = src + sizeof(prefix) - 1;

	if (strncmp(src, prefix, sizeof(prefix) - 1) || !*d || (d[0] == '0' && d[1]))
		return -EINVAL;
	for (*n = 0; *d; d++) {
		if (*d < '0' || *d > '9' || *n > 1000)
			return -EINVAL;
		*n = *n * 10 + (unsigned int)(*d - '0');
	}
	return 0;
}

/* UUID=, LABEL=, PARTUUID=, PARTLABEL= as the udev link systemd waits for. */
static char *source_path(const char *src)
{
	static const char *const tags[][2] = {
		{ "UUID=", "by-uuid" }, { "LABEL=", "by-label" },
		{ "PARTUUID=", "by-partuuid" }, { "PARTLABEL=", "by-partlabel" },
	};
	char *out = NULL;
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t n = strlen(tags[i][0]);

		if (!strncmp(src, tags[i][0], n)) {
			if (strchr(src + n, '/') || asprintf(&out, "/dev/disk/%s/%s", tags[i][1],
							     src + n) < 0)
				return NULL;
			return out;
		}
	}
	return src[0] == '/' ? strdup(src) : NULL;
}

static int write_symlink(const char *dir, const char *unit, const char *wants_dir,
			 const char *target)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, wants_dir);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, wants_dir, unit);
	if (symlink(target, path) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

struct swap_line {
	unsigned int devno;
	char device[64];        /* /dev/cryptoloopN */
	char *source;           /* the backing device or file */
	struct mount_request req;
	bool random_key;
};

static void put_exec(FILE *f, const char *key, const char *const *argv, size_t n)
{
	size_t i;

	fprintf(f, "%s=", key);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(' ', f);
		unit_put_exec_word(f, argv[i]);
	}
	fputc('\n', f);
}

static int write_service(const char *dir, const char *name, const struct swap_line *s)
{
	const char *argv[80];
	char path[4096], *dev_unit = NULL, *swap_unit = NULL;
	size_t n = 0, i;
	FILE *f;
	int fd;

	swap_unit = unit_name_from_path(s->device, ".swap");
	if (!swap_unit)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		int rc = -errno;

		if (fd >= 0)
			close(fd);
		free(swap_unit);
		return rc;
	}
	fprintf(f, "# Automatically generated by cryptoloop-generator from %s\n\n", fstab_path);
	fprintf(f, "[Unit]\nDescription=Encrypted swap device %s on ", s->device);
	unit_put_text(f, s->source);
	fputc('\n', f);
	fprintf(f, "Documentation=man:cryptoloop-generator(8) man:" LOSETUP_NAME "(8)\n");
	fprintf(f, "SourcePath=%s\n", fstab_path);
	fprintf(f, "DefaultDependencies=no\n");
	fprintf(f, "Wants=modprobe@cryptoloop.service\nAfter=modprobe@cryptoloop.service\n");
	if (!strncmp(s->source, "/dev/", 5)) {
		dev_unit = unit_name_from_path(s->source, ".device");
		if (!dev_unit)
			goto fail_close;
		fprintf(f, "BindsTo=%s\nAfter=%s\n", dev_unit, dev_unit);
		/* before the mounts: mount.cryptoloop takes the first free
		 * /dev/cryptoloopN, and must not take this line's */
		fprintf(f, "Before=local-fs-pre.target\n");
	} else {
		/* a quoted word: the path may hold spaces */
		fputs("RequiresMountsFor=", f);
		unit_put_path_word(f, s->source);
		fputc('\n', f);
	}
	fprintf(f, "Before=%s\n", swap_unit);
	fprintf(f, "Conflicts=umount.target\nBefore=umount.target\n");
	fprintf(f, "\n[Service]\nType=oneshot\nRemainAfterExit=yes\n");
	/* a passphrase may be typed at the console: no time limit then */
	if (!s->random_key)
		fprintf(f, "TimeoutSec=infinity\n");
	if (s->random_key) {
		/* new keys each boot overwrite the source: only an empty
		 * one or an old swap area, device or file; with offset= and
		 * sizelimit=, in the range the swap device covers */
		const char *check[6] = { CHECK_SWAP_SOURCE_PATH };
		size_t c = 1;

		for (i = 0; i + 1 < s->req.nargs; i += 2) {
			if (c + 3 <= sizeof(check) / sizeof(check[0]) &&
			    (!strcmp(s->req.losetup_args[i], "--offset") ||
			     !strcmp(s->req.losetup_args[i], "--sizelimit"))) {
				check[c++] = s->req.losetup_args[i];
				check[c++] = s->req.losetup_args[i + 1];
			}
		}
		check[c++] = s->source;
		put_exec(f, "ExecStartPre", check, c);
	}
	argv[n++] = LOSETUP_PATH;
	argv[n++] = "--engine";
	argv[n++] = "kmod";
	for (i = 0; i < s->req.nargs && n < 75; i++)
		argv[n++] = s->req.losetup_args[i];
	/* swap through a file's page cache can wait for the memory it is
	 * freeing: the module must pin the file and use its block map */
	if (strncmp(s->source, "/dev/", 5))
		argv[n++] = "--swap";
	argv[n++] = s->device;
	argv[n++] = s->source;
	put_exec(f, "ExecStart", argv, n);
	if (s->random_key) {
		const char *mk[] = { MKSWAP_PATH, s->device };

		put_exec(f, "ExecStartPost", mk, 2);
	}
	{
		const char *d[] = { LOSETUP_PATH, "-d", s->device };

		put_exec(f, "ExecStop", d, 3);
	}
	free(dev_unit);
	if (fclose(f) != 0) {
		free(swap_unit);
		return -EIO;
	}
	{
		char target[300];
		char wants[300];
		int rc;

		snprintf(target, sizeof(target), "../%s", name);
		snprintf(wants, sizeof(wants), "%s.requires", swap_unit);
		rc = write_symlink(dir, name, wants, target);
		free(swap_unit);
		return rc;
	}

fail_close:
	fclose(f);
	free(swap_unit);
	return -ENOMEM;
}

/* The value of --engine among the losetup arguments, or NULL. */
static const char *engine_of(const struct mount_request *req)
{
	size_t i;

	for (i = 0; i + 1 < req->nargs; i++)
		if (!strcmp(req->losetup_args[i], "--engine"))
			return req->losetup_args[i + 1];
	return NULL;
}

static bool phash_random(const struct mount_request *req)
{
	size_t i;

	for (i = 0; i + 1 < req->nargs; i++)
		if (!strcmp(req->losetup_args[i], fstab_opt_find("phash", 5)->losetup) &&
		    !strcasecmp(req->losetup_args[i + 1], "random"))
			return true;
	return false;
}

/* Drop "--engine X" from the arguments: the service names kmod itself. */
static void drop_engine(struct mount_request *req)
{
	size_t i;

	for (i = 0; i + 1 < req->nargs; i++) {
		if (strcmp(req->losetup_args[i], "--engine"))
			continue;
		free(req->losetup_args[i]);
		free(req->losetup_args[i + 1]);
		memmove(&req->losetup_args[i], &req->losetup_args[i + 2],
			(req->nargs - i - 2) * sizeof(req->losetup_args[0]));
		req->nargs -= 2;
		return;
	}
}

/* The first random-key swap device set up, for the hibernation notice. */
static char random_swap[64];

static int handle_swap(struct libmnt_fs *fs, const char *dir, unsigned long *done)
{
	struct swap_line s = { 0 };
	char *raw_source = NULL, *ours = NULL, *bad = NULL, name[128];
	const char *src = mnt_fs_get_source(fs), *engine;
	int rc = -EINVAL;

	mopt_init(&s.req);
	if (xopts_collect(mnt_fs_get_options(fs), &raw_source, &ours) < 0) {
		line_error(fs, "x-cryptoloop.source= is missing, empty or repeated");
		goto out;
	}
	if (!raw_source) {
		line_error(fs, "x-cryptoloop.source= is missing: which device or file "
			   "holds the encrypted swap?");
		goto out;
	}
	if (!src || device_number(src, &s.devno) < 0 || s.devno >= 8 * sizeof(*done)) {
		line_error(fs, "the first field must be /dev/cryptoloopN (N < %zu), the "
			   "device the kmod engine makes", 8 * sizeof(*done));
		goto out;
	}
	if (*done & (1UL << s.devno)) {
		line_error(fs, "%s is already used by another swap line", src);
		goto out;
	}
	snprintf(s.device, sizeof(s.device), "%s", src);
	if (mopt_parse(&s.req, ours, &bad) < 0) {
		line_error(fs, "bad option x-cryptoloop.%s (unknown value, missing or repeated)",
			   bad ? bad : "?");
		goto out;
	}
	if (mopt_unlock_only(&s.req)) {
		line_error(fs, "x-cryptoloop.%s= is only for the root line, which "
			   "cryptoloop-unlock sets up in the initramfs", mopt_unlock_only(&s.req));
		goto out;
	}
	if (s.req.fs_options || s.req.fstype || s.req.readonly) {
		line_error(fs, "x-cryptoloop.%s is not an encryption option",
			   s.req.fs_options ? s.req.fs_options : s.req.fstype ? "fstype=" : "ro");
		goto out;
	}
	if (s.req.passfd >= 0) {
		line_error(fs, "x-cryptoloop.passfd= has no meaning at boot: the passphrase "
			   "is asked through the password agents");
		goto out;
	}
	engine = engine_of(&s.req);
	if (engine && !strcasecmp(engine, "fuse")) {
		line_error(fs, "refused: swap through the FUSE engine can deadlock (its "
			   "daemon may need memory that only swapping out would free)");
		goto out;
	}
	if (engine && strcasecmp(engine, "kmod")) {
		line_error(fs, "engine %s: swap lines use the kmod engine "
			   "(/dev/cryptoloopN)", engine);
		goto out;
	}
	drop_engine(&s.req);
	if (!module_available()) {
		line_error(fs, "the cryptoloop kernel module is not installed for this "
			   "kernel: %s cannot exist, and swap never falls back to FUSE",
			   s.device);
		goto out;
	}
	s.source = source_path(raw_source);
	if (!s.source) {
		line_error(fs, "x-cryptoloop.source=%s: not an absolute path or "
			   "UUID=/LABEL=/PARTUUID=/PARTLABEL=", raw_source);
		goto out;
	}
	if (strncmp(s.source, "/dev/", 5) && !unit_path_writable(s.source)) {
		line_error(fs, "x-cryptoloop.source: a file path with control characters "
			   "cannot be named in the unit's RequiresMountsFor=");
		goto out;
	}
	s.random_key = phash_random(&s.req);
	snprintf(name, sizeof(name), "cryptoloop-setup-cryptoloop%u.service", s.devno);
	rc = write_service(dir, name, &s);
	if (rc < 0) {
		line_error(fs, "cannot write %s/%s: %s", dir, name, strerror(-rc));
		goto out;
	}
	*done |= 1UL << s.devno;
	if (s.random_key && !*random_swap)
		snprintf(random_swap, sizeof(random_swap), "%s", s.device);
out:
	free(raw_source);
	free(ours);
	free(bad);
	free(s.source);
	mopt_free(&s.req);
	return rc;
}

/* @dir/@unit.d/50-cryptoloop-refused.conf: @unit needs @refused to start. */
static int require_refused(const char *dir, const char *unit, const char *refused)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.d", dir, unit);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s.d/50-cryptoloop-refused.conf", dir, unit);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# Automatically generated by cryptoloop-generator from %s\n", fstab_path);
	fprintf(f, "[Unit]\nRequires=%s\nAfter=%s\n", refused, refused);
	return fclose(f) ? -EIO : 0;
}

/*
 * A swap line we refused must not wait for its device: systemd-fstab-
 * generator's swap unit would wait 90 s for a /dev/cryptoloopN nobody
 * makes, on every boot.  A unit that fails at once, saying why on the
 * console and in the journal, goes under swap.target, and the swap unit
 * and the device's job require it: they fail with it, at once ("Dependency
 * failed"), and the swap never goes on, not even on a raw device named
 * in the first field.  Masking the swap unit instead would keep
 * swap.target, which requires it, and with it every other swap line from
 * starting.
 */
static void refuse_swap(const char *src, const char *dir, unsigned long *done)
{
	char *swap_unit, *dev_unit = NULL, name[300], path[4096], target[320];
	const char *echo[] = { "/bin/echo", last_refusal };
	const char *fail[] = { "/bin/false" };
	bool ours = false;
	unsigned int n;
	FILE *f;

	if (!src || *src != '/')
		return;
	/* the first line that names a device has it: a later one never
	 * touches an earlier line's units */
	if (device_number(src, &n) == 0 && n < 8 * sizeof(*done)) {
		if (*done & (1UL << n))
			return;
		*done |= 1UL << n;
		ours = true;
	}
	swap_unit = unit_name_from_path(src, ".swap");
	if (!swap_unit)
		return;
	snprintf(name, sizeof(name), "cryptoloop-refused-%.*s.service",
		 (int)(strlen(swap_unit) - strlen(".swap")), swap_unit);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wx");
	if (!f) {
		gen_log(LOG_ERR, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	fprintf(f, "# Automatically generated by cryptoloop-generator from %s\n\n", fstab_path);
	fputs("[Unit]\nDescription=Refused swap line ", f);
	unit_put_text(f, src);
	fprintf(f, " in %s\n", fstab_path);
	fprintf(f, "Documentation=man:cryptoloop-generator(8)\n");
	fprintf(f, "SourcePath=%s\nDefaultDependencies=no\nBefore=swap.target\n", fstab_path);
	fprintf(f, "\n[Service]\nType=oneshot\nStandardOutput=journal+console\n");
	put_exec(f, "ExecStart", echo, 2);
	put_exec(f, "ExecStart", fail, 1);
	if (fclose(f) != 0) {
		gen_log(LOG_ERR, "cannot write %s", path);
		goto out;
	}
	snprintf(target, sizeof(target), "../%s", name);
	if (write_symlink(dir, name, "swap.target.wants", target) < 0)
		gen_log(LOG_ERR, "cannot add %s to swap.target", name);
	if (require_refused(dir, swap_unit, name) < 0)
		gen_log(LOG_ERR, "cannot make %s require %s", swap_unit, name);
	/* only for a device of ours: a real disk's job must not fail */
	dev_unit = ours ? unit_name_from_path(src, ".device") : NULL;
	if (dev_unit && require_refused(dir, dev_unit, name) < 0)
		gen_log(LOG_ERR, "cannot make %s require %s", dev_unit, name);
out:
	free(dev_unit);
	free(swap_unit);
}

/*
 * loop-AES's "sw,loop=/dev/loopN,encryption=X" names the raw partition:
 * refused in place like a line we cannot set up, so that its swap unit
 * fails at once and swapon never runs on the partition unencrypted.
 */
static void refuse_legacy(struct libmnt_fs *fs, const char *dir, unsigned long *done)
{
	const char *src = mnt_fs_get_source(fs);
	char *path = src ? source_path(src) : NULL;

	if (!path) {
		line_error(fs, "loop-AES encrypted swap line with an unusable source");
		return;
	}
	line_say(fs, LOG_WARNING, "loop-AES form (loop=, encryption=): swapon(8) would use %s "
		 "unencrypted, so the line is refused; convert it with "
		 "\"mount.cryptoloop --convert-fstab\" (see cryptoloop-generator(8))", path);
	refuse_swap(path, dir, done);
	free(path);
}

/*
 * A cryptoloop line's mount job may wait for a person at the console (the
 * passphrase, asked again after a typo): no time limit, as systemd-
 * cryptsetup's questions have none.  Not when the line sets one itself.
 */
static int mount_no_timeout(struct libmnt_fs *fs, const char *dir)
{
	const char *target = mnt_fs_get_target(fs), *opts = mnt_fs_get_options(fs);
	char *unit, path[4096];
	FILE *f;
	int rc = 0;

	if (!mnt_fs_get_fstype(fs) || strcmp(mnt_fs_get_fstype(fs), "cryptoloop") ||
	    !target || *target != '/')
		return 0;
	if (opts && mnt_optstr_get_option(opts, "x-systemd.mount-timeout", NULL, NULL) == 0)
		return 0;
	unit = unit_name_from_path(target, ".mount");
	if (!unit)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s.d", dir, unit);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		rc = -errno;
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/%s.d/50-cryptoloop-no-timeout.conf", dir, unit);
	f = fopen(path, "w");
	if (!f) {
		rc = -errno;
		goto fail;
	}
	fprintf(f, "# Automatically generated by cryptoloop-generator from %s\n", fstab_path);
	fprintf(f, "# the passphrase may be typed at the console: no time limit\n");
	fprintf(f, "[Mount]\nTimeoutSec=infinity\n");
	if (fclose(f) != 0)
		rc = -EIO;
	if (!rc)
		goto out;
fail:
	gen_log(LOG_ERR, "%s: cannot write %s: %s", fstab_path, path, strerror(-rc));
out:
	free(unit);
	return rc;
}

/* Does the kernel command line name a resume= device? */
static bool cmdline_has_resume(void)
{
	const char *env = getenv("SYSTEMD_PROC_CMDLINE");
	char buf[4096], *word, *save = NULL;
	size_t n = 0;
	FILE *f;

	if (env) {
		snprintf(buf, sizeof(buf), "%s", env);
	} else {
		f = fopen("/proc/cmdline", "re");
		if (f) {
			n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
		}
		buf[n] = '\0';
	}
	for (word = strtok_r(buf, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save))
		if (!strncmp(word, "resume=", 7) && word[7])
			return true;
	return false;
}

/*
 * With resume= systemd hibernates only to that device; without it, to the
 * random-key swap, which no boot can read back. Our drop-in goes again
 * when no such swap is set up (a daemon-reload after the line changed).
 */
static int sleep_conf(void)
{
	const char *dir = getenv("CRYPTOLOOP_SLEEP_CONF_DIR");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		dir = "/run/systemd/sleep.conf.d";
	snprintf(path, sizeof(path), "%s/50-cryptoloop.conf", dir);
	if (!*random_swap || cmdline_has_resume()) {
		if (unlink(path) < 0 && errno != ENOENT) {
			gen_log(LOG_ERR, "cannot remove %s: %s", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		gen_log(LOG_ERR, "cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	f = fopen(path, "we");
	if (!f) {
		gen_log(LOG_ERR, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# Automatically generated by cryptoloop-generator from %s\n", fstab_path);
	fprintf(f, "# swap %s has a random key: a hibernation image there could never\n"
		"# be read back. Set resume= to a persistent swap to hibernate.\n", random_swap);
	fprintf(f, "[Sleep]\nAllowHibernation=no\nAllowSuspendThenHibernate=no\n"
		"AllowHybridSleep=no\n");
	if (fclose(f) != 0) {
		gen_log(LOG_ERR, "cannot write %s", path);
		return -1;
	}
	gen_log(LOG_NOTICE, "hibernation disabled: swap %s has a random key; set resume= "
		"to a persistent swap to hibernate", random_swap);
	return 0;
}

int main(int argc, char **argv)
{
	struct libmnt_table *tb;
	struct libmnt_iter *it;
	struct libmnt_fs *fs;
	unsigned long done = 0;
	const char *normal;
	int status = 0, rc;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "Usage: %s NORMAL-DIR [EARLY-DIR LATE-DIR]\n"
			"A systemd generator: see cryptoloop-generator(8).\n",
			program_invocation_short_name);
		return 1;
	}
	normal = argv[1];
	fstab_path = getenv("SYSTEMD_FSTAB");
	if (!fstab_path || !*fstab_path)
		fstab_path = "/etc/fstab";
	/* SourcePath= takes it raw, specifiers expanded: keep it plain */
	if (!unit_path_writable(fstab_path) || strpbrk(fstab_path, "%\\")) {
		gen_log(LOG_ERR, "SYSTEMD_FSTAB: a path with control "
			"characters, '%%' or '\\' cannot be the units' SourcePath=");
		return 1;
	}
	umask(022);

	tb = mnt_new_table();
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!tb || !it) {
		gen_log(LOG_ERR, "out of memory");
		return 1;
	}
	rc = mnt_table_parse_file(tb, fstab_path);
	if (rc < 0 && access(fstab_path, F_OK) == 0) {
		gen_log(LOG_ERR, "%s: cannot parse: %s", fstab_path,
			strerror(-rc));
		status = 1;
	}
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		char *v = NULL;
		size_t l = 0;
		const char *opts = mnt_fs_get_options(fs);

		if (!mnt_fs_is_swaparea(fs)) {
			if (mount_no_timeout(fs, normal) < 0)
				status = 1;
			continue;
		}
		if (!opts)
			continue;
		if (strstr(opts, XOPT_PREFIX)) {
			if (handle_swap(fs, normal, &done) < 0) {
				refuse_swap(mnt_fs_get_source(fs), normal, &done);
				status = 1;
			}
		} else if (mnt_optstr_get_option(opts, "encryption", &v, &l) == 0) {
			refuse_legacy(fs, normal, &done);
		}
	}
	if (sleep_conf() < 0)
		status = 1;
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return status;
}
