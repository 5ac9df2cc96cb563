/*
 * keyderive.c - passphrase (or key lines) to cipher keys, byte-exact with
 * the tools that wrote the images:
 *
 *  util-linux 2.12 ("raw", the cryptoloop default): xstrncpy(key, pass, 32)
 *      - the first 31 bytes and a NUL; the cipher takes key_bytes of it.
 *  loop-AES / aespipe (LOOP_FORMAT_LOOPAES):
 *      hash into a 32-byte buffer, the cipher takes the first key_bytes:
 *      sha256/sha384/sha512 (default by key size 16/24/32: 256/384/512),
 *      rmd160 = RMD160(p) || RMD160('A' || p[0..128]), unhashed1 (6-bit
 *      packing, key size from passphrase length), unhashed2 (= raw).
 *      -S seed is appended to a single passphrase; -C N re-encrypts the
 *      32-byte buffer N*1000 times with AES-256 keyed by the same hash of
 *      the passphrase with bit 0 of its first byte flipped.
 *      64/65 lines: each line hashed, first byte ^= 0x55 (v2) / 0xF4 (v3).
 *  cryptsetup plain (crypt_plain_hash()): round r hashes r 'A's then the
 *      passphrase until key_bytes are filled; "hash:N" hashes N bytes and
 *      zeroes the rest; "plain" copies (zero padded, cryptsetup CLI).
 *
 * Each rule is checked against aespipe / cryptsetup / util-linux in
 * tests/kat (expected values never come from this code).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <gcrypt.h>

#include "crypto/crypto-internal.h"

#define LOOPAES_HASH_BUF 32

/* Locked scratch for intermediate secrets. */
struct scratch {
	uint8_t buf[LOOPAES_HASH_BUF];
	uint8_t tmp[LOOPAES_HASH_BUF];
	uint8_t rmd[40];
	char copy[LOOP_PASS_LINE_MAX + 1 + 1024];
	uint8_t digest[64];
};

/* ---- loop-AES hash functions: (in, len) -> 32-byte buffer ------------ */

static int la_digest(int algo, const char *in, size_t len, uint8_t out[LOOPAES_HASH_BUF])
{
	/* SHA-384/512 are cut to the 32-byte loop key buffer */
	return loop_hash_buffer(algo, in, len, out, LOOPAES_HASH_BUF);
}

static int la_rmd160(struct scratch *s, const char *in, size_t len,
		     uint8_t out[LOOPAES_HASH_BUF])
{
	size_t n = len;
	int r;

	r = loop_hash_buffer(GCRY_MD_RMD160, in, len, s->rmd, 20);
	if (r < 0)
		return r;
	/* loop-AES copies 'A' + passphrase into a 130-byte buffer: the
	 * second hash only sees the first 129 passphrase bytes. */
	if (n > 129)
		n = 129;
	s->copy[0] = 'A';
	memcpy(s->copy + 1, in, n);
	r = loop_hash_buffer(GCRY_MD_RMD160, s->copy, n + 1, s->rmd + 20, 20);
	if (r < 0)
		return r;
	memcpy(out, s->rmd, LOOPAES_HASH_BUF);
	return 0;
}

static void la_unhashed1(const char *in, size_t len, uint8_t *out, size_t size)
{
	const unsigned char *kp = (const unsigned char *)in;
	size_t cnt = len, x, z;
	int y;

	memset(out, 0, size);
	if (!len)
		return;
	/* Historic loop-AES: 6 bits per character, cycling the passphrase. */
	for (x = 0; x < size * 8; x += 6) {
		y = *kp++;
		if (--cnt == 0) {
			kp = (const unsigned char *)in;
			cnt = len;
		}
		if (y >= '0' && y <= '9')
			y -= '0';
		else if (y >= 'A' && y <= 'Z')
			y -= 'A' - 10;
		else if (y >= 'a' && y <= 'z')
			y -= 'a' - 36;
		else if (y == '.' || y == '/')
			y += 62 - '.';
		else
			y &= 63;
		z = x >> 3;
		if (z < size)
			out[z] |= (uint8_t)(y << (x & 7));
		z++;
		if (z < size)
			out[z] |= (uint8_t)(y >> (8 - (x & 7)));
	}
}

static void raw_key(const char *in, size_t len, uint8_t out[LOOPAES_HASH_BUF])
{
	/* xstrncpy(dest, src, 32): strncpy 31, then NUL */
	memset(out, 0, LOOPAES_HASH_BUF);
	memcpy(out, in, len < LOOPAES_HASH_BUF - 1 ? len : LOOPAES_HASH_BUF - 1);
}

