/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpg run with --no-options does not create its home directory: without
 * one it still prints the key lines, then fails on the missing keyring
 * with exit status 2, which is indistinguishable from a damaged key file.
 * A symmetric key file needs no keyring, so on a fresh system, at boot
 * (no HOME) or in an initramfs, gpg gets an empty private home instead.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secret/gpg-home.h"

/* The home gpg picks by itself: $GNUPGHOME, else ~/.gnupg with ~ from
 * $HOME or, failing that, the password database. */
static int gpg_default_home(char *buf, size_t size)
{
	const char *gh = secure_getenv("GNUPGHOME"), *home = secure_getenv("HOME");
	struct passwd *pw;
	int n;

	if (gh && *gh)
		n = snprintf(buf, size, "%s", gh);
	else if (home && *home)
		n = snprintf(buf, size, "%s/.gnupg", home);
	else if ((pw = getpwuid(geteuid())) && pw->pw_dir && *pw->pw_dir)
		n = snprintf(buf, size, "%s/.gnupg", pw->pw_dir);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int gpg_home_fallback(const char *homedir, char *buf, size_t size)
{
	/* /run is writable before the root file system is */
	static const char *const parents[] = { "/run", "/tmp" };
	struct stat st;
	unsigned int i;
	int r;

	if (homedir)
		return 0;
	r = gpg_default_home(buf, size);
	if (!r && stat(buf, &st) == 0)
		return 0;
	for (i = 0; i < sizeof(parents) / sizeof(parents[0]); i++) {
		if (snprintf(buf, size, "%s/cryptoloop-gpg.XXXXXX", parents[i]) >= (int)size)
			return -ENAMETOOLONG;
		if (mkdtemp(buf))
			return 1;
	}
	return -errno;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void gpg_home_remove(const char *dir)
{
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
