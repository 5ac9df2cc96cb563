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

/* The fstab option of the losetup option @s starts with, or NULL. */
static const struct fstab_opt *option_at(const char *s, size_t *len)
{
	size_t i;

	for (i = 0; i < fstab_opts_count; i++) {
		const struct fstab_opt *o = &fstab_opts[i];
		size_t n = o->losetup ? strlen(o->losetup) : 0;

		if (n && !strncmp(s, o->losetup, n) && !isalnum((unsigned char)s[n]) &&
		    s[n] != '-') {
			*len = n;
			return o;
		}
	}
	return NULL;
}

/* The message goes on after an option without its value: "--sizelimit
 * does not apply", not "--sizelimit 4M" */
static int verb_at(const char *s)
{
	static const char *const words[] = { "does ", "is ", "and ", "or " };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strncmp(s, words[i], strlen(words[i])))
			return 1;
	return 0;
}

/* " (--force ...)": a losetup option fstab has no name for, in a
 * parenthesis of its own; its length, or 0 */
static size_t untranslatable_aside(const char *s)
{
	const char *end;
	size_t len;

	if (strncmp(s, " (--", 4) || option_at(s + 2, &len))
		return 0;
	end = strchr(s, ')');
	return end ? (size_t)(end - s) + 1 : 0;
}

/*
 * @s with every losetup flag of the table as its fstab option:
 * "--keybits 256" is "keybits=256", "--keybits (-k)" is "keybits=",
 * "-e luks" is "cipher=luks", "fd 3" is "passfd=3", and an aside that
 * offers a losetup option with no fstab name ("--force ...") is left out.
 */
static void put_translated(const char *s)
{
	const char *start = s;
	const struct fstab_opt *o;
	size_t len;

	while (*s) {
		/* "fd 3": the descriptor of passfd= */
		if (!strncmp(s, "fd ", 3) && isdigit((unsigned char)s[3])) {
			fputs("passfd=", stderr);
			s += 3;
			continue;
		}
		len = untranslatable_aside(s);
		if (len) {
			s += len;
			continue;
		}
		/* losetup's -e, the one short flag its messages name */
		if (!strncmp(s, "-e ", 3) && (s == start || s[-1] == ' ' || s[-1] == '(')) {
			fputs("cipher=", stderr);
			s += 3;
			continue;
		}
		o = option_at(s, &len);
		if (!o) {
			fputc(*s++, stderr);
			continue;
		}
		fprintf(stderr, "%s%s", o->name, o->has_value ? "=" : "");
		s += len;
		/* losetup's short flag beside it: "--keybits (-k)" */
		if (s[0] == ' ' && s[1] == '(' && s[2] == '-' && s[3] && s[4] == ')')
			s += 5;
		/* "--keybits 256" -> "keybits=256" */
		else if (o->has_value && *s == ' ' && s[1] && s[1] != '(' && !verb_at(s + 1))
			s++;
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
