// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsmartcols, loaded on first use. Only the --list table (table.c)
 * needs it, yet linking it made every attach and detach map it and bind
 * its symbols, as util-linux's losetup does. So losetup does not link it:
 * table.c calls these functions of the same names, and each forwards to
 * libsmartcols, which the first call opens (tools/bench setup).
 *
 * Only what table.c calls is here; a new scols_* call there is an
 * undefined symbol at link time until it is added below.
 */
#include "config.h"

#include <dlfcn.h>
#include <err.h>
#include <stdlib.h>
#include <libsmartcols.h>

#include "losetup.h"

/* libsmartcols' ABI since util-linux 2.25 (2014) */
#define SMARTCOLS_SONAME "libsmartcols.so.1"

#define SCOLS_FUNCS(X) \
	X(scols_init_debug) X(scols_new_table) X(scols_unref_table) \
	X(scols_table_enable_raw) X(scols_table_enable_json) \
	X(scols_table_enable_noheadings) X(scols_table_set_name) \
	X(scols_table_new_column) X(scols_column_set_json_type) \
	X(scols_table_new_line) X(scols_line_refer_data) X(scols_print_table)

static struct {
#define FIELD(f) __typeof__(&f) f;
	SCOLS_FUNCS(FIELD)
#undef FIELD
} real;
static int loaded;

/* The list output cannot work without it: say which file is missing. */
static void load(void)
{
	void *h;

	if (loaded)
		return;
	h = dlopen(SMARTCOLS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		errx(EXIT_FAILURE, "cannot load %s for the list output: %s",
		     SMARTCOLS_SONAME, dlerror());
#define LOOKUP(f) \
	*(void **)&real.f = dlsym(h, #f); \
	if (!real.f) \
		errx(EXIT_FAILURE, "%s has no %s", SMARTCOLS_SONAME, #f);
	SCOLS_FUNCS(LOOKUP)
#undef LOOKUP
	loaded = 1;
}

void scols_init_debug(int mask)
{
	load();
	real.scols_init_debug(mask);
}

struct libscols_table *scols_new_table(void)
{
	load();
	return real.scols_new_table();
}

void scols_unref_table(struct libscols_table *tb)
{
	load();
	real.scols_unref_table(tb);
}

int scols_table_enable_raw(struct libscols_table *tb, int enable)
{
	load();
	return real.scols_table_enable_raw(tb, enable);
}

int scols_table_enable_json(struct libscols_table *tb, int enable)
{
	load();
	return real.scols_table_enable_json(tb, enable);
}

int scols_table_enable_noheadings(struct libscols_table *tb, int enable)
{
	load();
	return real.scols_table_enable_noheadings(tb, enable);
}

int scols_table_set_name(struct libscols_table *tb, const char *name)
{
	load();
	return real.scols_table_set_name(tb, name);
}

struct libscols_column *scols_table_new_column(struct libscols_table *tb,
					       const char *name, double whint, int flags)
{
	load();
	return real.scols_table_new_column(tb, name, whint, flags);
}

int scols_column_set_json_type(struct libscols_column *cl, int type)
{
	load();
	return real.scols_column_set_json_type(cl, type);
}

struct libscols_line *scols_table_new_line(struct libscols_table *tb,
					   struct libscols_line *parent)
{
	load();
	return real.scols_table_new_line(tb, parent);
}

int scols_line_refer_data(struct libscols_line *ln, size_t n, char *data)
{
	load();
	return real.scols_line_refer_data(ln, n, data);
}

int scols_print_table(struct libscols_table *tb)
{
	load();
	return real.scols_print_table(tb);
}
