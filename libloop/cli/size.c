// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Size arguments, parsed exactly like util-linux's strtosize() so that
 * every "-o", "--sizelimit" and "-b" value a script passes means the same.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "cli/size.h"

static int scale(uint64_t *x, unsigned int base, int power)
{
	while (power-- > 0) {
		if (*x > UINT64_MAX / base)
			return -ERANGE;
		*x *= base;
	}
	return 0;
}

/* The suffix letter's power: K=1 ... Y=8, either case; 0 if not one. */
static int suffix_power(char c)
{
	static const char letters[] = "KMGTPEZY";
	const char *p = c ? strchr(letters, toupper((unsigned char)c)) : NULL;

	return p ? (int)(p - letters) + 1 : 0;
}

/*
 * Add the fraction digits in @frac (with @zeros leading zeros, as in
 * "1.05") scaled to one unit of @base^@power, truncating like util-linux.
 */
static void add_fraction(uint64_t *x, uint64_t frac, int zeros,
			 unsigned int base, int power)
{
	uint64_t unit = 1, div = 10, pos = 1;

	scale(&unit, base, power);
	while (div < frac) {
		if (div <= UINT64_MAX / 10)
			div *= 10;
		else
			frac /= 10;
	}
	for (; zeros > 0; zeros--) {
		if (div <= UINT64_MAX / 10)
			div *= 10;
		else
			frac /= 10;
	}
	do {
		unsigned int digit = frac % 10;
		uint64_t seg = div / pos;

		frac /= 10;
		pos *= 10;
		if (digit && seg / digit)
			*x += unit / (seg / digit);
	} while (frac);
}

int loop_parse_size(const char *str, uint64_t *res)
{
	const char *p, *dp;
	char *end;
	uint64_t x, frac = 0;
	unsigned int base = 1024;
	int zeros = 0, power, rc;
	size_t dplen;

	*res = 0;
	if (!str || !*str)
		return -EINVAL;
	for (p = str; isspace((unsigned char)*p); p++)
		;
	if (*p == '-')
		return -EINVAL;

	errno = 0;
	x = strtoumax(str, &end, 0);
	if (end == str || (errno && (x == UINTMAX_MAX || x == 0)))
		return errno ? -errno : -EINVAL;
	if (!*end) {
		*res = x;
		return 0;
	}

	dp = localeconv()->decimal_point;
	dplen = dp ? strlen(dp) : 0;
	p = end;
	for (;;) {
		/* "1.0": the fraction ate everything, no suffix letter left
		 * (and p[1] would be past the string) */
		if (!*p)
			return -EINVAL;
		if (p[1] == 'i' && (p[2] == 'B' || p[2] == 'b') && !p[3])
			base = 1024;
		else if ((p[1] == 'B' || p[1] == 'b') && !p[2])
			base = 1000;
		else if (p[1]) {
			const char *f;

			/* one decimal fraction before the suffix: "1.5G" */
			if (frac || !dplen || strncmp(dp, p, dplen))
				return -EINVAL;
			for (f = p + dplen; *f == '0'; f++)
				zeros++;
			if (isdigit((unsigned char)*f)) {
				errno = 0;
				frac = strtoumax(f, &end, 0);
				if (end == f || (errno && (frac == UINTMAX_MAX || frac == 0)))
					return errno ? -errno : -EINVAL;
			} else {
				end = (char *)f;
			}
			if (frac && !*end)
				return -EINVAL;
			p = end;
			continue;
		}
		break;
	}

	power = suffix_power(*p);
	if (!power)
		return -EINVAL;
	rc = scale(&x, base, power);
	if (rc)
		return rc;	/* *res stays 0, as on every other error */
	if (frac)
		add_fraction(&x, frac, zeros, base, power);
	*res = x;
	return 0;
}
