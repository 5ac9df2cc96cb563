/*
 * crypto-internal.h - shared between the files of libloop/crypto only.
 */
#ifndef LIBLOOP_CRYPTO_INTERNAL_H
#define LIBLOOP_CRYPTO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "libloop-crypto.h"

#include "base/export.h"

/* the multi-key counts, CLO_MULTI_KEYS (v2) and CLO_MULTI_KEYS_V3 */
#include "uapi/cryptoloop_abi.h"

/* cipher-spec.c: libgcrypt algorithm id for alg + key size, or -ENOTSUP. */
int loop_gcry_cipher_algo(enum loop_cipher_alg alg, unsigned int key_bytes);

/* key.c: allocate an uninitialised key set / write access to key i. */
int loop_key_alloc(struct loop_key **key, unsigned int count, unsigned int key_bytes);
uint8_t *loop_key_data_mut(struct loop_key *key, unsigned int i);

/* keyrule.c: a key derivation rule (-H, phash=, cryptsetup --hash). */
enum loop_hash_rule_kind {
	LOOP_RULE_RAW,          /* util-linux 2.12 / loop-AES unhashed2 */
	LOOP_RULE_LA_DIGEST,    /* loop-AES sha256/384/512 */
	LOOP_RULE_LA_RMD160,
	LOOP_RULE_LA_UNHASHED1,
	LOOP_RULE_LA_RANDOM,
	LOOP_RULE_CS_PLAIN,     /* cryptsetup --hash plain[:N] */
	LOOP_RULE_CS_DIGEST,    /* cryptsetup --hash NAME[:N] */
};

struct loop_hash_rule {
	enum loop_hash_rule_kind kind;
	int md_algo;          /* gcrypt id for digests */
	size_t cs_len;        /* cryptsetup ":N", 0 = whole key */
	size_t min_len;       /* minimum passphrase length */
};

/* The rule @name (NULL or "" for the format's default) means for @spec:
 * 0 or -EINVAL (unknown, or not for this format). libgcrypt must be
 * initialised (loop_gcrypt_init()). */
int loop_hash_rule_parse(struct loop_hash_rule *h, const struct loop_cipher_spec *spec,
			 const char *name);
/* How many keys the lines of @pass make for @spec: 1, or 64 / 65 for
 * loop-AES multi-key. */
unsigned int loop_key_count_of(const struct loop_cipher_spec *spec,
			       const struct loop_pass *pass);

/* pass.c: multi-line read of a whole stream (gpg output); drains the
 * rest of the stream. */
int loop_pass_read_fd_multi_drain(struct loop_pass **pass, int fd);
/* The first lines of @a and @b are equal (the -T check). */
int loop_pass_same(const struct loop_pass *a, const struct loop_pass *b);
/* one line from @fd, a terminal but not the controlling one, echo off;
 * @prompt on standard error */
int loop_pass_read_terminal(struct loop_pass **pass, int fd, const char *prompt);

#include "base/secure-mem.h"

/* gcrypt-init.c: make libgcrypt usable if the application has not. */
int loop_gcrypt_init(void);
/* GCRY_CIPHER_SECURE if libgcrypt's secure memory is ours to use, else 0. */
unsigned int loop_gcry_cipher_flags(void);

/* gcrypt-init.c: one-shot digest into out (out_len <= digest size); gcrypt algo id. */
int loop_hash_buffer(int gcry_algo, const void *in, size_t len,
		     uint8_t *out, size_t out_len);

/* cpu-features.c: 1 if this CPU has every one of @features and the OS
 * saves the registers they use. */
#define LOOP_CPU_AESNI		0x1u	/* AES-NI and SSSE3 */
#define LOOP_CPU_AVX2		0x2u	/* and ymm state */
#define LOOP_CPU_VAES		0x4u	/* on ymm: with AESNI and AVX2 */
#define LOOP_CPU_AVX512F	0x8u	/* and zmm and opmask state */
#define LOOP_CPU_AVX512VL	0x10u	/* EVEX on xmm and ymm: with AVX512F */
int loop_cpu_has(unsigned int features);

/* md5-iv.c: the loop-AES multi-key IV (dm-crypt lmk). */
void loop_md5_init_state(uint32_t state[4]);
void loop_md5_compress(uint32_t state[4], const uint8_t block[64]);
void loop_lmk_iv(uint8_t iv[16], const uint32_t seed_state[4],
		 const uint8_t *plain_sector, uint64_t iv_sector);

/* md5-x8.c: eight lmk IVs at once (AVX2); same results as loop_lmk_iv(). */
int loop_md5_x8_available(void);
void loop_lmk_iv_x8(uint8_t iv[8][16], const uint32_t seed_state[4],
		    const uint8_t *const plain[8], const uint64_t iv_sector[8]);

