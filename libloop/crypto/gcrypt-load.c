// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgcrypt, loaded on first use. Most runs of losetup attach or list
 * plain loop devices, and loading libgcrypt and libgpg-error at every
 * start costs them a quarter of a millisecond, as much as the attach.
 * libloop.so therefore does not link libgcrypt: the encryption core
 * (libloop/crypto/) calls these functions of the same names, hidden
 * inside libloop.so, and each one forwards to libgcrypt, which the first
 * call opens. A program that links libgcrypt itself shares the one copy
 * the dynamic loader already has, with its initialisation.
 *
 * Only what libloop/crypto/ calls is here; a new gcry_* call there is an
 * undefined symbol in libloop.so, which tests/startup-deps.sh fails on,
 * until it is added below.
 * Not in the tests' and tools' builds: they link libgcrypt directly.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <gcrypt.h>

#include "base/private.h"

/* libgcrypt's ABI since 1.6 (2013) */
#define GCRYPT_SONAME "libgcrypt.so.20"

#define GCRY_FUNCS(X) \
	X(gcry_check_version) X(gcry_control) X(gcry_malloc_secure) \
	X(gcry_randomize) X(gcry_cipher_open) X(gcry_cipher_close) \
	X(gcry_cipher_setkey) X(gcry_cipher_setiv) X(gcry_cipher_encrypt) \
	X(gcry_cipher_decrypt) X(gcry_md_open) X(gcry_md_close) \
	X(gcry_md_reset) X(gcry_md_write) X(gcry_md_read) \
	X(gcry_md_get_algo_dlen) X(gcry_md_map_name) X(gcry_md_algo_info)

static struct {
#define FIELD(f) __typeof__(&f) f;
	GCRY_FUNCS(FIELD)
#undef FIELD
} real;
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(GCRYPT_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		DBG(CRYPTO, GCRYPT_SONAME, "cannot load: %s", dlerror());
		return;
	}
#define LOOKUP(f) \
	*(void **)&real.f = dlsym(h, #f); \
	if (!real.f) { \
		DBG(CRYPTO, GCRYPT_SONAME, "no %s", #f); \
		return; \
	}
	GCRY_FUNCS(LOOKUP)
#undef LOOKUP
	loaded = 1;
	DBG(CRYPTO, GCRYPT_SONAME, "loaded");
}

static int have_gcrypt(void)
{
	pthread_once(&load_once, load);
	return loaded;
}

static gcry_error_t not_loaded(void)
{
	return gcry_error(GPG_ERR_NOT_IMPLEMENTED);
}

const char *gcry_check_version(const char *req)
{
	return have_gcrypt() ? real.gcry_check_version(req) : NULL;
}

/*
 * A variadic call cannot be forwarded as such: each command the core
 * uses is passed on with the arguments it takes.
 */
gcry_error_t gcry_control(enum gcry_ctl_cmds cmd, ...)
{
	va_list ap;
	int a, b;

	if (!have_gcrypt())
		return not_loaded();
	switch (cmd) {
	case GCRYCTL_INITIALIZATION_FINISHED_P:
	case GCRYCTL_ANY_INITIALIZATION_P:
		return real.gcry_control(cmd);
	case GCRYCTL_DISABLE_SECMEM_WARN:
	case GCRYCTL_INITIALIZATION_FINISHED:
		va_start(ap, cmd);
		a = va_arg(ap, int);
		va_end(ap);
		return real.gcry_control(cmd, a);
	case GCRYCTL_INIT_SECMEM:
	case GCRYCTL_AUTO_EXPAND_SECMEM:
		va_start(ap, cmd);
		a = va_arg(ap, int);
		b = va_arg(ap, int);
		va_end(ap);
		return real.gcry_control(cmd, a, b);
	default:
		DBG(CRYPTO, GCRYPT_SONAME, "gcry_control(%d) not forwarded", (int)cmd);
		return gcry_error(GPG_ERR_NOT_SUPPORTED);
	}
}

void *gcry_malloc_secure(size_t n)
{
	return have_gcrypt() ? real.gcry_malloc_secure(n) : NULL;
}

void gcry_randomize(void *buffer, size_t length, enum gcry_random_level level)
{
	/* no way to say it failed, and a key must never be left predictable */
	if (!have_gcrypt())
		abort();
	real.gcry_randomize(buffer, length, level);
}

gcry_error_t gcry_cipher_open(gcry_cipher_hd_t *h, int algo, int mode, unsigned int flags)
{
	return have_gcrypt() ? real.gcry_cipher_open(h, algo, mode, flags) : not_loaded();
}

/* Handles exist only once libgcrypt is loaded: no check below. */
void gcry_cipher_close(gcry_cipher_hd_t h)
{
	real.gcry_cipher_close(h);
}

gcry_error_t gcry_cipher_setkey(gcry_cipher_hd_t h, const void *key, size_t keylen)
{
	return real.gcry_cipher_setkey(h, key, keylen);
}

gcry_error_t gcry_cipher_setiv(gcry_cipher_hd_t h, const void *iv, size_t ivlen)
{
	return real.gcry_cipher_setiv(h, iv, ivlen);
}

gcry_error_t gcry_cipher_encrypt(gcry_cipher_hd_t h, void *out, size_t outsize,
				 const void *in, size_t inlen)
{
	return real.gcry_cipher_encrypt(h, out, outsize, in, inlen);
}

gcry_error_t gcry_cipher_decrypt(gcry_cipher_hd_t h, void *out, size_t outsize,
				 const void *in, size_t inlen)
{
	return real.gcry_cipher_decrypt(h, out, outsize, in, inlen);
}

gcry_error_t gcry_md_open(gcry_md_hd_t *h, int algo, unsigned int flags)
{
	return have_gcrypt() ? real.gcry_md_open(h, algo, flags) : not_loaded();
}

void gcry_md_close(gcry_md_hd_t h)
{
	real.gcry_md_close(h);
}

void gcry_md_reset(gcry_md_hd_t h)
{
	real.gcry_md_reset(h);
}

void gcry_md_write(gcry_md_hd_t h, const void *buffer, size_t length)
{
	real.gcry_md_write(h, buffer, length);
}

unsigned char *gcry_md_read(gcry_md_hd_t h, int algo)
{
	return real.gcry_md_read(h, algo);
}

unsigned int gcry_md_get_algo_dlen(int algo)
{
	return have_gcrypt() ? real.gcry_md_get_algo_dlen(algo) : 0;
}

int gcry_md_map_name(const char *name)
{
	return have_gcrypt() ? real.gcry_md_map_name(name) : 0;
}

gcry_error_t gcry_md_algo_info(int algo, int what, void *buffer, size_t *nbytes)
{
	return have_gcrypt() ? real.gcry_md_algo_info(algo, what, buffer, nbytes) : not_loaded();
}
