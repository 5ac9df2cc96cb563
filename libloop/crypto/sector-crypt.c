/*
 * sector-crypt.c - the sector encryption: encrypt/decrypt runs of 512-byte
 * sectors in every on-disk format (libloop/crypto/README.md).
 *
 * Two back ends:
 *  - AES with AES-NI: our interleaved CBC (aesni-cbc.c); key schedules
 *    are computed once and only read afterwards, so any number of threads
 *    can share the context without locking.
 *  - everything else: libgcrypt.  A gcrypt handle carries a mutable IV,
 *    so each call borrows a handle set from a mutex-protected pool and
 *    gives it back; the pool grows to the number of concurrent callers.
 *
 * The context itself (and the AES schedules in it) sits in locked memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <gcrypt.h>

#include "crypto/crypto-internal.h"

enum iv_kind { IV_PLAIN32, IV_PLAIN64, IV_LMK };

struct handle_set {
	struct handle_set *next;
	unsigned int n;
	gcry_cipher_hd_t hd[];
};

struct loop_crypt {
	size_t alloc_size;
	enum iv_kind iv_kind;
	unsigned int nkeys;          /* cipher keys: 1 or 64 */
	unsigned int key_bytes;
	unsigned int block_bytes;
	uint64_t iv_offset;
	int use_aesni;
	int use_vaes;                /* AES-NI on ymm: 16-sector encrypt, 16-block decrypt */
	unsigned int md5_lanes;      /* lmk IVs hashed at once: 32, 16, 8 or 1 */
	int lmk_fused;               /* lmk: MD5 interleaved with VAES (aesni-lmk*.c) */
	const char *impl;            /* loop_crypt_impl_name() */
	int gcry_algo;
	uint32_t lmk_seed[4];        /* MD5 state the lmk IV starts from */
	pthread_mutex_t pool_lock;
	struct handle_set *pool;
	uint8_t *raw_keys;           /* nkeys * key_bytes, for new handles */
	struct loop_aesni_key *aes;  /* nkeys schedules, 16-byte aligned */
};

LIBLOOP_EXPORT uint64_t loop_crypt_iv_offset(uint64_t offset_bytes, int64_t override)
{
	/* kernel loop.c: IV = (byte position in the backing file) >> 9 */
	return override >= 0 ? (uint64_t)override : offset_bytes >> 9;
}

static void free_handle_set(struct handle_set *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		gcry_cipher_close(s->hd[i]);   /* wipes the key schedule */
	free(s);
}

static struct handle_set *new_handle_set(const struct loop_crypt *x)
{
	struct handle_set *s;
	unsigned int i;

	s = calloc(1, sizeof(*s) + x->nkeys * sizeof(gcry_cipher_hd_t));
	if (!s)
		return NULL;
	for (i = 0; i < x->nkeys; i++) {
		if (gcry_cipher_open(&s->hd[i], x->gcry_algo, GCRY_CIPHER_MODE_CBC,
				     loop_gcry_cipher_flags()))
			goto fail;
		s->n = i + 1;
		if (gcry_cipher_setkey(s->hd[i], x->raw_keys + (size_t)i * x->key_bytes,
				       x->key_bytes))
			goto fail;
	}
	return s;
fail:
	free_handle_set(s);
	return NULL;
}

static struct handle_set *get_handles(struct loop_crypt *x)
{
	struct handle_set *s;

	pthread_mutex_lock(&x->pool_lock);
	s = x->pool;
	if (s)
		x->pool = s->next;
	pthread_mutex_unlock(&x->pool_lock);
	return s ? s : new_handle_set(x);
}

static void put_handles(struct loop_crypt *x, struct handle_set *s)
{
	pthread_mutex_lock(&x->pool_lock);
	s->next = x->pool;
	x->pool = s;
	pthread_mutex_unlock(&x->pool_lock);
}

static void sector_iv(const struct loop_crypt *x, uint8_t iv[16], uint64_t ivsec)
{
	int i;

	memset(iv, 0, 16);
	/* plain: the kernel cryptoloop IV was a u32 - it wraps at 2 TiB */
	if (x->iv_kind == IV_PLAIN32)
		ivsec &= 0xFFFFFFFFu;
	for (i = 0; i < 8; i++)
		iv[i] = (uint8_t)(ivsec >> (8 * i));
}

