// SPDX-License-Identifier: GPL-2.0-or-later
/* The mount helper's option split: what goes to losetup, what to the fs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../mount/fstab-convert.h"
#include "../../mount/mount-opts.h"
#include "tap.h"

static char *joined(const struct mount_request *r)
{
	static char buf[1024];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < r->nargs; i++) {
		if (i)
			strcat(buf, " ");
		strcat(buf, r->losetup_args[i]);
	}
	return buf;
}

int main(void)
{
	struct mount_request r;
	char *bad = NULL;

	mopt_init(&r);
	ok(mopt_parse(&r, "rw,noatime,cipher=AES256,keybits=256,phash=sha512,"
		      "pseed=salt,itercountk=100,passfd=3,fstype=ext4,data=ordered", &bad) == 0,
	   "a full option string parses");
	is_str(joined(&r), "--encryption AES256 --keybits 256 --phash sha512 --pseed salt --itercountk 100", "losetup arguments");
	ok(r.passfd == 3, "passfd");
	is_str(r.fstype, "ext4", "fstype");
	is_str(r.fs_options, "rw,noatime,data=ordered", "filesystem options pass through");
	ok(mopt_given(&r, "cipher") && !mopt_given(&r, "gpgkey"), "mopt_given");
	mopt_free(&r);

	mopt_init(&r);
	ok(mopt_parse(&r, "encryption=aes,offset=4096,sizelimit=1M,ro", &bad) == 0,
	   "legacy names parse");
	is_str(joined(&r), "--encryption aes --offset 4096 --sizelimit 1M", "legacy names map to losetup");
	ok(r.readonly, "ro makes the device read-only");
	is_str(r.fs_options, "ro", "and the mount read-only");
	ok(mopt_given(&r, "cipher"), "encryption= counts as cipher=");
	mopt_free(&r);

	mopt_init(&r);
	ok(mopt_parse(&r, "gpgkey=/etc/k.gpg,gpghome=/root/.gnupg,loinit=8,engine=fuse,"
		      "keyfile=/etc/k.txt,crypt_offset=1M,crypt_sizelimit=2M,nofail", &bad) == 0,
	   "the other options parse");
	is_str(joined(&r), "--gpgkey /etc/k.gpg --gpghome /root/.gnupg --loinit 8 --engine fuse "
	       "--cleartext-keyfile /etc/k.txt --offset 1M --sizelimit 2M", "their losetup arguments");
	ok(r.nofail, "nofail is noticed");
	is_str(r.fs_options, "nofail", "and passed on");
	mopt_free(&r);

	mopt_init(&r);
	ok(mopt_parse(&r, "cipher=aes,cipher=twofish", &bad) == -EINVAL, "a repeated cipher fails");
	is_str(bad, "cipher=twofish", "naming the repeat");
	free(bad);
	mopt_free(&r);

	mopt_init(&r);
	ok(mopt_parse(&r, "cipher=aes,encryption=aes", &bad) == -EINVAL,
	   "cipher= and encryption= together conflict");
	free(bad);
	mopt_free(&r);

	mopt_init(&r);
	ok(mopt_parse(&r, "keybits", &bad) == -EINVAL, "a missing value fails");
	is_str(bad, "keybits", "naming it");
	free(bad);
	mopt_free(&r);

	mopt_init(&r);
	ok(mopt_parse(&r, "passfd=x", &bad) == -EINVAL, "a bad fd fails");
	free(bad);
	mopt_free(&r);

	mopt_init(&r);
	ok(mopt_parse(&r, "ro=1", &bad) == -EINVAL, "ro takes no value");
	free(bad);
	mopt_free(&r);
	/* legacy lines: what util-linux 2.12 and loop-AES users had */
	bad = fstab_convert_options("ext4", "loop,encryption=aes,noauto");
	is_str(bad, "cipher=aes,noauto,fstype=ext4", "ext4 loop,encryption=aes,noauto");
	free(bad);
	bad = fstab_convert_options("auto", "defaults,loop=/dev/loop1,encryption=AES128,"
				    "offset=4096,sizelimit=1048576,phash=sha256,gpgkey=/k.gpg");
	is_str(bad, "defaults,cipher=AES128,crypt_offset=4096,crypt_sizelimit=1048576,"
	       "phash=sha256,gpgkey=/k.gpg", "loop-AES line, fstype left to detection");
	free(bad);
	bad = fstab_convert_options("ext4", "loop,encryption=AES128,cleartextkey=/k.txt,user");
	is_str(bad, "cipher=AES128,keyfile=/k.txt,fstype=ext4",
	       "cleartextkey= becomes keyfile=, user is dropped");
	free(bad);
	mopt_init(&r);
	ok(mopt_parse(&r, "cleartextkey=/k.txt,cipher=AES128", &bad) == 0,
	   "the helper takes loop-AES's cleartextkey=");
	is_str(joined(&r), "--cleartext-keyfile /k.txt --encryption AES128", "as the key file");
	mopt_free(&r);
	ok(fstab_convert_options("ext4", "loop,offset=512") == NULL,
	   "a plain loop line is not converted");
	return tap_done();
}
