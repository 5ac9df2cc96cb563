// SPDX-License-Identifier: GPL-2.0-or-later
/* The classic one-line-per-device format of "losetup -a" and "losetup DEV". */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "losetup.h"

/* Returns 0, or -errno (with errno set) when the device has no backing file. */
/* An encrypted device: the real image, the user's range, the cipher. */
static void print_crypt_line(struct loopdev *ld, const struct loop_state *cs)
{
	const char *cipher = loop_state_get_cipher(cs);

	printf("%s: [%04jd]:%ju (%s)", loop_state_get_device(cs),
	       (intmax_t)loop_state_get_image_dev(cs),
	       (uintmax_t)loop_state_get_image_ino(cs), loop_state_get_image(cs));
	if (loop_state_get_offset(cs))
		printf(", offset %ju", (uintmax_t)loop_state_get_offset(cs));
	if (loop_state_get_sizelimit(cs))
		printf(", sizelimit %ju", (uintmax_t)loop_state_get_sizelimit(cs));
	if (cipher[0])
		printf(", encryption %s (type %d)", cipher, loop_state_get_encrypt_type(cs));
	/* loop-AES's README has users look for this in "losetup -a" */
	if (crypt_multikey_name(cs))
		printf(", %s", crypt_multikey_name(cs));
	putchar('\n');
}

int print_device_line(struct loopdev *ld)
{
	const struct loop_state *cs;
	struct loop_info64 info;
	char *file = NULL;
	dev_t dev = 0;
	ino_t ino = 0;
	uint64_t v;
	int rc;

	/* first: a dm engine mapping on a block device has no loop device */
	cs = crypt_state(ld);
	if (cs) {
		print_crypt_line(ld, cs);
		return 0;
	}
	rc = loopdev_get_backing_file(ld, &file);
	if (rc) {
		errno = -rc;
		return rc;
	}
	if (loopdev_get_backing_dev(ld, &dev, &ino) == 0 && (dev || ino))
		printf("%s: [%04jd]:%ju (%s)", device_name(ld),
		       (intmax_t)dev, (uintmax_t)ino, file);
	else	/* without permission for the status ioctl, or lost */
		printf("%s: []: (%s)", device_name(ld), file);

	if (loopdev_get_offset(ld, &v) == 0 && v)
		printf(", offset %ju", (uintmax_t)v);
	if (loopdev_get_sizelimit(ld, &v) == 0 && v)
		printf(", sizelimit %ju", (uintmax_t)v);
	if ((dev || ino) && loopdev_get_status(ld, &info) == 0) {
		const char *e = (const char *)info.lo_crypt_name;

		if (!*e && info.lo_encrypt_type == LO_CRYPT_XOR)
			e = "XOR";
		if (*e)
			printf(", encryption %s (type %u)", e, info.lo_encrypt_type);
		explicit_bzero(&info, sizeof(info));
	}
	free(file);
	putchar('\n');
	return 0;
}

static int print_cb(struct loopdev *ld, void *data)
{
	print_device_line(ld);
	return 0;
}

int show_all_lines(struct file_filter *f)
{
	struct loopdev *ld;
	int rc = loopdev_new(&ld);

	if (rc)
		return rc;
	rc = for_each_used_device(ld, f, print_cb, NULL);
	loopdev_free(ld);
	return rc;
}
