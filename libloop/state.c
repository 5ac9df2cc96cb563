// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Records of attached encrypted devices: LOOP_STATE_DIR/<id>/state, one
 * "key=value" line per field. The kernel knows only the loop device (on
 * the FUSE file, or under a dm-crypt mapping); these records are how a
 * later shell learns the real image, the cipher and the daemon behind it.
 * This file only reads, writes and removes them; records.c judges them
 * against the engines.
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

int loop_state_create(const struct loop_state *st)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%s", LOOP_STATE_DIR, st->id);
	if ((mkdir(LOOP_STATE_DIR, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(dir, 0700) < 0 && errno != EEXIST))
		return -errno;
	return loop_state_write(st);
}

void loop_state_unlink(const struct loop_state *st)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, st->id);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", LOOP_STATE_DIR, st->id);
	rmdir(path);
}

int loop_state_dir_is_orphan(const char *id)
{
	char dir[PATH_MAX], state[PATH_MAX + 8];
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s/%s", LOOP_STATE_DIR, id);
	snprintf(state, sizeof(state), "%s/state", dir);
	return access(state, F_OK) < 0 && stat(dir, &sb) == 0 &&
	       time(NULL) - sb.st_mtime >= ORPHAN_GRACE_SEC;
}

int loop_state_each_id(int (*fn)(const char *id, void *data), void *data)
{
	struct dirent *de;
	DIR *d = opendir(LOOP_STATE_DIR);
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.')
			rc = fn(de->d_name, data);
	}
	closedir(d);
	return rc;
}
