// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-check-swap-source: may random-key swap overwrite this source?
 *
 *   cryptoloop-check-swap-source DEVICE|FILE
 *
 * The service cryptoloop-generator writes for a phash=random swap line
 * runs this before losetup: a fresh key on every boot, then mkswap, turns
 * whatever the source held into noise.  So the source must hold nothing
 * libblkid recognises, or an old swap area alone.  Anything else is
 * refused, exit status 1: a filesystem or other signature, a partition
 * table, two signatures libblkid cannot choose between (an intact ext4
 * with a stale FAT boot sector is one; "blkid -p" exits 8 on it), and a
 * source that cannot be probed at all.  Exit status 0 lets it go on.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blkid.h>

#define PROG "cryptoloop-check-swap-source"

static int refuse(const char *source, const char *what)
{
	fprintf(stderr, "%s: %s holds %s: not overwritten with random-key swap "
		"(wipefs(8) erases signatures of data no longer wanted)\n", PROG, source, what);
	return 1;
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
	const char *source, *type, *pttype, *usage;
	char what[512], found[400];
	blkid_probe pr;
	int rc;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("Usage: %s DEVICE|FILE\n"
		       "Exit 0 when the source holds no signature libblkid knows, or a\n"
		       "swap signature alone; else say what it holds and exit 1.\n"
		       "Run by cryptoloop-generator's random-key swap units: see\n"
		       "cryptoloop-generator(8).\n", PROG);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "Usage: %s DEVICE|FILE\n", PROG);
		return 1;
	}
	source = argv[1];
	pr = blkid_new_probe_from_filename(source);
	if (!pr) {
		fprintf(stderr, "%s: %s: cannot probe for signatures: %s\n", PROG, source,
			strerror(errno ? errno : EINVAL));
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
		rc = refuse(source, what);
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
			rc = refuse(source, what);
		} else if (type && !strcmp(type, "swap")) {
			rc = 0;		/* an old swap area: what mkswap writes anyway */
		} else {
			snprintf(what, sizeof(what), "%s (%s)", type ? type : "a signature",
				 usage ? usage : "unknown use");
			rc = refuse(source, what);
		}
	}
	blkid_free_probe(pr);
	return rc;
}
