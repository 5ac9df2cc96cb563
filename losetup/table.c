// SPDX-License-Identifier: GPL-2.0-or-later
/* The --list table, printed with libsmartcols exactly like util-linux. */
#include "config.h"

#include <err.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <libsmartcols.h>

#include "losetup.h"

static char *fmt_u64(uint64_t v)
{
	char *s = NULL;

	if (asprintf(&s, "%" PRIu64, v) < 0)
		err(EXIT_FAILURE, "failed to add output data");
	return s;
}

/* How one column of @dev reads: "MAJ:MIN", the major or the minor. */
static char *fmt_dev(dev_t dev, int col, bool unpadded)
{
	char *s = NULL;
	int n;

	switch (col) {
	case COL_MAJ:
	case COL_BACK_MAJ:
		n = asprintf(&s, "%u", major(dev));
		break;
	case COL_MIN:
	case COL_BACK_MIN:
		n = asprintf(&s, "%u", minor(dev));
		break;
	default:
		/* util-linux pads a device's own numbers to 3, a backing
		 * device's to 8, except in --raw and --json */
		n = unpadded ? asprintf(&s, "%u:%u", major(dev), minor(dev)) :
		    col == COL_BACK_MAJMIN ? asprintf(&s, "%8u:%-3u", major(dev), minor(dev)) :
		    asprintf(&s, "%3u:%-3u", major(dev), minor(dev));
	}
	if (n < 0)
		err(EXIT_FAILURE, "failed to add output data");
	return s;
}

/* The kernel's reference field is 64 bytes: a longer image path is cut. */
static char *fmt_ref(const char *ref)
{
	char *s = strndup(ref, LO_NAME_SIZE - 1);

	if (!s)
		err(EXIT_FAILURE, "failed to add output data");
	return s;
}

/*
 * The loop columns of a device that stands on no loop device (a dm engine
 * mapping straight on a block device): what it is, not a loop's flags.
 * 1 when @col was answered.
 */
static int loopless_cell(struct loopdev *ld, const struct loop_state *cs, int col,
			 char **res)
{
	const char *path = loopdev_get_path(ld);
	int fd, ssz;

	if (loopdev_is_loop_device(path))
		return 0;
	switch (col) {
	case COL_RO:
		*res = strdup(loop_state_is_readonly(cs) ? "1" : "0");
		return 1;
	case COL_AUTOCLR:
	case COL_PARTSCAN:
	case COL_DIO:
		*res = strdup("0");
		return 1;
	case COL_LOGSEC:
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && ioctl(fd, BLKSSZGET, &ssz) == 0)
			*res = fmt_u64((uint64_t)ssz);
		if (fd >= 0)
			close(fd);
		return 1;
	default:
		return 0;
	}
}

/* The cell text of one column for the bound device; NULL for empty. */
/*
 * An encrypted device's cells: the real image and the range the user
 * gave, not the engine's FUSE file. 1 when @col was answered.
 */
static int crypt_cell(struct loopdev *ld, int col, bool unpadded, char **res)
{
	const struct loop_state *cs = crypt_state(ld);
	const char *text;

	*res = NULL;
	if (!cs) {
		/* plain devices have no cipher, key or engine */
		return col >= COL_UL_COUNT;
	}
	switch (col) {
	case COL_NAME:
		*res = strdup(loop_state_get_device(cs));
		return 1;
	case COL_BACK_FILE:
		*res = strdup(loop_state_get_image(cs));
		return 1;
	case COL_OFFSET:
		*res = fmt_u64(loop_state_get_offset(cs));
		return 1;
	case COL_SIZELIMIT:
		*res = fmt_u64(loop_state_get_sizelimit(cs));
		return 1;
	case COL_BACK_INO:
		*res = fmt_u64((uint64_t)loop_state_get_image_ino(cs));
		return 1;
	case COL_BACK_MAJMIN:
	case COL_BACK_MAJ:
	case COL_BACK_MIN:
		*res = fmt_dev(loop_state_get_image_dev(cs), col, unpadded);
		return 1;
	case COL_REF:
		/* the user's, never the FUSE engine's internal file */
		text = loop_state_get_ref(cs);
		*res = fmt_ref(text[0] ? text : loop_state_get_image(cs));
		return 1;
	case COL_CIPHER:
		text = loop_state_get_cipher(cs);
		*res = text[0] ? strdup(text) : NULL;
		return 1;
	case COL_KEYBITS:
		*res = loop_state_get_key_bits(cs) ?
		       fmt_u64(loop_state_get_key_bits(cs)) : NULL;
		return 1;
	case COL_ENGINE:
		*res = strdup(loop_engine_name(loop_state_get_engine(cs)));
		return 1;
	case COL_DIO:
		/* the FUSE engine's daemon reads the image buffered; the loop
		 * device above it uses direct I/O to the daemon, an internal hop */
		if (loop_state_get_engine(cs) != LOOP_ENGINE_FUSE)
			return 0;
		*res = strdup("0");
		return 1;
	case COL_MULTIKEY:
		*res = crypt_multikey_name(cs) ? strdup(crypt_multikey_name(cs)) : NULL;
		return 1;
	default:
		return loopless_cell(ld, cs, col, res);
	}
}