static unsigned int key_index(const struct loop_crypt *x, uint64_t ivsec)
{
	return x->nkeys == 1 ? 0 : (unsigned int)(ivsec & 63);
}

/*
 * "SHORT[, detail...]"; SHORT is what loop_crypt_impl_name() documents.
 * Static strings, so a name outlives its context: [AES back end][lmk].
 */
static const char *const impl_names[3][7] = {
	{ "libgcrypt", "libgcrypt, md5 1-lane" },
	{ "aesni-8way, xmm", "aesni-8way, xmm, md5 1-lane", "aesni-8way, xmm, md5 8-lane avx2",
	  "aesni-8way, xmm, md5 16-lane avx2", NULL, "aesni-8way, xmm, md5 32-lane avx512" },
	{ "aesni-8way+vaes, ymm", "aesni-8way+vaes, ymm, md5 1-lane",
	  "aesni-8way+vaes, ymm, md5 8-lane avx2", "aesni-8way+vaes, ymm, md5 16-lane avx2",
	  "aesni-8way+vaes, ymm, md5 16-lane avx2 fused",
	  "aesni-8way+vaes, ymm, md5 32-lane avx512",
	  "aesni-8way+vaes, ymm, md5 32-lane avx512 fused" },
};

static void name_impl(struct loop_crypt *x)
{
	int aes = !x->use_aesni ? 0 : x->use_vaes ? 2 : 1;
	int lmk = x->iv_kind != IV_LMK ? 0 : x->lmk_fused ? (x->md5_lanes >= 32 ? 6 : 4) :
		  x->md5_lanes >= 32 ? 5 :
		  x->md5_lanes >= 16 ? 3 : x->md5_lanes >= 8 ? 2 : 1;

	x->impl = impl_names[aes][lmk];
}

static int crypt_new(struct loop_crypt **crypt, const struct loop_cipher_spec *spec,
		     const struct loop_key *key, uint64_t iv_offset)
{
	struct loop_crypt *x;
	unsigned int count, ksize, nkeys, i;
	size_t size, aes_off;
	int algo, r;

	if (!crypt || !spec || !key)
		return -EINVAL;
	*crypt = NULL;
	r = loop_gcrypt_init();
	if (r < 0)
		return r;
	count = loop_key_count(key);
	ksize = loop_key_size(key);
	algo = loop_gcry_cipher_algo(spec->alg, ksize);
	if (algo < 0)
		return algo;
	if (count != 1 && (spec->format != LOOP_FORMAT_LOOPAES ||
			   spec->block_bytes != 16))
		return -EINVAL;
	if (count != 1 && count != CLO_MULTI_KEYS && count != CLO_MULTI_KEYS_V3)
		return -EINVAL;
	nkeys = count == 1 ? 1 : CLO_MULTI_KEYS;

	aes_off = (sizeof(*x) + 63) & ~(size_t)63;
	size = aes_off + nkeys * sizeof(struct loop_aesni_key) + (size_t)nkeys * ksize;
	x = loop_secure_alloc(size);
	if (!x)
		return -ENOMEM;
	x->alloc_size = size;
	x->aes = (struct loop_aesni_key *)((uint8_t *)x + aes_off);
	x->raw_keys = (uint8_t *)(x->aes + nkeys);
	x->nkeys = nkeys;
	x->key_bytes = ksize;
	x->block_bytes = spec->block_bytes;
	x->iv_offset = iv_offset;
	x->gcry_algo = algo;
	pthread_mutex_init(&x->pool_lock, NULL);

	switch (spec->format) {
	case LOOP_FORMAT_CRYPTOLOOP: x->iv_kind = IV_PLAIN32; break;
	case LOOP_FORMAT_PLAIN64:    x->iv_kind = IV_PLAIN64; break;
	case LOOP_FORMAT_LOOPAES:
		x->iv_kind = count == 1 ? IV_PLAIN64 : IV_LMK;
		break;
	default:
		loop_crypt_free(x);
		return -EINVAL;
	}
	for (i = 0; i < nkeys; i++)
		memcpy(x->raw_keys + (size_t)i * ksize, loop_key_data(key, i), ksize);

	if (x->iv_kind == IV_LMK) {
		loop_md5_init_state(x->lmk_seed);
		if (count == CLO_MULTI_KEYS_V3) {
			/* v3: MD5 state advanced over key 65's first 128 bits
			 * padded with zeros to one 64-byte block. */
			uint8_t blk[64] = { 0 };

			memcpy(blk, loop_key_data(key, 64), ksize < 16 ? ksize : 16);
			loop_md5_compress(x->lmk_seed, blk);
			explicit_bzero(blk, sizeof(blk));
		}
	}

	/* The paths are chosen here, once: every I/O on this context then
	 * runs the same code, whatever the environment says later. */
	x->use_aesni = spec->alg == LOOP_CIPHER_AES && loop_aesni_available() &&
		       !getenv("LIBLOOP_CRYPTO_NO_AESNI");
	x->use_vaes = x->use_aesni && loop_aes_width() >= 256;
	/* the libgcrypt back end hashes the lmk IV one sector at a time */
	x->md5_lanes = x->iv_kind == IV_LMK && x->use_aesni ? loop_md5_lanes() : 1;
	/*
	 * The fused loops run the hash of one batch in the gaps of another
	 * batch's VAES.  With AVX2 (16 lanes) they hide a hash slower than
	 * the AES; with AVX-512 (32 lanes, AES on zmm) the
	 * hash is waiting on its own steps' latency, not on the vector
	 * ports, and the AES fills that wait.  Measured faster than the
	 * same lanes unfused on both (libloop/crypto/README.md); the
	 * unfused paths remain for xmm AES (LIBLOOP_CRYPTO_AES_WIDTH=128).
	 */
	x->lmk_fused = x->iv_kind == IV_LMK && x->use_vaes &&
		       (x->md5_lanes == 16 ||
			(x->md5_lanes == 32 && loop_aesni_lmk_x32_available()));
	name_impl(x);
	if (x->use_aesni) {
		for (i = 0; i < nkeys; i++)
			loop_aesni_expand_key(&x->aes[i], x->raw_keys + (size_t)i * ksize, ksize);
	} else {
		/* Fail now, not on the first I/O, if the key is unusable. */
		struct handle_set *s = new_handle_set(x);

		if (!s) {
			loop_crypt_free(x);
			return -ENOMEM;
		}
		put_handles(x, s);
	}
	*crypt = x;
	return 0;
}

