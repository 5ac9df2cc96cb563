/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An application that initialised libgcrypt itself, without secure
 * memory: libloop must still work and must not make libgcrypt print
 * ("operation is not possible without initialized secure memory").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gcrypt.h>

#include "libloop-crypto.h"
#include "tap.h"

int main(void)
{
	struct loop_cipher_spec spec;
	struct loop_key_params kp = { .hash = "sha256" };
	struct loop_pass *p = NULL;
	struct loop_key *k = NULL;
	struct loop_crypt *x = NULL;
	uint8_t sec[512] = { 1 }, back[512];
	FILE *err = tmpfile();
	int saved = dup(2), r;
	long printed;

	gcry_check_version(NULL);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);

	dup2(fileno(err), 2);
	setenv("LIBLOOP_CRYPTO_NO_AESNI", "1", 1);   /* exercise libgcrypt handles */
	r = loop_cipher_spec_parse(&spec, "AES256", 0, 0);
	if (!r)
		r = loop_pass_from_buffer(&p, "an application-initialised gcrypt", 33, LOOP_PASS_ONE_LINE);
	if (!r)
		r = loop_key_derive(&k, &spec, &kp, p);
	if (!r)
		r = loop_crypt_new(&x, &spec, k, 0);
	if (!r)
		r = loop_crypt_encrypt(x, 9, back, sec, 1);
	if (!r)
		r = loop_crypt_decrypt(x, 9, back, back, 1);
	loop_crypt_free(x);
	loop_key_free(k);
	loop_pass_free(p);
	fflush(stderr);
	printed = ftell(err) > 0 ? ftell(err) : lseek(fileno(err), 0, SEEK_END);
	dup2(saved, 2);

	ok(!r && !memcmp(back, sec, 512), "works with the application's libgcrypt setup (r=%d)", r);
	ok(printed == 0, "nothing printed on stderr (%ld bytes)", printed);
	return tap_done();
}
