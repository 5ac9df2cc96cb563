// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The option-table machinery of losetup and cryptoloop-reencrypt, and
 * the key options all three command-line programs take their rows from
 * (cli-options.h).
 */
#include "config.h"

#include <string.h>

#include "cli/cli-options.h"

const struct opt_desc key_opts[] = {
	LOOP_KEY_OPTIONS(LOOP_KEY_ANY_ROW)
};

const size_t key_opts_count = sizeof(key_opts) / sizeof(key_opts[0]);

void opt_build_getopt(const struct opt_table *t, size_t nt, struct option *longopts,
		      char *shortopts)
{
	size_t i, n = 0;

	for (; nt; t++, nt--) {
		for (i = 0; i < t->n && n < OPT_MAX; i++) {
			const struct opt_desc *o = &t->rows[i];

			longopts[n++] = (struct option){ o->name, o->has_arg, NULL, o->val };
			if (o->val > CHAR_MAX)
				continue;
			*shortopts++ = (char)o->val;
			if (o->has_arg == required_argument)
				*shortopts++ = ':';
			else if (o->has_arg == optional_argument) {
				*shortopts++ = ':';
				*shortopts++ = ':';
			}
		}
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	*shortopts = '\0';
}

const struct opt_desc *opt_find(const struct opt_table *t, size_t nt, int val)
{
	size_t i;

	for (; nt; t++, nt--)
		for (i = 0; i < t->n; i++)
			if (t->rows[i].val == val)
				return &t->rows[i];
	return NULL;
}

const struct opt_desc *key_opt_find(int val)
{
	const struct opt_table t = { key_opts, key_opts_count };

	return opt_find(&t, 1, val);
}

void opt_print_row(FILE *out, const struct opt_desc *o)
{
	/* "--direct-io[=<on|off>]": an optional argument follows unspaced */
	const char *sep = o->arg && *o->arg != '[' ? " " : "";
	const char *arg = o->arg ? o->arg : "";
	char left[96];

	if (o->val <= CHAR_MAX)
		snprintf(left, sizeof(left), " -%c, --%s%s%s", o->val, o->name, sep, arg);
	else
		snprintf(left, sizeof(left), "     --%s%s%s", o->name, sep, arg);
	/* help lines are aligned at column 31, util-linux's layout */
	if (strlen(left) >= 31)
		fprintf(out, "%s\n%-31s%s\n", left, "", o->help);
	else
		fprintf(out, "%-31s%s\n", left, o->help);
}

void opt_print_section(FILE *out, const struct opt_table *t, size_t nt, enum opt_section sec)
{
	size_t i;

	for (; nt; t++, nt--)
		for (i = 0; i < t->n; i++)
			if (t->rows[i].section == sec)
				opt_print_row(out, &t->rows[i]);
}
