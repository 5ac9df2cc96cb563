// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libloop's attach messages speak of losetup's flags. An administrator
 * reading them wrote an fstab line, so the helper says which line, and
 * names the fstab option where the message names an option (which it
 * lists as data, not for us to find in its prose).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmount.h>
#include <libloop.h>

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
	return fstab_line_in(mnt_get_fstab_path(), source, target);
}

char *fstab_line_in(const char *path, const char *source, const char *target)
{
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

/* The fstab option of long option @name, or NULL: fstab has no word for it. */
static const struct fstab_opt *fstab_word(const char *name)
{
	size_t i;

	for (i = 0; i < fstab_opts_count; i++) {
		const char *l = fstab_opts[i].losetup;

		if (l && !strncmp(l, "--", 2) && !strcmp(l + 2, name))
			return &fstab_opts[i];
	}
	return NULL;
}

/* The option @m names at @at, or NULL. */
static const struct loop_attach_msg_ref *ref_at(const struct loop_attach_msg *m, size_t at)
{
	unsigned int i;

	for (i = 0; i < m->nrefs && i < LOOP_ATTACH_MSG_REFS; i++)
		if (m->refs[i].len && m->refs[i].at == at)
			return &m->refs[i];
	return NULL;
}

/* An aside at @at that offers an option fstab has no word for: its length. */
static size_t aside_to_leave_out(const struct loop_attach_msg *m, size_t at)
{
	unsigned int i;

	for (i = 0; i < m->nrefs && i < LOOP_ATTACH_MSG_REFS; i++)
		if (m->refs[i].aside_len && m->refs[i].aside_at == at &&
		    !fstab_word(m->refs[i].option))
			return m->refs[i].aside_len;
	return 0;
}

/*
 * @m's text with each option it names (struct loop_attach_msg_ref) said
 * as the fstab option that gave it: "--keybits 256" is "keybits=256",
 * "--keybits (-k)" is "keybits=", "-e luks" is "cipher=luks", "fd 3" is
 * "passfd=3". An aside that offers an option fstab has no word for
 * ("(--force ...)") is left out; such an option elsewhere keeps
 * losetup's words.
 */
static void put_in_fstab_words(const struct loop_attach_msg *m)
{
	const char *t = m->text;
	size_t at = 0, len = strlen(t), skip;

	while (at < len) {
		const struct loop_attach_msg_ref *r;
		const struct fstab_opt *o;

		skip = aside_to_leave_out(m, at);
		if (skip) {
			at += skip;
			continue;
		}
		r = ref_at(m, at);
		o = r ? fstab_word(r->option) : NULL;
		if (!o) {
			fputc(t[at++], stderr);
			continue;
		}
		fprintf(stderr, "%s%s", o->name, o->has_value ? "=" : "");
		if (o->has_value && r->arg < r->at + r->len)
			fwrite(t + r->arg, 1, (size_t)(r->at + r->len - r->arg), stderr);
		at += r->len;
	}
}

void tell_in_fstab_words(const char *where, const struct loop_attach_msg *m)
{
	fprintf(stderr, "%s: ", program_invocation_short_name);
	if (where)
		fprintf(stderr, "%s: ", where);
	put_in_fstab_words(m);
	fputc('\n', stderr);
}
