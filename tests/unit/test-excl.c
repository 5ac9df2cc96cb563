// SPDX-License-Identifier: GPL-2.0-or-later
/* Mutually exclusive options, with util-linux losetup's groups. */
#include "../../losetup/options.h"
#include "tap.h"

static int run(const int *opts)
{
	int st[8] = { 0 };
	int g;

	for (; *opts; opts++) {
		g = excl_check(*opts, opt_excl, st);
		if (g)
			return g;
	}
	return 0;
}

int main(void)
{
	ok(run((int[]){ 'a', 'a', 0 }) == 0, "-a twice is fine");
	ok(run((int[]){ 'a', 'd', 0 }) == 1, "-a -d conflict (group 1)");
	ok(run((int[]){ 'D', 'f', 0 }) == 1, "-D -f conflict");
	ok(run((int[]){ 'f', 'l', 0 }) == 2, "-f -l conflict (group 2)");
	ok(run((int[]){ 'l', 'O', 0 }) == 0, "-l -O are compatible");
	/* util-linux 2.42 sorted its third group: -O now conflicts with -c
	 * (2.38 accepted -c DEV -O NAME) */
	ok(run((int[]){ 'c', 'O', 0 }) == 3, "-c -O conflict (group 3)");
	ok(run((int[]){ 'O', 'f', 0 }) == 3, "-O -f conflict");
	ok(run((int[]){ 'a', OPT_REMOVE, 0 }) == 1, "-a --remove conflict");
	ok(run((int[]){ OPT_REMOVE, 'l', 0 }) == 2, "--remove -l conflict");
	ok(run((int[]){ 'O', OPT_REMOVE, 0 }) == 3, "-O --remove conflict");
	ok(run((int[]){ OPT_REMOVE, OPT_REMOVE, 0 }) == 0, "--remove twice is fine");
	ok(run((int[]){ 'J', OPT_RAW, 0 }) == 4, "--json --raw conflict");
	ok(run((int[]){ 'J', 'l', 'a', 0 }) == 0, "-J -l -a together");
	ok(run((int[]){ 'j', 'o', 'l', 0 }) == 0, "-j -o -l together");
	ok(run((int[]){ 'f', 'P', 'r', 'o', OPT_SIZELIMIT, OPT_SHOW, 0 }) == 0,
	   "setup options with -f");
	ok(run((int[]){ 'd', 'j', 0 }) == 1, "-d -j conflict");
	return tap_done();
}