static char *cell(struct loopdev *ld, int col, bool unpadded)
{
	char *s = NULL;
	uint64_t v;
	dev_t dev = 0;
	ino_t ino = 0;

	if (crypt_cell(ld, col, unpadded, &s))
		return s;
	switch (col) {
	case COL_NAME:
		return strdup(device_name(ld));
	case COL_BACK_FILE:
		return loopdev_get_backing_file(ld, &s) == 0 ? s : NULL;
	case COL_OFFSET:
		return loopdev_get_offset(ld, &v) == 0 ? fmt_u64(v) : NULL;
	case COL_SIZELIMIT:
		return loopdev_get_sizelimit(ld, &v) == 0 ? fmt_u64(v) : NULL;
	case COL_BACK_MAJMIN:
	case COL_BACK_MAJ:
	case COL_BACK_MIN:
		if (loopdev_get_backing_dev(ld, &dev, NULL) == 0 && dev)
			return fmt_dev(dev, col, unpadded);
		return NULL;
	case COL_MAJMIN:
	case COL_MAJ:
	case COL_MIN:
		if (loopdev_get_devno(ld, &dev) == 0 && dev)
			return fmt_dev(dev, col, unpadded);
		return NULL;
	case COL_REF:
		return loopdev_get_ref(ld, &s) == 0 ? s : NULL;
	case COL_BACK_INO:
		if (loopdev_get_backing_dev(ld, NULL, &ino) == 0 && ino)
			return fmt_u64(ino);
		return NULL;
	case COL_AUTOCLR:
		return strdup(loopdev_has_flag(ld, LO_FLAGS_AUTOCLEAR) ? "1" : "0");
	case COL_RO:
		return strdup(loopdev_has_flag(ld, LO_FLAGS_READ_ONLY) ? "1" : "0");
	case COL_DIO:
		return strdup(loopdev_has_flag(ld, LO_FLAGS_DIRECT_IO) ? "1" : "0");
	case COL_PARTSCAN:
		return strdup(loopdev_has_flag(ld, LO_FLAGS_PARTSCAN) ? "1" : "0");
	case COL_LOGSEC:
		return loopdev_get_block_size(ld, &v) == 0 ? fmt_u64(v) : NULL;
	default:
		return NULL;
	}
}

static int add_line(struct libscols_table *tb, struct loopdev *ld,
		    const struct list_opts *lo)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	size_t i;

	if (!ln)
		err(EXIT_FAILURE, "failed to allocate output line");
	for (i = 0; i < lo->ncolumns; i++) {
		char *data = cell(ld, lo->columns[i], lo->raw || lo->json);

		if (data && scols_line_refer_data(ln, i, data))
			err(EXIT_FAILURE, "failed to add output data");
	}
	return 0;
}

struct table_ctx {
	struct libscols_table *tb;
	const struct list_opts *lo;
};

static int add_line_cb(struct loopdev *ld, void *data)
{
	struct table_ctx *t = data;

	return add_line(t->tb, ld, t->lo);
}

int show_table(struct loopdev *ld, const struct list_opts *lo,
	       struct file_filter *f)
{
	struct libscols_table *tb;
	size_t i;
	int rc = 0;

	scols_init_debug(0);
	tb = scols_new_table();
	if (!tb)
		err(EXIT_FAILURE, "failed to allocate output table");
	scols_table_enable_raw(tb, lo->raw);
	scols_table_enable_json(tb, lo->json);
	scols_table_enable_noheadings(tb, lo->no_headings);
	if (lo->json)
		scols_table_set_name(tb, "loopdevices");

	for (i = 0; i < lo->ncolumns; i++) {
		const struct column_info *ci = &column_infos[lo->columns[i]];
		struct libscols_column *cl;

		cl = scols_table_new_column(tb, ci->name, ci->whint, ci->flags);
		if (!cl)
			err(EXIT_FAILURE, "failed to allocate output column");
		if (lo->json)
			scols_column_set_json_type(cl, ci->json_type);
	}

	if (loopdev_get_path(ld)) {
		rc = add_line(tb, ld, lo);
	} else {
		struct table_ctx t = { tb, lo };

		rc = for_each_used_device(ld, f, add_line_cb, &t);
	}
	if (rc == 0)
		rc = scols_print_table(tb);
	scols_unref_table(tb);
	return rc;
}