LIBLOOP_EXPORT int loop_crypt_new(struct loop_crypt **crypt, const struct loop_cipher_spec *spec,
				  const struct loop_key *key, uint64_t iv_offset)
{
	int r = crypt_new(crypt, spec, key, iv_offset);

	/* the keys were copied and expanded through the stack and registers */
	loop_secret_scrub();
	return r;
}

LIBLOOP_EXPORT const char *loop_crypt_impl_name(const struct loop_crypt *x)
{
	return x && x->impl ? x->impl : "libgcrypt";
}

LIBLOOP_EXPORT void loop_crypt_free(struct loop_crypt *x)
{
	struct handle_set *s;

	if (!x)
		return;
	while ((s = x->pool) != NULL) {
		x->pool = s->next;
		free_handle_set(s);
	}
	pthread_mutex_destroy(&x->pool_lock);
	loop_secure_free(x, x->alloc_size);
}

/* ---- AES-NI back end ------------------------------------------------ */

static void decrypt_sector(const struct loop_crypt *x, const struct loop_aesni_key *k,
			   const uint8_t iv[16], uint8_t *dst, const uint8_t *src)
{
	if (x->use_vaes)
		loop_aesni_cbc_decrypt_sector_vaes(k, iv, dst, src);
	else
		loop_aesni_cbc_decrypt_sector_x8(k, iv, dst, src);
}

/* lmk IVs of n (1..32) sectors, as many at once as the CPU allows */
static void lmk_ivs(const struct loop_crypt *x, uint8_t iv[][16],
		    const uint8_t *const p[], const uint64_t ivsec[], unsigned int n)
{
	unsigned int l = 0;

	if (n == 32 && x->md5_lanes >= 32) {
		loop_lmk_iv_x32(iv, x->lmk_seed, p, ivsec);
		return;
	}
	if (n == 16 && x->md5_lanes >= 16) {
		loop_lmk_iv_x16(iv, x->lmk_seed, p, ivsec);
		return;
	}
	if (x->md5_lanes >= 8)
		for (; l + 8 <= n; l += 8)
			loop_lmk_iv_x8(iv + l, x->lmk_seed, p + l, ivsec + l);
	for (; l < n; l++)
		loop_lmk_iv(iv[l], x->lmk_seed, p[l], ivsec[l]);
}

