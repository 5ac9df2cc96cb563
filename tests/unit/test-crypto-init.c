/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An application that uses libgcrypt itself and calls loop_crypt_init()
 * before its own first libgcrypt call (cryptoloop-reencrypt): libgcrypt
 * then has secure memory, and libloop opens its cipher handles in it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>
#include <gcrypt.h>

#include "libloop-crypto.h"
#include "crypto/crypto-internal.h"
#include "tap.h"

int main(void)
{
	struct loop_cipher_spec spec;
	struct loop_key_params kp = { .hash = "sha256" };
	struct loop_pass *p = NULL;
	struct loop_key *k = NULL;
	struct loop_crypt *x = NULL;
	static const char pass[] = "in libgcrypt's secure memory";
	uint8_t sec[512] = { 1 }, back[512];
	void *mem;
	int r;

	ok(loop_crypt_init() == 0, "loop_crypt_init() sets libgcrypt up");
	ok(gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P), "libgcrypt is initialised");
	ok(loop_gcry_cipher_flags() == GCRY_CIPHER_SECURE,
	   "libloop's cipher handles go to secure memory");
	mem = gcry_malloc_secure(64);
	ok(mem && gcry_is_secure(mem), "the application's secure allocations are secure");
	gcry_free(mem);
	ok(loop_crypt_init() == 0 && loop_gcry_cipher_flags() == GCRY_CIPHER_SECURE,
	   "a second call changes nothing");

	/* libgcrypt's handles, not libloop's AES-NI */
	setenv("LIBLOOP_CRYPTO_NO_AESNI", "1", 1);
	r = loop_cipher_spec_parse(&spec, "AES256", 0, 0);
	if (!r)
		r = loop_pass_from_buffer(&p, pass, strlen(pass), LOOP_PASS_ONE_LINE);
	if (!r)
		r = loop_key_derive(&k, &spec, &kp, p);
	if (!r)
		r = loop_crypt_new(&x, &spec, k, 0);
	if (!r)
		r = loop_crypt_encrypt(x, 9, back, sec, 1);
	if (!r)
		r = loop_crypt_decrypt(x, 9, back, back, 1);
	ok(!r && !memcmp(back, sec, sizeof(sec)), "a sector round-trips through them (r=%d)", r);
	loop_crypt_free(x);
	loop_key_free(k);
	loop_pass_free(p);
	return tap_done();
}
