// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Migration help. Stock mount(8) rejects the old "loop,encryption=aes"
 * lines outright ("failed to parse mount options") before any helper can
 * see them, and stock swapon(8) ignores loop-AES's "loop=,encryption="
 * and would swap on the raw partition in the clear. So the helper
 * translates such lines, with the names of the one option table.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmount.h>

#include "fstab-convert.h"
#include "fstab-options.h"

/* what the options of a converted swap line are prefixed with */
#define SWAP_PREFIX "x-cryptoloop."

struct converted {
	char *opts;		/* the new options (unescaped) */
	char *notes;		/* lines for the reader, or NULL */
	bool swap;
};

static bool is(const char *want, const char *name, size_t len)
{
	return strlen(want) == len && !strncmp(want, name, len);
}

/* Append NAME[=VALUE] (@name is @nlen bytes, optionally after @prefix). */
static int append(char **res, const char *prefix, const char *name, size_t nlen,
		  const char *val, size_t vlen)
{
	char *n = malloc(strlen(prefix) + nlen + 1), *v = NULL;
	int rc = -ENOMEM;

	if (!n)
		return rc;
	strcpy(n, prefix);
	strncat(n, name, nlen);
	if (val && !(v = strndup(val, vlen)))
		goto free_name;
	rc = mnt_optstr_append_option(res, n, v) ? -ENOMEM : 0;
	free(v);
free_name:
	free(n);
	return rc;
}

static int add_note(char **notes, const char *what, const char *name, size_t len)
{
	size_t have = *notes ? strlen(*notes) : 0;
	size_t need = have + len + strlen(what) + 8;
	char *p = realloc(*notes, need);

	if (!p)
		return -ENOMEM;
	snprintf(p + have, need - have, "'%.*s' %s\n", (int)len, name, what);
	*notes = p;
	return 0;
}

/* One option of a legacy line onto the converted line. */
static int convert_one(struct converted *c, const char *name, size_t nlen,
		       const char *val, size_t vlen)
{
	const struct fstab_opt *o = fstab_opt_find(name, nlen);

	/* loop-AES's loop=/dev/loopN: the device is ours to choose (a
	 * swap line's N went into its first field already) */
	if (is("loop", name, nlen))
		return 0;
	if (is("user", name, nlen) || is("users", name, nlen) ||
	    is("owner", name, nlen) || is("group", name, nlen))
		/* mount.cryptoloop refuses user mounts before asking for a
		 * passphrase: keeping the option would only make them fail */
		return add_note(&c->notes, "dropped: mount.cryptoloop refuses user mounts, "
				"root mounts this line (see mount.cryptoloop(8))", name, nlen);
	if (!o)		/* noauto, nofail, sw, pri=, x-systemd.*, the filesystem's own */
		return append(&c->opts, "", name, nlen, val, val ? vlen : 0);
	if (!c->swap)
		return append(&c->opts, "", o->name, strlen(o->name), val, val ? vlen : 0);
	/* a swap line gets a fresh random key at each boot, as loop-AES's
	 * swapon gave it: there is no passphrase to read */
	if (!strcmp(o->name, "phash") && val && vlen == 6 && !strncmp(val, "random", 6))
		return 0;
	if (o->secret || o->kind != FOPT_LOSETUP || !strcmp(o->name, "phash"))
		return add_note(&c->notes, "dropped: a swap line gets a random key at "
				"each boot (phash=random)", name, nlen);
	return append(&c->opts, SWAP_PREFIX, fstab_opt_legacy_name(o),
		      strlen(fstab_opt_legacy_name(o)), val, val ? vlen : 0);
}

static int convert_options(struct converted *c, const char *fstype, const char *options,
			   const char *source)
{
	char *str, *p, *name, *val;
	size_t nlen, vlen;
	int rc = 0;

	str = strdup(options);
	if (!str)
		return -ENOMEM;
	p = str;
	/* the swap line's generic options first, then ours */
	if (c->swap) {
		while (rc == 0 && mnt_optstr_next_option(&p, &name, &nlen, &val, &vlen) == 0)
			if (!fstab_opt_find(name, nlen))
				rc = convert_one(c, name, nlen, val, vlen);
		if (rc == 0)
			rc = append(&c->opts, SWAP_PREFIX, "source", 6, source, strlen(source));
		strcpy(str, options);
		p = str;
	}
	while (rc == 0 && mnt_optstr_next_option(&p, &name, &nlen, &val, &vlen) == 0)
		if (!c->swap || fstab_opt_find(name, nlen))
			rc = convert_one(c, name, nlen, val, vlen);
	free(str);
	if (rc)
		return rc;
	if (c->swap)
		return append(&c->opts, SWAP_PREFIX, "phash", 5, "random", 6);
	/* the filesystem inside, unless it was left to detection; the helper
	 * still probes for it, so a wrong passphrase is still caught */
	if (fstype && *fstype && strcmp(fstype, "auto"))
		return append(&c->opts, "", "fstype", 6, fstype, strlen(fstype));
	return 0;
}