/* md5-x16.c: sixteen lmk IVs at once (AVX2, two 8-lane streams). */
void loop_lmk_iv_x16(uint8_t iv[16][16], const uint32_t seed_state[4],
		     const uint8_t *const plain[16], const uint64_t iv_sector[16]);

/* md5-x32.c: thirty-two lmk IVs at once (AVX-512F, two 16-lane streams);
 * available only once a self-test matched loop_lmk_iv(). */
int loop_md5_x32_available(void);
void loop_lmk_iv_x32(uint8_t iv[32][16], const uint32_t seed_state[4],
		     const uint8_t *const plain[32], const uint64_t iv_sector[32]);

/* md5-lanes.c: how many sectors the lmk IV hashes at once on this CPU: 32
 * with AVX-512F, 16 or 8 with AVX2, else 1;
 * LIBLOOP_CRYPTO_MD5_LANES=1|8|16|32 lowers it
 * (tests use it to reach every path the CPU can run). */
unsigned int loop_md5_lanes(void);

/* aesni-cbc.c */
struct loop_aesni_key {
	uint8_t enc[15][16];
	uint8_t dec[15][16];
	int rounds;
} __attribute__((aligned(16)));

int loop_aesni_available(void);
/* key_len 16, 24 or 32 */
void loop_aesni_expand_key(struct loop_aesni_key *k, const uint8_t *key,
			   size_t key_len);
/* CBC-encrypt n (1..8, or 16) independent 512-byte sectors, interleaved
 * (16: two per ymm register with VAES, else two runs of 8).
 * keys[i], iv[i], src[i], dst[i] per lane; dst[i] may equal src[i]. */
void loop_aesni_cbc_encrypt_sectors(const struct loop_aesni_key *const *keys,
				    const uint8_t (*iv)[16],
				    uint8_t *const *dst,
				    const uint8_t *const *src, unsigned int n);
/* CBC-decrypt one 512-byte sector; dst may equal src.  The VAES (ymm)
 * version only where loop_aesni_vaes_available(); a context picks one
 * when it is created (sector-crypt.c). */
void loop_aesni_cbc_decrypt_sector_x8(const struct loop_aesni_key *k,
				      const uint8_t iv[16], uint8_t *dst,
				      const uint8_t *src);
void loop_aesni_cbc_decrypt_sector_vaes(const struct loop_aesni_key *k,
					const uint8_t iv[16], uint8_t *dst,
					const uint8_t *src);
int loop_aesni_vaes_available(void);
/* The widest AES registers the sector code uses on this CPU: 256 (VAES on
 * ymm, after its self-test) or 128 (xmm AES-NI, 8 chains); read from
 * LIBLOOP_CRYPTO_AES_WIDTH=128|256, which only lowers it (tests and
 * tools/bench crypto use it to reach and time the xmm paths).  A context
 * reads it once, when it is created. */
unsigned int loop_aes_width(void);
/* the 16-lane VAES encrypt itself, for tests (only with VAES) */
void loop_aesni_cbc_encrypt_sectors_vaes16(const struct loop_aesni_key *const *keys,
					   const uint8_t (*iv)[16], uint8_t *const *dst,
					   const uint8_t *const *src);

/* aesni-lmk.c: loop-AES multi-key (lmk IV) runs of @n sectors starting
 * at IV sector @first, keys[first & 63] onwards, the MD5 of one batch of
 * 16 sectors interleaved with the AES of another.  Needs AVX2 and VAES.
 * Does the first multiple of 16 sectors if there are at least 32, else
 * nothing; returns how many sectors it did. */
size_t loop_aesni_lmk_encrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n);
size_t loop_aesni_lmk_decrypt(const struct loop_aesni_key keys[64], const uint32_t seed[4],
			      uint64_t first, uint8_t *dst, const uint8_t *src, size_t n);

/* aesni-lmk-x32.c: the same with AVX-512 (md5-avx512.h's 32 lanes, AES
 * on zmm) in batches of 32: the first multiple of 32 if there are at
 * least 64.  Needs AVX-512F and VL and VAES; available only once a
 * self-test matched the xmm AES and the scalar MD5. */
int loop_aesni_lmk_x32_available(void);
size_t loop_aesni_lmk_encrypt_x32(const struct loop_aesni_key keys[64], const uint32_t seed[4],
				  uint64_t first, uint8_t *dst, const uint8_t *src, size_t n);
size_t loop_aesni_lmk_decrypt_x32(const struct loop_aesni_key keys[64], const uint32_t seed[4],
				  uint64_t first, uint8_t *dst, const uint8_t *src, size_t n);

#endif