static int la_hash(struct scratch *s, const struct loop_hash_rule *h, const char *in,
		   size_t len, uint8_t out[LOOPAES_HASH_BUF])
{
	switch (h->kind) {
	case LOOP_RULE_RAW:
		raw_key(in, len, out);
		return 0;
	case LOOP_RULE_LA_DIGEST:
		return la_digest(h->md_algo, in, len, out);
	case LOOP_RULE_LA_RMD160:
		return la_rmd160(s, in, len, out);
	case LOOP_RULE_LA_UNHASHED1:
		la_unhashed1(in, len, out, LOOPAES_HASH_BUF);
		return 0;
	default:
		return -EINVAL;
	}
}

/* ---- cryptsetup plain hashing --------------------------------------- */

static int cs_hash(struct scratch *s, const struct loop_hash_rule *h, const char *in,
		   size_t len, uint8_t *key, size_t key_bytes)
{
	size_t want = h->cs_len ? h->cs_len : key_bytes, done = 0, dlen, n;
	unsigned int round, i;
	gcry_md_hd_t md;

	if (want > key_bytes)
		return -EINVAL;
	memset(key, 0, key_bytes);
	if (h->kind == LOOP_RULE_CS_PLAIN) {
		if (h->cs_len) {
			if (len < want)
				return -EKEYREJECTED;
			memcpy(key, in, want);
		} else {
			/* cryptsetup CLI maps "plain" to no hash: copy what
			 * there is, zero padded. */
			memcpy(key, in, len < key_bytes ? len : key_bytes);
		}
		return 0;
	}
	dlen = gcry_md_get_algo_dlen(h->md_algo);
	if (gcry_md_open(&md, h->md_algo, loop_gcry_cipher_flags() ? GCRY_MD_FLAG_SECURE : 0))
		return -ENOMEM;
	/* hashalot's trick: round r prefixes r 'A's */
	for (round = 0; done < want; round++) {
		gcry_md_reset(md);
		for (i = 0; i < round; i++)
			gcry_md_write(md, "A", 1);
		gcry_md_write(md, in, len);
		n = want - done < dlen ? want - done : dlen;
		memcpy(key + done, gcry_md_read(md, h->md_algo), n);
		done += n;
	}
	gcry_md_close(md);
	(void)s;
	return 0;
}

static int derive_multikey(struct loop_key **key, struct scratch *s,
			   const struct loop_hash_rule *h, unsigned int key_bytes,
			   const struct loop_pass *pass, unsigned int count)
{
	uint8_t tweak = count == CLO_MULTI_KEYS_V3 ? 0xF4 : 0x55;
	unsigned int i;
	int r;

	if (h->kind == LOOP_RULE_LA_UNHASHED1) {
		/* loop-AES sizes the key from the first line for unhashed1 */
		size_t l0;

		loop_pass_line(pass, 0, &l0);
		key_bytes = l0 >= 43 ? 32 : l0 >= 32 ? 24 : 16;
	}
	r = loop_key_alloc(key, count, key_bytes);
	if (r < 0)
		return r;
	for (i = 0; i < count; i++) {
		size_t len;
		const char *line = loop_pass_line(pass, i, &len);

		r = la_hash(s, h, line, len, s->buf);
		if (r < 0)
			goto fail;
		/* different first byte per IV version, so that a v2/v3/single
		 * mix-up garbles every block instead of only the first */
		s->buf[0] ^= tweak;
		memcpy(loop_key_data_mut(*key, i), s->buf, key_bytes);
	}
	return 0;
fail:
	loop_key_free(*key);
	*key = NULL;
	return r;
}

static int iterate_aes256(struct scratch *s, const struct loop_hash_rule *h,
			  char *pass, size_t len, unsigned long thousands)
{
	gcry_cipher_hd_t c;
	unsigned long long n = (unsigned long long)thousands * 1000ULL;
	int r;

	/* Key for the iteration: same hash of the passphrase (seed
	 * included) with bit 0 of the first byte flipped. */
	pass[0] ^= 1;
	r = la_hash(s, h, pass, len, s->tmp);
	pass[0] ^= 1;
	if (r < 0)
		return r;
	if (gcry_cipher_open(&c, GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_ECB,
			     loop_gcry_cipher_flags()))
		return -ENOMEM;
	if (gcry_cipher_setkey(c, s->tmp, 32)) {
		gcry_cipher_close(c);
		return -EINVAL;
	}
	while (n--) {
		gcry_cipher_encrypt(c, s->buf, 32, NULL, 0);
		/* swap the upper half of block 0 with the lower of block 1 */
		memcpy(s->tmp, s->buf + 8, 8);
		memcpy(s->buf + 8, s->buf + 16, 8);
		memcpy(s->buf + 16, s->tmp, 8);
	}
	gcry_cipher_close(c);
	return 0;
}