/*
 * Batches of 16 sectors with VAES (16 CBC chains at once), for lmk of
 * as many as the hash's lanes (so it runs at its best width: 32 with
 * AVX-512, 16 with AVX2), of 8 otherwise: the xmm AES core interleaves
 * 8 CBC chains.
 */
static void aesni_encrypt(struct loop_crypt *x, uint64_t sector, uint8_t *dst,
			  const uint8_t *src, size_t n)
{
	const struct loop_aesni_key *keys[32];
	uint8_t iv[32][16] __attribute__((aligned(16)));
	uint8_t *d[32];
	const uint8_t *s[32];
	uint64_t ivsec[32];
	size_t done = 0;
	/* 16 when VAES encrypts 16 chains at once */
	unsigned int wide = x->use_vaes ? 16 : 8;
	unsigned int batch = x->iv_kind != IV_LMK || x->md5_lanes < 16 ? wide : x->md5_lanes;

	if (x->lmk_fused && x->md5_lanes >= 32)
		done = loop_aesni_lmk_encrypt_x32(x->aes, x->lmk_seed, x->iv_offset + sector,
						  dst, src, n);
	else if (x->lmk_fused)
		done = loop_aesni_lmk_encrypt(x->aes, x->lmk_seed, x->iv_offset + sector,
					      dst, src, n);

	while (done < n) {
		unsigned int lanes, l, a, k;

		lanes = n - done >= batch ? batch : n - done >= 16 && batch > 16 ? 16 :
			n - done >= 8 ? 8 : n - done >= 4 ? 4 : 1;
		for (l = 0; l < lanes; l++) {
			ivsec[l] = x->iv_offset + sector + done + l;
			s[l] = src + (done + l) * LOOP_SECTOR_SIZE;
			d[l] = dst + (done + l) * LOOP_SECTOR_SIZE;
			keys[l] = &x->aes[key_index(x, ivsec[l])];
			if (x->iv_kind != IV_LMK)
				sector_iv(x, iv[l], ivsec[l]);
		}
		if (x->iv_kind == IV_LMK)
			lmk_ivs(x, iv, s, ivsec, lanes);
		for (a = 0; a < lanes; a += k) {
			k = lanes - a >= wide ? wide : lanes - a > 8 ? 8 : lanes - a;
			loop_aesni_cbc_encrypt_sectors(keys + a, (const uint8_t (*)[16])iv + a,
						       d + a, s + a, k);
		}
		done += lanes;
	}
	explicit_bzero(iv, sizeof(iv));
}

static void lmk_fix_first_block(const struct loop_crypt *x, uint8_t *plain,
				uint64_t ivsec)
{
	uint8_t iv[16];
	int i;

	/* Decrypted with a zero IV; XOR in the real IV, which depends on
	 * the rest of the plaintext. */
	loop_lmk_iv(iv, x->lmk_seed, plain, ivsec);
	for (i = 0; i < 16; i++)
		plain[i] ^= iv[i];
	explicit_bzero(iv, sizeof(iv));
}

/* lmk decrypt of n (8, 16 or 32) sectors: CBC with a zero IV, then the
 * real IVs (which need the decrypted plaintext) at once, then fix
 * block 0. */
static void aesni_decrypt_lmk(struct loop_crypt *x, uint64_t sector, uint8_t *dst,
			      const uint8_t *src, unsigned int n)
{
	static const uint8_t zero[16] __attribute__((aligned(16)));
	uint8_t iv[32][16];
	const uint8_t *p[32];
	uint64_t ivsec[32];
	unsigned int l, i;

	for (l = 0; l < n; l++) {
		ivsec[l] = x->iv_offset + sector + (uint64_t)l;
		p[l] = dst + (size_t)l * LOOP_SECTOR_SIZE;
		decrypt_sector(x, &x->aes[key_index(x, ivsec[l])], zero,
			       dst + (size_t)l * LOOP_SECTOR_SIZE,
			       src + (size_t)l * LOOP_SECTOR_SIZE);
	}
	lmk_ivs(x, iv, p, ivsec, n);
	for (l = 0; l < n; l++)
		for (i = 0; i < 16; i++)
			dst[(size_t)l * LOOP_SECTOR_SIZE + i] ^= iv[l][i];
	explicit_bzero(iv, sizeof(iv));
}

