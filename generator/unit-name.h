/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd unit names and unit file quoting, for cryptoloop-generator. */
#ifndef GENERATOR_UNIT_NAME_H
#define GENERATOR_UNIT_NAME_H

#include <stdbool.h>
#include <stdio.h>

/*
 * unit_name_from_path - what `systemd-escape --path --suffix=SUFFIX PATH`
 * prints: slashes become '-', bytes outside [A-Za-z0-9:_.] and a leading
 * '.' become \xNN.  Returns a malloc'ed name, or NULL (ENOMEM, or a path
 * that is not absolute).
 */
char *unit_name_from_path(const char *path, const char *suffix);

/* Write @arg as one quoted word of a unit setting: double-quoted, with
 * '\\' and '"' escaped and systemd's specifier '%' doubled; in an Exec=
 * line (@exec) the variable sign '$' is doubled too. */
void unit_put_word(FILE *f, const char *arg, bool exec);

/* Write @text for a unit setting that expands specifiers: '%' doubled,
 * line breaks as spaces (Description=). */
void unit_put_text(FILE *f, const char *text);

#endif
