// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dm-cycles IMAGE COUNT: attach IMAGE through libloop's dm engine and
 * detach it COUNT times in one process (loop-AES AES128, the passphrase
 * on stdin), checking after each detach that neither the mapping nor the
 * loop device under it is left. One process, because under TCG starting
 * losetup (libcryptsetup and its libraries) costs more than the cycle.
 * Exit 0 when every cycle was clean; 1 with the failing cycle named.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libloop.h"

static int fail(int cycle, const char *what, int rc)
{
	fprintf(stderr, "dm-cycles: cycle %d: %s: %s\n", cycle, what, strerror(-rc));
	return 1;
}

int main(int argc, char **argv)
{
	struct loop_key_params params = { 0 };
	struct loop_engine_config cfg = { 0 };
	struct loop_cipher_spec spec;
	struct loop_state *st;
	struct loop_pass *pass = NULL;
	struct loop_key *key = NULL;
	struct loopdev *ld;
	char lower[64];
	struct stat sb;
	int count, i, rc;

	if (argc != 3 || (count = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: dm-cycles IMAGE COUNT <passphrase\n");
		return 2;
	}
	rc = loop_cipher_spec_parse(&spec, "AES128", 0, LOOP_SPEC_LOOPAES);
	if (!rc)
		rc = loop_pass_read_fd(&pass, 0, LOOP_PASS_ONE_LINE);
	if (!rc)
		rc = loop_key_derive(&key, &spec, &params, pass);
	loop_pass_free(pass);
	if (rc)
		return fail(0, "key", rc);
	cfg.image = argv[1];
	cfg.spec = &spec;
	cfg.key = key;
	cfg.iv_offset = loop_crypt_iv_offset(0, -1);
	cfg.engine = LOOP_ENGINE_DM;
	if (loop_state_new(&st))
		return fail(0, "loop_state_new", -ENOMEM);

	for (i = 1; i <= count; i++) {
		if (loopdev_new(&ld))
			return fail(i, "loopdev_new", -ENOMEM);
		rc = loop_engine_attach(ld, &cfg, st, NULL);
		if (rc)
			return fail(i, "attach", rc);
		if (stat(loop_state_get_device(st), &sb) < 0 || !S_ISBLK(sb.st_mode))
			return fail(i, loop_state_get_device(st), -ENODEV);
		snprintf(lower, sizeof(lower), "%s", loopdev_get_path(ld));
		rc = loop_engine_detach(ld);
		if (rc)
			return fail(i, "detach", rc);
		loopdev_free(ld);
		if (access(loop_state_get_device(st), F_OK) == 0)
			return fail(i, "mapping left", -EEXIST);
		if (loopdev_new(&ld))
			return fail(i, "loopdev_new", -ENOMEM);
		if (loopdev_set_device(ld, lower) == 0 && loopdev_is_attached(ld))
			return fail(i, "loop device left", -EEXIST);
		loopdev_free(ld);
	}
	loop_key_free(key);
	loop_state_free(st);
	printf("%d cycles\n", count);
	return 0;
}
