// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * systemd's unit name escaping (systemd.unit(5), "String Escaping for
 * Inclusion in Unit Names") and unit file quoting (systemd.syntax(7),
 * "Quoting"; systemd.service(5), "Command lines"), written from the
 * documentation and checked against systemd 252's parser.
 *
 * A unit file line ends at a line feed, a carriage return or a NUL, and a
 * line that ends in an unescaped backslash goes on in the next one; so no
 * control character and no such backslash may come through raw from a
 * value of fstab.
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

/* Outside printable ASCII: what systemd's own C escaping (cescape) writes
 * as an escape, and what its line reader may take for a line end. */
static bool unprintable(unsigned char c)
{
	return c < 0x20 || c >= 0x7f;
}

/* @c as a C escape that systemd's unquoting reads back (systemd.syntax(7)). */
static void put_c_escape(FILE *f, unsigned char c)
{
	static const char named[][2] = {
		{ '\a', 'a' }, { '\b', 'b' }, { '\f', 'f' }, { '\n', 'n' },
		{ '\r', 'r' }, { '\t', 't' }, { '\v', 'v' },
	};
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (c == (unsigned char)named[i][0]) {
			fprintf(f, "\\%c", named[i][1]);
			return;
		}
	}
	fprintf(f, "\\%03o", c);
}

void unit_put_exec_word(FILE *f, const char *arg)
{
	fputc('"', f);
	for (; *arg; arg++) {
		unsigned char c = (unsigned char)*arg;

		if (c == '\\' || c == '"')
			fprintf(f, "\\%c", c);
		else if (c == '$')
			fputs("$$", f);
		else if (c == '%')
			fputs("%%", f);
		else if (unprintable(c))
			put_c_escape(f, c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

bool unit_path_writable(const char *path)
{
	for (; *path; path++)
		if ((unsigned char)*path < 0x20 || *path == 0x7f)
			return false;
	return true;
}

void unit_put_path_word(FILE *f, const char *path)
{
	fputc('"', f);
	for (; *path; path++) {
		if (*path == '\\' || *path == '"')
			fputc('\\', f);
		if (*path == '%')
			fputc('%', f);
		fputc(*path, f);
	}
	fputc('"', f);
}

void unit_put_text(FILE *f, const char *text)
{
	for (; *text; text++) {
		unsigned char c = (unsigned char)*text;

		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '%')
			fputs("%%", f);
		else if (unprintable(c))
			put_c_escape(f, c);
		else
			fputc(c, f);
	}
}
