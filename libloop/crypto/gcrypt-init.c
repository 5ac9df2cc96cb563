/*
 * gcrypt-init.c - initialise libgcrypt once, unless the application did.
 *
 * libgcrypt's secure memory holds the key schedules of cipher handles we
 * open with GCRY_CIPHER_SECURE (our own buffers use secure-mem.c).  Its
 * warnings are switched off because libloop never prints.  If the
 * application initialised libgcrypt first, its choices stand; with its
 * secure memory disabled, libgcrypt falls back to ordinary memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <gcrypt.h>

#include "crypto/crypto-internal.h"

#define LOOP_GCRYPT_MIN_VERSION "1.8.0"

static pthread_once_t gcrypt_once = PTHREAD_ONCE_INIT;
static int gcrypt_status;
/* We set up libgcrypt's secure memory ourselves, so asking for it is safe.
 * If the application initialised libgcrypt, we cannot tell whether it
 * did, and libgcrypt logs an error when secure memory is requested but
 * missing, so we then use ordinary libgcrypt allocations. */
static int gcrypt_secmem_ours;

static void gcrypt_do_init(void)
{
	if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		gcrypt_status = 0;
		return;
	}
	if (!gcry_check_version(LOOP_GCRYPT_MIN_VERSION)) {
		gcrypt_status = -ENOTSUP;
		return;
	}
	gcry_control(GCRYCTL_DISABLE_SECMEM_WARN, 0);
	gcry_control(GCRYCTL_INIT_SECMEM, 65536, 0);
	/* A pool per cipher handle; many devices need more than 64 KiB. */
	gcry_control(GCRYCTL_AUTO_EXPAND_SECMEM, 1 << 20, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	gcrypt_secmem_ours = 1;
	gcrypt_status = 0;
}

unsigned int loop_gcry_cipher_flags(void)
{
	return gcrypt_secmem_ours ? GCRY_CIPHER_SECURE : 0;
}

int loop_gcrypt_init(void)
{
	pthread_once(&gcrypt_once, gcrypt_do_init);
	return gcrypt_status;
}

LIBLOOP_EXPORT int loop_crypt_init(void)
{
	return loop_gcrypt_init();
}

int loop_hash_buffer(int gcry_algo, const void *in, size_t len,
		     uint8_t *out, size_t out_len)
{
	gcry_md_hd_t md;
	unsigned int dlen;
	int r = loop_gcrypt_init();

	if (r < 0)
		return r;
	dlen = gcry_md_get_algo_dlen(gcry_algo);
	if (!dlen)
		return -ENOTSUP;
	if (out_len > dlen)
		return -EINVAL;
	if (gcry_md_open(&md, gcry_algo, gcrypt_secmem_ours ? GCRY_MD_FLAG_SECURE : 0))
		return -ENOMEM;
	gcry_md_write(md, in, len);
	memcpy(out, gcry_md_read(md, gcry_algo), out_len);
	gcry_md_close(md);
	return 0;
}