static void aesni_decrypt(struct loop_crypt *x, uint64_t sector, uint8_t *dst,
			  const uint8_t *src, size_t n)
{
	uint8_t iv[16] __attribute__((aligned(16)));
	size_t i = 0;

	if (x->lmk_fused && x->md5_lanes >= 32)
		i = loop_aesni_lmk_decrypt_x32(x->aes, x->lmk_seed, x->iv_offset + sector,
					       dst, src, n);
	else if (x->lmk_fused)
		i = loop_aesni_lmk_decrypt(x->aes, x->lmk_seed, x->iv_offset + sector,
					   dst, src, n);
	if (x->iv_kind == IV_LMK && x->md5_lanes >= 8) {
		unsigned int batch;

		/* whole batches of the hash's width, then what is left in
		 * the narrower ones */
		for (batch = x->md5_lanes; batch >= 8; batch /= 2)
			for (; i + batch <= n; i += batch)
				aesni_decrypt_lmk(x, sector + i, dst + i * LOOP_SECTOR_SIZE,
						  src + i * LOOP_SECTOR_SIZE, batch);
	}
	for (; i < n; i++) {
		uint64_t ivsec = x->iv_offset + sector + i;
		uint8_t *d = dst + i * LOOP_SECTOR_SIZE;

		if (x->iv_kind == IV_LMK)
			memset(iv, 0, sizeof(iv));
		else
			sector_iv(x, iv, ivsec);
		decrypt_sector(x, &x->aes[key_index(x, ivsec)], iv, d,
			       src + i * LOOP_SECTOR_SIZE);
		if (x->iv_kind == IV_LMK)
			lmk_fix_first_block(x, d, ivsec);
	}
}

/* ---- libgcrypt back end --------------------------------------------- */

static int gcry_run(struct loop_crypt *x, int encrypt, uint64_t sector, uint8_t *dst,
		    const uint8_t *src, size_t n)
{
	struct handle_set *hs = get_handles(x);
	uint8_t iv[16];
	size_t i;
	int r = 0;

	if (!hs)
		return -ENOMEM;
	for (i = 0; i < n && !r; i++) {
		uint64_t ivsec = x->iv_offset + sector + i;
		gcry_cipher_hd_t h = hs->hd[key_index(x, ivsec)];
		const uint8_t *s = src + i * LOOP_SECTOR_SIZE;
		uint8_t *d = dst + i * LOOP_SECTOR_SIZE;
		gcry_error_t e;

		if (x->iv_kind == IV_LMK) {
			if (encrypt)
				loop_lmk_iv(iv, x->lmk_seed, s, ivsec);
			else
				memset(iv, 0, sizeof(iv));
		} else {
			sector_iv(x, iv, ivsec);
		}
		gcry_cipher_setiv(h, iv, x->block_bytes);
		if (encrypt)
			e = d == s ? gcry_cipher_encrypt(h, d, LOOP_SECTOR_SIZE, NULL, 0)
				   : gcry_cipher_encrypt(h, d, LOOP_SECTOR_SIZE, s, LOOP_SECTOR_SIZE);
		else
			e = d == s ? gcry_cipher_decrypt(h, d, LOOP_SECTOR_SIZE, NULL, 0)
				   : gcry_cipher_decrypt(h, d, LOOP_SECTOR_SIZE, s, LOOP_SECTOR_SIZE);
		if (e)
			r = -EIO;
		else if (!encrypt && x->iv_kind == IV_LMK)
			lmk_fix_first_block(x, d, ivsec);
	}
	explicit_bzero(iv, sizeof(iv));
	put_handles(x, hs);
	return r;
}

/*
 * Single-key CBC decryption of a run of sectors in one libgcrypt call, so
 * libgcrypt's bulk CBC-decrypt code (several blocks in parallel, AVX2 for
 * twofish and serpent) sees up to 32 KiB instead of 512 bytes.  Decrypting
 * the run as one CBC stream gives every sector but the first the wrong
 * first block: D(C[i][0]) ^ C[i-1][last] where D(C[i][0]) ^ IV[i] is due.
 * So the ciphertext's last block of each sector is saved first (dst may
 * equal src) and swapped for the sector's own IV afterwards.
 */
#define BULK_SECTORS 64

