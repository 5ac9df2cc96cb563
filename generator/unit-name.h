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

/* Write @arg as one word of an Exec= command line, which systemd unquotes
 * and C-unescapes: double-quoted, '\\' and '"' backslashed, control
 * characters and bytes above 0x7e as C escapes, the variable sign '$' and
 * the specifier sign '%' doubled.  Every string can be written so. */
void unit_put_exec_word(FILE *f, const char *arg);

/* Can @path be written by unit_put_path_word()? Not with a control
 * character: a path list setting knows no C escapes. */
bool unit_path_writable(const char *path);

/* Write @path as one word of a path list setting (RequiresMountsFor=),
 * which systemd unquotes but does not C-unescape: double-quoted, '\\'
 * and '"' backslashed, '%' doubled.  Only for unit_path_writable() paths. */
void unit_put_path_word(FILE *f, const char *path);

/* Write @text into a free-text setting (Description=), which takes no
 * escapes: '%' doubled, and backslashes and the bytes systemd's own C
 * escaping would escape written as C escapes, so that no byte of @text
 * ends the line or continues it on the next. */
void unit_put_text(FILE *f, const char *text);

#endif
