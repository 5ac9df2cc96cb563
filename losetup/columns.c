// SPDX-License-Identifier: GPL-2.0-or-later
/* The --list columns: names, widths and JSON types, as util-linux has them. */
#include "config.h"

#include <string.h>
#include <strings.h>
#include <err.h>
#include <libsmartcols.h>

#include "losetup.h"

const struct column_info column_infos[COL_COUNT] = {
	[COL_AUTOCLR]     = { "AUTOCLEAR",    1,    SCOLS_FL_RIGHT, "autoclear flag set", SCOLS_JSON_BOOLEAN },
	/* util-linux 2.39: a long path must not widen the table */
	[COL_BACK_FILE]   = { "BACK-FILE",    0.3,  SCOLS_FL_NOEXTREMES, "device backing file", 0 },
	[COL_BACK_INO]    = { "BACK-INO",     4,    SCOLS_FL_RIGHT, "backing file inode number", SCOLS_JSON_NUMBER },
	[COL_BACK_MAJMIN] = { "BACK-MAJ:MIN", 6,    0, "backing file major:minor device number", 0 },
	/* strings in util-linux's JSON, unlike MAJ and MIN */
	[COL_BACK_MAJ]    = { "BACK-MAJ",     6,    0, "backing file major device number", 0 },
	[COL_BACK_MIN]    = { "BACK-MIN",     6,    0, "backing file minor device number", 0 },
	[COL_NAME]        = { "NAME",         0.25, 0, "loop device name", 0 },
	[COL_OFFSET]      = { "OFFSET",       5,    SCOLS_FL_RIGHT, "offset from the beginning", SCOLS_JSON_NUMBER },
	[COL_PARTSCAN]    = { "PARTSCAN",     1,    SCOLS_FL_RIGHT, "partscan flag set", SCOLS_JSON_BOOLEAN },
	[COL_RO]          = { "RO",           1,    SCOLS_FL_RIGHT, "read-only device", SCOLS_JSON_BOOLEAN },
	[COL_SIZELIMIT]   = { "SIZELIMIT",    5,    SCOLS_FL_RIGHT, "size limit of the file in bytes", SCOLS_JSON_NUMBER },
	[COL_MAJMIN]      = { "MAJ:MIN",      3,    0, "loop device major:minor number", 0 },
	[COL_MAJ]         = { "MAJ",          1,    SCOLS_FL_RIGHT, "loop device major number", SCOLS_JSON_NUMBER },
	[COL_MIN]         = { "MIN",          1,    SCOLS_FL_RIGHT, "loop device minor number", SCOLS_JSON_NUMBER },
	[COL_REF]         = { "REF",          0.1,  0, "loop device reference string", 0 },
	[COL_DIO]         = { "DIO",          1,    SCOLS_FL_RIGHT, "access backing file with direct-io", SCOLS_JSON_BOOLEAN },
	[COL_LOGSEC]      = { "LOG-SEC",      4,    SCOLS_FL_RIGHT, "logical sector size in bytes", SCOLS_JSON_NUMBER },
	/* ours: with -O, and after util-linux's with --output-all */
	[COL_CIPHER]      = { "CIPHER",       6,    0, "encryption cipher name", 0 },
	[COL_KEYBITS]     = { "KEYBITS",      4,    SCOLS_FL_RIGHT, "encryption key size in bits", SCOLS_JSON_NUMBER },
	[COL_ENGINE]      = { "ENGINE",       4,    0, "encryption engine (kmod, xfer, dm, fuse)", 0 },
	[COL_MULTIKEY]    = { "MULTIKEY",     12,   0, "loop-AES multi-key mode (multi-key-v2, multi-key-v3)", 0 },
};

/* Returns the column id, or -1 after warning about an unknown name. */
int column_name_to_id(const char *name, size_t len)
{
	int i;

	for (i = 0; i < COL_COUNT; i++) {
		const char *cn = column_infos[i].name;

		if (!strncasecmp(name, cn, len) && !cn[len])
			return i;
	}
	warnx("unknown column: %s", name);
	return -1;
}

/*
 * Parse "-O NAME,NAME" (replacing the columns) or "-O +NAME" (adding to
 * them). Returns the number of columns parsed, or -1.
 */
int columns_parse(struct list_opts *lo, const char *arg)
{
	size_t max = sizeof(lo->columns) / sizeof(lo->columns[0]);
	const char *p, *begin = NULL;
	size_t n;

	if (!arg || !*arg)
		return -1;
	if (*arg == '+')
		arg++;
	else
		lo->ncolumns = 0;
	n = lo->ncolumns;

	for (p = arg; *p; p++) {
		const char *end = NULL;
		int id;

		if (n >= max)
			return -2;
		if (!begin)
			begin = p;
		if (*p == ',')
			end = p;
		if (!p[1])	/* a trailing comma stays part of the name */
			end = p + 1;
		if (!end)
			continue;
		if (end <= begin)
			return -1;
		id = column_name_to_id(begin, (size_t)(end - begin));
		if (id < 0)
			return -1;
		lo->columns[n++] = id;
		begin = NULL;
	}
	lo->ncolumns = n;
	return (int)n;
}

void columns_set_default(struct list_opts *lo)
{
	static const int defaults[] = {
		COL_NAME, COL_SIZELIMIT, COL_OFFSET, COL_AUTOCLR,
		COL_RO, COL_BACK_FILE, COL_DIO, COL_LOGSEC,
	};
	size_t i;

	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		lo->columns[i] = defaults[i];
	lo->ncolumns = i;
}

/* util-linux's columns in its order, then ours */
void columns_set_all(struct list_opts *lo)
{
	for (lo->ncolumns = 0; lo->ncolumns < COL_COUNT; lo->ncolumns++)
		lo->columns[lo->ncolumns] = (int)lo->ncolumns;
}
