// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Records of attached encrypted devices: LOOP_STATE_DIR/<id>/state, one
 * "key=value" line per field. The kernel knows only the loop device on
 * the FUSE file; these records are how a later shell learns the real
 * image, the cipher and the daemon behind it. A record is stale when its
 * device no longer holds what it says (detached behind our back, the
 * daemon gone, another boot); stale records are cleaned up on sight.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "private.h"
#include "engine-private.h"

/* A directory without a record is an attach in progress for this long. */
#define ORPHAN_GRACE_SEC 60

int loop_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	if (fgets(buf, (int)size, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* Start time (clock ticks since boot) of @pid, 0 when it is gone or a zombie. */
unsigned long long loop_pid_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	char state;
	ssize_t n;
	int fd, i;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name may hold anything: fields start after the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c", &state) != 1 || state == 'Z' || state == 'X')
		return 0;
	/* field 22 is starttime; p + 2 is field 3 */
	p += 2;
	for (i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &start) != 1)
		return 0;
	return start;
}

LIBLOOP_EXPORT int loop_state_daemon_alive(const struct loop_state *st)
{
	if (st->engine != LOOP_ENGINE_FUSE)
		return 1;
	return st->pid > 0 && loop_pid_start(st->pid) == st->pid_start;
}

static void set_str(char *dst, size_t size, const char *val)
{
	snprintf(dst, size, "%s", val);
}

static void parse_line(struct loop_state *st, const char *key, const char *val)
{
	unsigned long long v = strtoull(val, NULL, 10);

	if (!strcmp(key, "device")) set_str(st->device, sizeof(st->device), val);
	else if (!strcmp(key, "image")) set_str(st->image, sizeof(st->image), val);
	else if (!strcmp(key, "image_dev")) st->image_dev = (dev_t)v;
	else if (!strcmp(key, "image_ino")) st->image_ino = (ino_t)v;
	else if (!strcmp(key, "offset")) st->offset = v;
	else if (!strcmp(key, "sizelimit")) st->sizelimit = v;
	else if (!strcmp(key, "cipher")) set_str(st->cipher, sizeof(st->cipher), val);
	else if (!strcmp(key, "key_bits")) st->key_bits = (unsigned int)v;
	else if (!strcmp(key, "key_count")) st->key_count = (unsigned int)v;
	else if (!strcmp(key, "encrypt_type")) st->encrypt_type = (int)v;
	else if (!strcmp(key, "engine")) loop_engine_parse(val, &st->engine);
	else if (!strcmp(key, "read_only")) st->read_only = (int)v;
	else if (!strcmp(key, "pid")) st->pid = (pid_t)v;
	else if (!strcmp(key, "pid_start")) st->pid_start = v;
	else if (!strcmp(key, "mount")) set_str(st->mount, sizeof(st->mount), val);
	else if (!strcmp(key, "fuse_dev")) st->fuse_dev = (dev_t)v;
	else if (!strcmp(key, "fuse_ino")) st->fuse_ino = (ino_t)v;
	else if (!strcmp(key, "boot_id")) set_str(st->boot_id, sizeof(st->boot_id), val);
}

int loop_state_read(const char *id, struct loop_state *st)
{
	char path[PATH_MAX], line[PATH_MAX + 64];
	FILE *f;

	memset(st, 0, sizeof(*st));
	set_str(st->id, sizeof(st->id), id);
	snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, id);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		eq[strcspn(eq + 1, "\n") + 1] = '\0';
		parse_line(st, line, eq + 1);
	}
	fclose(f);
	return st->device[0] ? 0 : -EBADMSG;
}

int loop_state_write(const struct loop_state *st)
{
	char path[PATH_MAX + 128], tmp[PATH_MAX + 160];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, st->id);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "device=%s\nimage=%s\nimage_dev=%ju\nimage_ino=%ju\n"
		   "offset=%" PRIu64 "\nsizelimit=%" PRIu64 "\ncipher=%s\n"
		   "key_bits=%u\nkey_count=%u\nencrypt_type=%d\nengine=%s\n"
		   "read_only=%d\npid=%ld\npid_start=%llu\nmount=%s\n"
		   "fuse_dev=%ju\nfuse_ino=%ju\nboot_id=%s\n",
		st->device, st->image, (uintmax_t)st->image_dev, (uintmax_t)st->image_ino,
		st->offset, st->sizelimit, st->cipher, st->key_bits, st->key_count,
		st->encrypt_type, loop_engine_name(st->engine), st->read_only,
		(long)st->pid, st->pid_start, st->mount,
		(uintmax_t)st->fuse_dev, (uintmax_t)st->fuse_ino, st->boot_id);
	if (fflush(f) || fsync(fileno(f)))
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

