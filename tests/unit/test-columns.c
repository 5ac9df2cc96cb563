// SPDX-License-Identifier: GPL-2.0-or-later
/* The column table and -O parsing, against util-linux 2.42's rules. */
#include <stdio.h>
#include <libsmartcols.h>

#include "../../losetup/losetup.h"
#include "tap.h"

int main(void)
{
	struct list_opts lo = { 0 };
	static const char *const names[COL_COUNT] = {
		"NAME", "AUTOCLEAR", "BACK-FILE", "BACK-INO", "BACK-MAJ:MIN",
		"BACK-MAJ", "BACK-MIN", "MAJ:MIN", "MAJ", "MIN", "OFFSET",
		"PARTSCAN", "REF", "RO", "SIZELIMIT", "DIO", "LOG-SEC",
		"CIPHER", "KEYBITS", "ENGINE", "MULTIKEY",
	};
	/* util-linux 2.42's flags and JSON types of the columns 2.40 added */
	static const struct { int col; double whint; int flags; int json; } added[] = {
		{ COL_BACK_MAJ, 6, 0, 0 },	/* strings, as in util-linux */
		{ COL_BACK_MIN, 6, 0, 0 },
		{ COL_MAJ, 1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER },
		{ COL_MIN, 1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER },
		{ COL_REF, 0.1, 0, 0 },
		{ COL_BACK_FILE, 0.3, SCOLS_FL_NOEXTREMES, 0 },
	};
	size_t k;
	int i;

	for (i = 0; i < COL_COUNT; i++)
		is_str(column_infos[i].name, names[i], "column %d is %s", i, names[i]);
	for (k = 0; k < sizeof(added) / sizeof(added[0]); k++) {
		const struct column_info *ci = &column_infos[added[k].col];

		ok(ci->whint == added[k].whint && ci->flags == added[k].flags &&
		   ci->json_type == added[k].json, "%s: util-linux's width, flags, JSON type",
		   ci->name);
	}
	is_str(column_infos[COL_REF].help, "loop device reference string", "REF's help");
	is_str(column_infos[COL_BACK_MAJ].help, "backing file major device number",
	       "BACK-MAJ's help");
	ok(column_name_to_id("ref", 3) == COL_REF, "REF by name");
	ok(column_name_to_id("name", 4) == COL_NAME, "names are case-insensitive");
	ok(column_name_to_id("back-file", 9) == COL_BACK_FILE, "BACK-FILE by name");

	columns_set_default(&lo);
	ok(lo.ncolumns == 8, "8 default columns");
	ok(lo.columns[0] == COL_NAME && lo.columns[5] == COL_BACK_FILE &&
	   lo.columns[7] == COL_LOGSEC, "default order NAME..BACK-FILE..LOG-SEC");

	ok(columns_parse(&lo, "NAME,RO") == 2, "-O NAME,RO replaces");
	ok(lo.ncolumns == 2 && lo.columns[1] == COL_RO, "two columns now");
	ok(columns_parse(&lo, "+DIO") == 3, "-O +DIO appends");
	ok(lo.columns[2] == COL_DIO, "DIO appended");
	printf("# the next two lines warn about unknown columns on purpose\n");
	fflush(stdout);
	ok(columns_parse(&lo, "NAME,NOPE") < 0, "unknown column fails");
	ok(columns_parse(&lo, "NAME,") < 0, "a trailing comma is an unknown column");
	ok(columns_parse(&lo, ",NAME") < 0, "an empty name fails");

	ok(columns_parse(&lo, "NAME,CIPHER,KEYBITS,ENGINE") == 4, "-O NAME,CIPHER,KEYBITS,ENGINE");
	ok(lo.columns[1] == COL_CIPHER && lo.columns[2] == COL_KEYBITS &&
	   lo.columns[3] == COL_ENGINE, "encryption columns by name");

	columns_set_all(&lo);
	ok(lo.ncolumns == COL_COUNT && COL_UL_COUNT == 17 && COL_COUNT == 21,
	   "--output-all: util-linux 2.42's 17 columns, then our 4");
	for (i = 0; i < COL_COUNT; i++)
		ok(lo.columns[i] == i, "--output-all column %d is %s", i, names[i]);
	return tap_done();
}
