// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsing of sysfs attribute text, and reading attributes from a fake tree. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/private.h"
#include "tap.h"

static void write_attr(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

int main(void)
{
	char tmpl[] = "/tmp/libloop-sysfs-XXXXXX";
	char *dir, sub[600], *s = NULL;
	char text[] = "/srv/images/disk.img\n";
	uint64_t v = 0;

	ok(loop_sysfs_parse_u64("4096\n", &v) == 0 && v == 4096, "u64 with newline");
	ok(loop_sysfs_parse_u64("0", &v) == 0 && v == 0, "zero");
	ok(loop_sysfs_parse_u64("18446744073709551615\n", &v) == 0 && v == UINT64_MAX,
	   "u64 max");
	ok(loop_sysfs_parse_u64("18446744073709551616", &v) == -ERANGE, "overflow is ERANGE");
	ok(loop_sysfs_parse_u64("", &v) == -EINVAL, "empty is EINVAL");
	ok(loop_sysfs_parse_u64("-1", &v) == -EINVAL, "negative is EINVAL");
	ok(loop_sysfs_parse_u64("12ab", &v) == -EINVAL, "trailing junk is EINVAL");
	ok(loop_sysfs_chomp(text) == 20, "chomp strips the newline");
	is_str(text, "/srv/images/disk.img", "chomped text");

	dir = mkdtemp(tmpl);
	if (!dir)
		return 2;
	snprintf(sub, sizeof(sub), "%s/loop", dir);
	mkdir(sub, 0700);
	write_attr(dir, "loop/offset", "1048576\n");
	write_attr(dir, "loop/backing_file", "/tmp/a file with spaces.img\n");
	write_attr(dir, "ro", "1\n");

	ok(loop_sysfs_read_u64(dir, "loop/offset", &v) == 0 && v == 1048576, "offset attr");
	ok(loop_sysfs_read_u64(dir, "ro", &v) == 0 && v == 1, "ro attr");
	ok(loop_sysfs_read_string(dir, "loop/backing_file", &s) == 0, "backing_file attr");
	is_str(s, "/tmp/a file with spaces.img", "backing file keeps inner spaces");
	ok(loop_sysfs_read_u64(dir, "loop/sizelimit", &v) == -ENOENT, "missing attr is ENOENT");
	ok(loop_sysfs_read_u64("", "loop/offset", &v) == -ENOENT, "no sysfs dir is ENOENT");
	free(s);

	snprintf(sub, sizeof(sub), "rm -rf '%s'", dir);
	if (system(sub) != 0)
		return 2;
	return tap_done();
}