/* 1 when the device still holds what the record says, 0 when not. */
static int device_matches(const struct loop_state *st)
{
	struct loopdev *ld;
	char *file = NULL, expect[PATH_MAX + 8];
	int ok = 0;

	if (loopdev_new(&ld))
		return 1;	/* cannot tell: keep the record */
	if (loopdev_set_device(ld, st->device) == 0 &&
	    loopdev_get_backing_file(ld, &file) == 0) {
		if (st->engine == LOOP_ENGINE_FUSE) {
			dev_t dev = 0;
			ino_t ino = 0;

			snprintf(expect, sizeof(expect), "%s/%s", st->mount, LOOP_FUSE_FILE);
			ok = !strcmp(file, expect);
			/* a lazily unmounted file loses its path, not its identity */
			if (!ok && st->fuse_dev &&
			    loopdev_get_backing_dev(ld, &dev, &ino) == 0)
				ok = dev == st->fuse_dev && ino == st->fuse_ino;
		} else {
			ok = !strcmp(file, st->image);
		}
	}
	free(file);
	loopdev_free(ld);
	return ok;
}

int loop_state_is_stale(const struct loop_state *st)
{
	char boot[40];

	if (loop_boot_id(boot, sizeof(boot)) == 0 && strcmp(boot, st->boot_id))
		return 1;
	return !device_matches(st);
}

/* Everything a record stands for, except the loop device, goes away. */
void loop_state_remove(const struct loop_state *st)
{
	char path[PATH_MAX];

	if (st->engine == LOOP_ENGINE_FUSE) {
		if (loop_state_daemon_alive(st))
			loop_fuse_stop_daemon(st);
		if (st->mount[0]) {
			loop_fuse_unmount(st->mount);
			rmdir(st->mount);
		}
	}
	snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, st->id);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", LOOP_STATE_DIR, st->id);
	rmdir(path);
}

/* A directory whose attach never finished (the process died midway). */
static void clean_orphan_dir(const char *id)
{
	char dir[PATH_MAX], mnt[PATH_MAX + 8], state[PATH_MAX + 8];
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s/%s", LOOP_STATE_DIR, id);
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	if (access(state, F_OK) == 0 || stat(dir, &sb) < 0 ||
	    time(NULL) - sb.st_mtime < ORPHAN_GRACE_SEC)
		return;
	loop_fuse_unmount(mnt);
	rmdir(mnt);
	rmdir(dir);
}

/* Walk the records; with @fn NULL just collect the garbage. */
static int walk(int (*fn)(const struct loop_state *st, void *data), void *data,
		int *removed)
{
	struct loop_state *st;
	struct dirent *de;
	DIR *d = opendir(LOOP_STATE_DIR);
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	st = malloc(sizeof(*st));
	if (!st) {
		closedir(d);
		return -ENOMEM;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (loop_state_read(de->d_name, st) < 0) {
			clean_orphan_dir(de->d_name);
			continue;
		}
		if (loop_state_is_stale(st)) {
			loop_state_remove(st);
			if (removed)
				(*removed)++;
			continue;
		}
		if (fn)
			rc = fn(st, data);
	}
	free(st);
	closedir(d);
	return rc;
}

LIBLOOP_EXPORT int loop_state_foreach(int (*fn)(const struct loop_state *st, void *data),
				      void *data)
{
	return walk(fn, data, NULL);
}

LIBLOOP_EXPORT int loop_state_gc(void)
{
	int removed = 0, rc = walk(NULL, NULL, &removed);

	return rc < 0 ? rc : removed;
}

struct lookup_ctx {
	const char *device;
	struct loop_state *out;
};

static int lookup_cb(const struct loop_state *st, void *data)
{
	struct lookup_ctx *l = data;

	if (strcmp(st->device, l->device))
		return 0;
	*l->out = *st;
	return 1;
}

LIBLOOP_EXPORT int loop_state_lookup(struct loopdev *ld, struct loop_state *st)
{
	struct lookup_ctx l = { loopdev_get_path(ld), st };
	int rc;

	if (!l.device)
		return -EINVAL;
	rc = walk(lookup_cb, &l, NULL);
	if (rc < 0)
		return rc;
	return rc == 1 ? 0 : -ENOENT;
}