static int key_derive(struct loop_key **key, const struct loop_cipher_spec *spec,
		      const struct loop_key_params *params, const struct loop_pass *pass)
{
	static const struct loop_key_params no_params;
	const struct loop_key_params *p = params ? params : &no_params;
	struct loop_hash_rule h;
	struct scratch *s;
	unsigned int key_bytes, count;
	const char *line;
	size_t len, seed_len = p->seed ? strlen(p->seed) : 0;
	int loopaes, r;

	if (!key || !spec)
		return -EINVAL;
	*key = NULL;
	r = loop_gcrypt_init();
	if (r < 0)
		return r;
	r = loop_hash_rule_parse(&h, spec, p->hash);
	if (r < 0)
		return r;
	loopaes = spec->format == LOOP_FORMAT_LOOPAES;
	if (!loopaes && (p->seed || p->iter_thousands))
		return -EINVAL;
	if (p->iter_thousands > LOOP_KEY_ITER_MAX)
		return -ERANGE;
	key_bytes = spec->key_bytes;

	if (h.kind == LOOP_RULE_LA_RANDOM) {
		/* loop-AES "random": 65 fresh keys, multi-key v3 */
		unsigned int i;

		if (spec->block_bytes != 16)
			return -EINVAL;
		r = loop_key_alloc(key, CLO_MULTI_KEYS_V3, key_bytes);
		if (r < 0)
			return r;
		for (i = 0; i < CLO_MULTI_KEYS_V3; i++)
			gcry_randomize(loop_key_data_mut(*key, i), key_bytes,
				       GCRY_STRONG_RANDOM);
		return 0;
	}
	if (!pass || !(line = loop_pass_line(pass, 0, &len)))
		return -EINVAL;

	s = loop_secure_alloc(sizeof(*s));
	if (!s)
		return -ENOMEM;

	count = loop_key_count_of(spec, pass);
	if (count > 1) {
		if (spec->block_bytes != 16) {
			r = -EINVAL;
			goto out;
		}
		r = derive_multikey(key, s, &h, key_bytes, pass, count);
		goto out;
	}

	if (len < h.min_len && !p->allow_short) {
		r = -EKEYREJECTED;
		goto out;
	}
	if (len + seed_len > sizeof(s->copy) - 1) {
		r = -E2BIG;
		goto out;
	}
	memcpy(s->copy, line, len);
	memcpy(s->copy + len, p->seed ? p->seed : "", seed_len);
	len += seed_len;
	s->copy[len] = '\0';

	if (h.kind == LOOP_RULE_CS_PLAIN || h.kind == LOOP_RULE_CS_DIGEST) {
		/* cryptsetup refuses "hash:N" with N past the key, and so do
		 * we: N bytes would not fit the key buffer */
		if (h.cs_len > key_bytes) {
			r = -EINVAL;
			goto out;
		}
		r = loop_key_alloc(key, 1, key_bytes);
		if (r < 0)
			goto out;
		r = cs_hash(s, &h, s->copy, len, loop_key_data_mut(*key, 0), key_bytes);
		if (r < 0) {
			loop_key_free(*key);
			*key = NULL;
		}
		goto out;
	}

	if (h.kind == LOOP_RULE_LA_UNHASHED1)
		key_bytes = len >= 43 ? 32 : len >= 32 ? 24 : 16;
	if (key_bytes > LOOPAES_HASH_BUF) {
		r = -EINVAL;
		goto out;
	}
	/* la_hash() needs its own input copy for rmd160 */
	{
		char *in = s->copy;
		size_t inlen = len;
		struct scratch *s2 = loop_secure_alloc(sizeof(*s2));

		if (!s2) {
			r = -ENOMEM;
			goto out;
		}
		r = la_hash(s2, &h, in, inlen, s->buf);
		if (!r && p->iter_thousands) {
			memcpy(s2->buf, s->buf, sizeof(s->buf));
			r = iterate_aes256(s2, &h, in, inlen, p->iter_thousands);
			memcpy(s->buf, s2->buf, sizeof(s->buf));
		}
		loop_secure_free(s2, sizeof(*s2));
		if (r < 0)
			goto out;
	}
	r = loop_key_new_raw(key, 1, key_bytes, s->buf);
out:
	loop_secure_free(s, sizeof(*s));
	return r;
}

LIBLOOP_EXPORT int loop_key_derive(struct loop_key **key,
				   const struct loop_cipher_spec *spec,
				   const struct loop_key_params *params,
				   const struct loop_pass *pass)
{
	int r = key_derive(key, spec, params, pass);

	/* the passphrase and the key went through the stack and registers */
	loop_secret_scrub();
	return r;
}
