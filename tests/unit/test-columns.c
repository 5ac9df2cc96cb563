// SPDX-License-Identifier: GPL-2.0-or-later
/* The column table and -O parsing, against util-linux 2.38's rules. */
#include <stdio.h>

#include "../../losetup/losetup.h"
#include "tap.h"

int main(void)
{
	struct list_opts lo = { 0 };
	static const char *const names[COL_COUNT] = {
		"NAME", "AUTOCLEAR", "BACK-FILE", "BACK-INO", "BACK-MAJ:MIN",
		"MAJ:MIN", "OFFSET", "PARTSCAN", "RO", "SIZELIMIT", "DIO", "LOG-SEC",
		"CIPHER", "KEYBITS", "ENGINE", "MULTIKEY",
	};
	int i;

	for (i = 0; i < COL_COUNT; i++)
		is_str(column_infos[i].name, names[i], "column %d is %s", i, names[i]);
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
	ok(lo.ncolumns == COL_UL_COUNT && COL_UL_COUNT == 12,
	   "--output-all selects util-linux's 12 columns");
	return tap_done();
}