static int gcry_decrypt_bulk(struct loop_crypt *x, uint64_t sector, uint8_t *dst,
			     const uint8_t *src, size_t n)
{
	struct handle_set *hs = get_handles(x);
	unsigned int bs = x->block_bytes;
	uint8_t last[BULK_SECTORS][16], iv[16];
	size_t done, i, j;
	int r = 0;

	if (!hs)
		return -ENOMEM;
	for (done = 0; done < n && !r; done += i) {
		size_t k = n - done < BULK_SECTORS ? n - done : BULK_SECTORS;
		const uint8_t *s = src + done * LOOP_SECTOR_SIZE;
		uint8_t *d = dst + done * LOOP_SECTOR_SIZE;

		for (i = 0; i + 1 < k; i++)
			memcpy(last[i], s + (i + 1) * LOOP_SECTOR_SIZE - bs, bs);
		sector_iv(x, iv, x->iv_offset + sector + done);
		gcry_cipher_setiv(hs->hd[0], iv, bs);
		if ((d == s ? gcry_cipher_decrypt(hs->hd[0], d, k * LOOP_SECTOR_SIZE, NULL, 0)
			    : gcry_cipher_decrypt(hs->hd[0], d, k * LOOP_SECTOR_SIZE, s,
						  k * LOOP_SECTOR_SIZE)))
			r = -EIO;
		for (i = 1; i < k; i++) {
			sector_iv(x, iv, x->iv_offset + sector + done + i);
			for (j = 0; j < bs; j++)
				d[i * LOOP_SECTOR_SIZE + j] ^= last[i - 1][j] ^ iv[j];
		}
		i = k;
	}
	explicit_bzero(last, sizeof(last));
	explicit_bzero(iv, sizeof(iv));
	put_handles(x, hs);
	return r;
}

/*
 * What a call leaves on the stack: the AES-NI code wipes its round-key
 * arrays, but the compiler copies round keys to spill slots of its own
 * (the VAES decrypt keeps the first and the last there), which only a
 * burn from here reaches.  How deep: the deepest chain of frames the
 * call can reach below loop_crypt_encrypt()/decrypt() (gcc 12 -O2,
 * -fstack-usage), with room to spare:
 *  - a fused lmk run (from two batches on): 19.1 KiB encrypting (the
 *    32-lane kernel alone is 14.3 KiB), 10.9 KiB decrypting;
 *  - any other encryption, and lmk decryption: 6.9 KiB (the 32-lane
 *    hash 5.1 KiB, the 16-sector VAES encryption 3.9 KiB);
 *  - any other decryption: 1.2 KiB (libgcrypt burns its own frames).
 * Not one depth for all: on the Zen 5, zeroing 2, 8 and 24 KiB takes
 * about 15, 80 and 210 ns, against 340 ns for an 8-sector single-key
 * decrypt, 680 ns for its encrypt and 5 us for a fused 64-sector one.
 */
static size_t burn_bytes(const struct loop_crypt *x, int encrypt, size_t n)
{
	if (x->lmk_fused && n >= 2 * (x->md5_lanes >= 32 ? 32u : 16u))
		return 24 * 1024;
	if (encrypt || x->iv_kind == IV_LMK)
		return 8 * 1024;
	return 2 * 1024;
}

LIBLOOP_EXPORT int loop_crypt_encrypt(struct loop_crypt *x, uint64_t sector, void *dst,
		      const void *src, size_t nsectors)
{
	int r = 0;

	if (!x || !dst || !src)
		return -EINVAL;
	if (x->use_aesni)
		aesni_encrypt(x, sector, dst, src, nsectors);
	else
		r = gcry_run(x, 1, sector, dst, src, nsectors);
	loop_stack_burn(burn_bytes(x, 1, nsectors));
	/* the plaintext and the round keys were in them; last, as the
	 * burn moves zeros through them */
	loop_vector_regs_clear();
	return r;
}

LIBLOOP_EXPORT int loop_crypt_decrypt(struct loop_crypt *x, uint64_t sector, void *dst,
		      const void *src, size_t nsectors)
{
	int r = 0;

	if (!x || !dst || !src)
		return -EINVAL;
	if (x->use_aesni)
		aesni_decrypt(x, sector, dst, src, nsectors);
	else if (x->nkeys == 1 && x->iv_kind != IV_LMK)
		r = gcry_decrypt_bulk(x, sector, dst, src, nsectors);
	else
		r = gcry_run(x, 0, sector, dst, src, nsectors);
	loop_stack_burn(burn_bytes(x, 0, nsectors));
	loop_vector_regs_clear();
	return r;
}
