// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-generator's unit file quoting: no byte of an fstab value may
 * end a unit file line (systemd's reader ends one at LF, CR or NUL) or
 * carry it on into the next (an unescaped trailing backslash).  The unit
 * names are what systemd-escape 252 prints for the same paths.
 */
#include <stdlib.h>
#include <string.h>

#include "../../generator/unit-name.h"
#include "tap.h"

typedef void (*put_fn)(FILE *f, const char *s);

/* What @put writes for @s, in a static buffer. */
static const char *written(put_fn put, const char *s)
{
	static char out[4096];
	FILE *f = fmemopen(out, sizeof(out), "w");

	if (!f)
		return NULL;
	put(f, s);
	fclose(f);
	return out;
}

static const char *name(const char *path, const char *suffix)
{
	static char out[256];
	char *n = unit_name_from_path(path, suffix);

	snprintf(out, sizeof(out), "%s", n ? n : "(null)");
	free(n);
	return out;
}

/* No control byte, and an even run of backslashes at the end. */
static int one_clean_line(const char *s)
{
	size_t n = strlen(s), run = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
			return 0;
	while (run < n && s[n - 1 - run] == '\\')
		run++;
	return run % 2 == 0;
}

int main(void)
{
	char every[256];
	int i, clean_exec = 1, clean_text = 1;

	/* Exec= words: systemd unquotes and C-unescapes them */
	is_str(written(unit_put_exec_word, "/var/swap files/s.img"), "\"/var/swap files/s.img\"",
	       "exec word: spaces stay inside the quotes");
	is_str(written(unit_put_exec_word, "a\rExecStartPre=/bin/false"),
	       "\"a\\rExecStartPre=/bin/false\"", "exec word: CR is \\r, no new line");
	is_str(written(unit_put_exec_word, "a\nb\tc\vd\fe\af\bg"), "\"a\\nb\\tc\\vd\\fe\\af\\bg\"",
	       "exec word: the named C escapes");
	is_str(written(unit_put_exec_word, "\x01\x1b\x7f\xe9"), "\"\\001\\033\\177\\351\"",
	       "exec word: other control bytes and bytes above 0x7e in octal, as cescape");
	is_str(written(unit_put_exec_word, "a\\b\"c\\"), "\"a\\\\b\\\"c\\\\\"",
	       "exec word: backslash and quote backslashed, also at the end");
	is_str(written(unit_put_exec_word, "$HOME 100%"), "\"$$HOME 100%%\"",
	       "exec word: variable and specifier signs doubled");

	/* Description=: no escapes at all are undone */
	is_str(written(unit_put_text, "/dev/sdb2\\"), "/dev/sdb2\\\\",
	       "text: a trailing backslash is doubled: no continuation line");
	is_str(written(unit_put_text, "/a\rAfter=x.service\n"), "/a\\rAfter=x.service\\n",
	       "text: CR and LF as C escapes: no new line");
	is_str(written(unit_put_text, "50% \x01\xe9"), "50%% \\001\\351", "text: specifier sign, other bytes");

	/* RequiresMountsFor=: unquoted, but no C escapes */
	is_str(written(unit_put_path_word, "/srv/a b\\c\"d%e"), "\"/srv/a b\\\\c\\\"d%%e\"",
	       "path word: backslash and quote backslashed, specifier sign doubled");
	ok(unit_path_writable("/srv/swap files/\xc3\xa9.img"), "path word: UTF-8 is writable");
	ok(!unit_path_writable("/srv/a\rb"), "path word: CR is not writable");
	ok(!unit_path_writable("/srv/a\x7f"), "path word: DEL is not writable");
	ok(!unit_path_writable("/srv/\ta"), "path word: TAB is not writable");

	/* every byte at once, also last */
	for (i = 1; i < 256; i++) {
		memset(every, 0, sizeof(every));
		every[0] = 'x';
		every[1] = (char)i;
		if (!one_clean_line(written(unit_put_exec_word, every)))
			clean_exec = 0;
		if (!one_clean_line(written(unit_put_text, every)))
			clean_text = 0;
	}
	ok(clean_exec, "exec word: no byte 1..255 ends or continues the line");
	ok(clean_text, "text: no byte 1..255 ends or continues the line");

	/* unit names, as systemd-escape --path --suffix=swap prints them */
	is_str(name("/dev/sdb2", ".swap"), "dev-sdb2.swap", "name: a device");
	is_str(name("/dev/disk/by-uuid/0a1b-2c3d", ".swap"), "dev-disk-by\\x2duuid-0a1b\\x2d2c3d.swap",
	       "name: '-' escaped");
	is_str(name("/a\rb", ".swap"), "a\\x0db.swap", "name: CR escaped");
	is_str(name("/", ".swap"), "-.swap", "name: the root");
	is_str(name("/.hidden", ".swap"), "\\x2ehidden.swap", "name: a leading dot");
	is_str(name("/srv//a b/", ".swap"), "srv-a\\x20b.swap", "name: doubled and trailing slashes");
	is_str(name("dev/sdb2", ".swap"), "(null)", "name: a relative path has none");
	return tap_done();
}
