// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libloop's attach messages speak of losetup's flags. An administrator
 * reading them wrote an fstab line, so the helper says which line, and
 * names the fstab option instead of the flag.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmount.h>

#include "fstab-options.h"
#include "messages.h"

/* fstab's \ooo escapes, in place */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

static int same_path(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (!strcmp(a, b))
		return 1;
	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

char *fstab_line_of(const char *source, const char *target)
{
	const char *path = mnt_get_fstab_path();
	char line[4096], *res = NULL;
	FILE *f = fopen(path, "re");
	unsigned int n = 0;

	if (!f)
		return NULL;
	while (!res && fgets(line, sizeof(line), f)) {
		char *src, *tgt, *save;

		n++;
		src = strtok_r(line, " \t\n", &save);
		if (!src || *src == '#')
			continue;
		tgt = strtok_r(NULL, " \t\n", &save);
		if (!tgt)
			continue;
		unescape(src);
		unescape(tgt);
		if (same_path(src, source) && same_path(tgt, target) &&
		    asprintf(&res, "%s:%u", path, n) < 0)
			res = NULL;
	}
	fclose(f);
	return res;
}

/* @s with every losetup flag of the table as its fstab option. */
static void put_translated(const char *s)
{
	size_t i;

	while (*s) {
		int done = 0;

		/* "fd 3": the descriptor of passfd= */
		if (!strncmp(s, "fd ", 3) && isdigit((unsigned char)s[3])) {
			fputs("passfd=", stderr);
			s += 3;
			continue;
		}
		for (i = 0; !done && i < fstab_opts_count; i++) {
			const struct fstab_opt *o = &fstab_opts[i];
			size_t len = o->losetup ? strlen(o->losetup) : 0;

			if (!len || strncmp(s, o->losetup, len) ||
			    isalnum((unsigned char)s[len]) || s[len] == '-')
				continue;
			fprintf(stderr, "%s%s", o->name, o->has_value ? "=" : "");
			s += len;
			/* "--keybits 256" -> "keybits=256" */
			if (o->has_value && *s == ' ' && s[1] && s[1] != '(')
				s++;
			done = 1;
		}
		if (!done)
			fputc(*s++, stderr);
	}
}

void tell_in_fstab_words(const char *where, const char *text)
{
	fprintf(stderr, "%s: ", program_invocation_short_name);
	if (where)
		fprintf(stderr, "%s: ", where);
	put_translated(text);
	fputc('\n', stderr);
}