char *fstab_convert_options(const char *fstype, const char *options)
{
	struct converted c = { 0 };
	char *val;
	size_t vlen;

	if (!options || mnt_optstr_get_option(options, "encryption", &val, &vlen) != 0)
		return NULL;
	if (convert_options(&c, fstype, options, "") || !c.opts)
		free(c.opts), c.opts = NULL;
	free(c.notes);
	return c.opts;
}

/* The /dev/cryptoloopN of a swap line: N from loop-AES's loop=/dev/loopN. */
static void swap_device(const char *options, char *buf, size_t size)
{
	unsigned long n = 0;
	char *val = NULL, *end;
	size_t len = 0, i;

	if (mnt_optstr_get_option(options, "loop", &val, &len) == 0 && val) {
		for (i = len; i > 0 && isdigit((unsigned char)val[i - 1]); i--)
			;
		if (i < len)
			n = strtoul(val + i, &end, 10);
	}
	snprintf(buf, size, "/dev/cryptoloop%lu", n);
}

/* Print @s escaped as fstab(5) wants: what would end a field or begin a
 * comment, and the backslash itself, as \ooo. */
static void put_field(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\' || *s == '#')
			fprintf(out, "\\%03o", (unsigned char)*s);
		else
			fputc(*s, out);
	}
}

static void put_line(FILE *out, const char *prefix, const char *source, const char *target,
		     const char *fstype, const char *options, int freq, int passno)
{
	fputs(prefix, out);
	put_field(out, source);
	fputc(' ', out);
	put_field(out, target);
	fputc(' ', out);
	put_field(out, fstype);
	fputc(' ', out);
	put_field(out, options);
	fprintf(out, " %d %d\n", freq, passno);
}

/* 1 with the line printed, 0 when it is no legacy encrypted line. */
static int convert_fs(struct libmnt_fs *fs, FILE *out)
{
	const char *options = mnt_fs_get_options(fs), *fstype = mnt_fs_get_fstype(fs);
	const char *source = mnt_fs_get_source(fs), *target = mnt_fs_get_target(fs);
	struct converted c = { 0 };
	char dev[64], *val, *p, *nl;
	size_t vlen;
	int rc;

	if (!options || mnt_optstr_get_option(options, "encryption", &val, &vlen) != 0)
		return 0;
	c.swap = fstype && !strcmp(fstype, "swap");
	rc = convert_options(&c, fstype, options, source ? source : "");
	if (rc) {
		free(c.opts);
		free(c.notes);
		return rc;
	}
	put_line(out, "# was: ", source, target, fstype, options,
		 mnt_fs_get_freq(fs), mnt_fs_get_passno(fs));
	for (p = c.notes; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		fprintf(out, "# note: %.*s\n", (int)(nl - p), p);
	}
	if (c.swap) {
		swap_device(options, dev, sizeof(dev));
		put_line(out, "", dev, target, "swap", c.opts,
			 mnt_fs_get_freq(fs), mnt_fs_get_passno(fs));
	} else {
		put_line(out, "", source, target, "cryptoloop", c.opts,
			 mnt_fs_get_freq(fs), mnt_fs_get_passno(fs));
	}
	free(c.opts);
	free(c.notes);
	return 1;
}

int fstab_convert_file(const char *fstab, FILE *out)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int rc, n = 0;

	if (!tb || !itr) {
		rc = -ENOMEM;
		goto out;
	}
	rc = mnt_table_parse_fstab(tb, fstab);
	if (rc)
		goto out;
	while (mnt_table_next_fs(tb, itr, &fs) == 0) {
		rc = convert_fs(fs, out);
		if (rc < 0)
			goto out;
		n += rc;
	}
	rc = n;
out:
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	return rc;
}
