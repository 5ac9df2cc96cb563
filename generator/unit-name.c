// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * systemd's unit name escaping (systemd.unit(5), "String Escaping for
 * Inclusion in Unit Names") and Exec= quoting (systemd.service(5),
 * "Command lines"), written from the documentation.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "unit-name.h"

static int plain_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == ':' || c == '_' || c == '.';
}

char *unit_name_from_path(const char *path, const char *suffix)
{
	size_t len = strlen(path), i, o = 0;
	char *out;

	if (path[0] != '/')
		return NULL;
	/* worst case every byte as \xNN */
	out = malloc(len * 4 + strlen(suffix) + 2);
	if (!out)
		return NULL;
	while (*path == '/')
		path++;
	if (!*path) {
		out[o++] = '-';     /* the root directory */
	} else {
		for (i = 0; path[i]; i++) {
			unsigned char c = (unsigned char)path[i];

			if (c == '/') {
				/* "a//b/" is "a/b" */
				while (path[i + 1] == '/')
					i++;
				if (path[i + 1])
					out[o++] = '-';
			} else if (plain_char((char)c) && !(c == '.' && o == 0)) {
				out[o++] = (char)c;
			} else {
				o += (size_t)sprintf(out + o, "\\x%02x", c);
			}
		}
	}
	strcpy(out + o, suffix);
	return out;
}

void unit_put_word(FILE *f, const char *arg, bool exec)
{
	fputc('"', f);
	for (; *arg; arg++) {
		switch (*arg) {
		case '\\':
		case '"':
			fputc('\\', f);
			fputc(*arg, f);
			break;
		case '$':
			if (exec)
				fputc('$', f);
			fputc('$', f);
			break;
		case '%':
			fputs("%%", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		default:
			fputc(*arg, f);
		}
	}
	fputc('"', f);
}

void unit_put_text(FILE *f, const char *text)
{
	for (; *text; text++) {
		if (*text == '%')
			fputc('%', f);
		fputc(*text == '\n' ? ' ' : *text, f);
	}
}
