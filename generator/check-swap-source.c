// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-check-swap-source: may random-key swap overwrite this source?
 *
 *   cryptoloop-check-swap-source [--offset SIZE] [--sizelimit SIZE] DEVICE|FILE
 *
 * The service cryptoloop-generator writes for a phash=random swap line
 * runs this before losetup: a fresh key on every boot, then mkswap, turns
 * whatever the source held into noise.  So the source must hold nothing
 * libblkid recognises, or an old swap area alone.  Anything else is
 * refused, exit status 1: a filesystem or other signature, a partition
 * table, two signatures libblkid cannot choose between (an intact ext4
 * with a stale FAT boot sector is one; "blkid -p" exits 8 on it), and a
 * source that cannot be probed at all.  Exit status 0 lets it go on.
 *
 * With the line's offset= and sizelimit= only the range the swap device
 * will cover is probed: that range is what gets overwritten, and what
 * lies before it (a partition table, a boot loader) is not.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <blkid.h>

#include "cli/size.h"
#include "swap-source-path.h"

#define PROG "cryptoloop-check-swap-source"

static int refuse(const char *source, uint64_t offset, const char *what)
{
	char at[48] = "";

	if (offset)
		snprintf(at, sizeof(at), " at offset %" PRIu64, offset);
	fprintf(stderr, "%s: %s holds %s%s: not overwritten with random-key swap "
		"(wipefs(8) erases signatures of data no longer wanted)\n", PROG, source, what, at);
	return 1;
}

static int print_usage(FILE *out, int status)
{
	fprintf(out, "Usage: %s [--offset SIZE] [--sizelimit SIZE] DEVICE|FILE\n", PROG);
	if (out == stdout)
		printf("Exit 0 when the source holds no signature libblkid knows, or a\n"
		       "swap signature alone; else say what it holds and exit 1.\n"
		       "--offset and --sizelimit (losetup's sizes) probe only that range.\n"
		       "Run by cryptoloop-generator's random-key swap units: see\n"
		       "cryptoloop-generator(8).\n");
	return status;
}

/* A size as losetup reads it, or a message and -1. */
static int size_arg(const char *name, const char *arg, uint64_t *v)
{
	int rc = loop_parse_size(arg, v);

	if (rc)
		fprintf(stderr, "%s: --%s '%s': %s\n", PROG, name, arg, strerror(-rc));
	return rc ? -1 : 0;
}

static const char *value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	return blkid_probe_lookup_value(pr, name, &v, NULL) == 0 ? v : NULL;
}

/* Every signature one by one, as wipefs(8) lists them: "ext4, vfat". */
static void list_signatures(blkid_probe pr, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	blkid_reset_probe(pr);
	while (len + 1 < size && blkid_do_probe(pr) == 0) {
		const char *t = value(pr, "TYPE");

		if (!t)
			t = value(pr, "PTTYPE");
		if (!t)
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "", t);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "sizelimit", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *source, *type, *pttype, *usage;
	char what[512], found[400], why[PATH_MAX + 100];
	uint64_t offset = 0, sizelimit = 0;
	blkid_probe pr;
	int c, fd, rc;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (size_arg("offset", optarg, &offset))
				return 1;
			break;
		case 's':
			if (size_arg("sizelimit", optarg, &sizelimit))
				return 1;
			break;
		case 'h':
			return print_usage(stdout, 0);
		default:
			return print_usage(stderr, 1);
		}
	}
	if (optind != argc - 1)
		return print_usage(stderr, 1);
	source = argv[optind];
	fd = open(source, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: cannot probe for signatures: %s\n", PROG, source,
			strerror(errno));
		return 1;
	}
	if (swap_source_path_safe(source, fd, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: %s: %s: losetup opens it again by name after this check, "
			"so not overwritten with random-key swap\n", PROG, source, why);
		close(fd);
		return 1;
	}
	pr = blkid_new_probe();
	/* libblkid takes a size of 0 as "to the end" */
	if (!pr || blkid_probe_set_device(pr, fd, (blkid_loff_t)offset,
					  (blkid_loff_t)sizelimit) != 0) {
		fprintf(stderr, "%s: %s: cannot probe for signatures%s: %s\n", PROG, source,
			offset ? " at that offset" : "", strerror(errno ? errno : EINVAL));
		blkid_free_probe(pr);
		close(fd);
		return 1;
	}
	/* what "blkid -p" probes: filesystems and other superblocks, and
	 * partition tables */
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 1) {
		rc = 0;
	} else if (rc == -2) {
		list_signatures(pr, found, sizeof(found));
		snprintf(what, sizeof(what), "several signatures (%s), which libblkid "
			 "cannot choose between", *found ? found : "?");
		rc = refuse(source, offset, what);
	} else if (rc < 0) {
		fprintf(stderr, "%s: %s: cannot probe for signatures: %s\n", PROG, source,
			strerror(errno ? errno : EIO));
		rc = 1;
	} else {
		type = value(pr, "TYPE");
		pttype = value(pr, "PTTYPE");
		usage = value(pr, "USAGE");
		if (pttype) {
			snprintf(what, sizeof(what), "a %s partition table", pttype);
			rc = refuse(source, offset, what);
		} else if (type && !strcmp(type, "swap")) {
			rc = 0;		/* an old swap area: what mkswap writes anyway */
		} else {
			snprintf(what, sizeof(what), "%s (%s)", type ? type : "a signature",
				 usage ? usage : "unknown use");
			rc = refuse(source, offset, what);
		}
	}
	blkid_free_probe(pr);
	close(fd);
	return rc;
}
