// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * f2fs-gc FILE...: run f2fs's garbage collection now on every section
 * that holds a block of the FILEs, as f2fs does on its own: first its
 * background kind (which marks the blocks' pages dirty, so that
 * write-back puts them elsewhere; syncfs follows), then its foreground
 * kind (which moves them at once, as when space runs short).  Debian 12's
 * f2fs_io has no GC command, so this asks for it with
 * F2FS_IOC_GARBAGE_COLLECT_RANGE, one section at a time: a section's
 * blocks are found with FIEMAP.
 *
 * Prints a line per section and pass ("gc: bg|fg segment S: collected",
 * or the error) and "gc: N sections collected, M left (busy or pinned),
 * E empty".
 * A section f2fs cannot collect now (EAGAIN: the current log, or blocks
 * it must leave in place, a pinned file's) or that has no valid block
 * (ENODATA) is counted, not an error.  Exit 0, or 1 on any other error.
 */
#define _GNU_SOURCE /* syncfs */
#include <errno.h>
#include <fcntl.h>
#include <linux/f2fs.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/*
 * f2fs blocks are 4 KiB, 512 to a segment; mkfs.f2fs's defaults put
 * segment 0 at 2 MiB and make a section one segment.
 */
#define BLK_SHIFT	12
#define SEG_BLKS	512
#define MAX_EXTENTS	4096
#define MAX_SECTIONS	65536

static uint64_t sections[MAX_SECTIONS];
static unsigned int nsections;

static void add_section(uint64_t seg)
{
	unsigned int i;

	for (i = 0; i < nsections; i++)
		if (sections[i] == seg)
			return;
	if (nsections < MAX_SECTIONS)
		sections[nsections++] = seg;
}

static int map_file(const char *path)
{
	size_t sz = sizeof(struct fiemap) +
		    MAX_EXTENTS * sizeof(struct fiemap_extent);
	struct fiemap *fm = calloc(1, sz);
	unsigned int i;
	int fd, ret = -1;

	if (!fm)
		return -1;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "f2fs-gc: %s: %s\n", path, strerror(errno));
		goto out;
	}
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = MAX_EXTENTS;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
		fprintf(stderr, "f2fs-gc: FIEMAP on %s: %s\n", path,
			strerror(errno));
		goto out;
	}
	for (i = 0; i < fm->fm_mapped_extents; i++) {
		uint64_t first = fm->fm_extents[i].fe_physical >> BLK_SHIFT;
		uint64_t n = fm->fm_extents[i].fe_length >> BLK_SHIFT;
		uint64_t b;

		for (b = first - first % SEG_BLKS; b < first + n; b += SEG_BLKS)
			add_section(b / SEG_BLKS);
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(fm);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int done = 0, busy = 0, empty = 0, i;
	int fd, a;

	if (argc < 2) {
		fprintf(stderr, "usage: f2fs-gc FILE...\n");
		return 2;
	}
	for (a = 1; a < argc; a++)
		if (map_file(argv[a]))
			return 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "f2fs-gc: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < 2 * nsections; i++) {
		struct f2fs_gc_range r = {
			.sync = i >= nsections,
			.start = sections[i % nsections] * SEG_BLKS,
			.len = 0,
		};
		int ret;

		if (i == nsections)
			syncfs(fd);
		ret = ioctl(fd, F2FS_IOC_GARBAGE_COLLECT_RANGE, &r);
		printf("gc: %s segment %llu: %s\n", r.sync ? "fg" : "bg",
		       (unsigned long long)sections[i % nsections],
		       ret ? strerror(errno) : "collected");
		if (ret == 0)
			done++;
		else if (errno == EAGAIN || errno == EBUSY)
			busy++;
		else if (errno == ENODATA)
			empty++;
		else {
			fprintf(stderr, "f2fs-gc: GC of segment %llu: %s\n",
				(unsigned long long)sections[i % nsections],
				strerror(errno));
			close(fd);
			return 1;
		}
	}
	syncfs(fd);
	close(fd);
	printf("gc: %u sections collected, %u left (busy or pinned), %u empty\n",
	       done, busy, empty);
	return 0;
}
