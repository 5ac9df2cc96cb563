// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * keyfile_open(): what a key device may hold instead of a key file. A
 * directory stands for the mounted stick; what it refuses does not depend
 * on the filesystem.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../mount/keyfile.h"
#include "tap.h"

static char top[PATH_MAX], stick[PATH_MAX + 16];

/* @name on the stick (the next call reuses the buffer) */
static const char *at(const char *name)
{
	static char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", stick, name);
	return path;
}

static void put(const char *name, const char *text)
{
	const char *path = at(name);
	FILE *f;

	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f)) {
		perror(path);
		exit(99);
	}
}

static void sized(const char *name, off_t size)
{
	const char *path = at(name);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, size) < 0 || close(fd) < 0) {
		perror(path);
		exit(99);
	}
}

/* keyfile_open() of @name: the errno, 0 for a descriptor, and the reason */
static int try(const char *name, char *why, size_t size)
{
	int fd;

	why[0] = '\0';
	fd = keyfile_open(stick, name, why, size);
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

int main(void)
{
	char why[256], path[PATH_MAX * 3], buf[64];
	int fd, flags;
	ssize_t n;

	/* a FIFO that blocked would hang make check: fail it instead */
	alarm(20);
	snprintf(top, sizeof(top), "%s/test-keyfile-XXXXXX", getenv("TMPDIR") ?
		 getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 99;
	}
	snprintf(stick, sizeof(stick), "%s/stick", top);
	snprintf(path, sizeof(path), "%s/outside", top);
	if (mkdir(stick, 0700) < 0 || mkdir(path, 0700) < 0) {
		perror("mkdir");
		return 99;
	}
	put("key", "a key line of the key file\n");
	put("../outside/key", "the host's file\n");
	snprintf(path, sizeof(path), "%s/outside/key", top);
	if (symlink(path, at("out")) < 0 || symlink("key", at("in")) < 0 ||
	    mkdir(at("dir"), 0700) < 0 || mkfifo(at("fifo"), 0600) < 0) {
		perror("making the stick");
		return 99;
	}
	sized("max", KEYFILE_MAX_BYTES);
	sized("big", (off_t)KEYFILE_MAX_BYTES + 1);

	fd = keyfile_open(stick, "/key", why, sizeof(why));
	ok(fd >= 0, "a regular file opens: %s", fd < 0 ? why : "");
	if (fd >= 0) {
		flags = fcntl(fd, F_GETFL);
		ok(!(flags & O_NONBLOCK), "the descriptor blocks again");
		ok(fcntl(fd, F_GETFD) & FD_CLOEXEC, "close-on-exec");
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		is_str(buf, "a key line of the key file\n", "it is the stick's file");
		close(fd);
	}
	ok(try("/max", why, sizeof(why)) == 0, "a file of KEYFILE_MAX_BYTES opens: %s", why);

	is_u64(try("/out", why, sizeof(why)), ELOOP, "a symbolic link out of the stick is refused");
	ok(strstr(why, "symbolic link") != NULL, "the reason says so: %s", why);
	is_u64(try("/in", why, sizeof(why)), ELOOP, "a symbolic link within it too");
	is_u64(try("/../outside/key", why, sizeof(why)), EXDEV, "'..' out of it is refused");
	ok(strstr(why, "off the key device") != NULL, "the reason says so: %s", why);
	is_u64(try("/dir/../../outside/key", why, sizeof(why)), EXDEV,
	       "'..' further down too");

	is_u64(try("/fifo", why, sizeof(why)), EINVAL, "a FIFO is refused at once");
	is_str(why, "a FIFO, not a regular file: refused", "the reason says so");
	is_u64(try("/dir", why, sizeof(why)), EINVAL, "a directory is refused");
	is_str(why, "a directory, not a regular file: refused", "the reason says so");
	is_u64(try("/", why, sizeof(why)), EINVAL, "the stick itself is refused");

	is_u64(try("/big", why, sizeof(why)), EFBIG, "a file past KEYFILE_MAX_BYTES is refused");
	snprintf(path, sizeof(path), "too large (%u bytes; a key file has at most %u)",
		 KEYFILE_MAX_BYTES + 1, KEYFILE_MAX_BYTES);
	is_str(why, path, "the reason gives both sizes");

	is_u64(try("/none", why, sizeof(why)), ENOENT, "a missing file");
	is_str(why, strerror(ENOENT), "the reason is the errno's text");

	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	if (system(path) != 0)
		printf("# could not remove %s\n", top);
	return tap_done();
}
