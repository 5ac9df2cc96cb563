// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LUKS2 as the new format, with a detached header. libcryptsetup writes
 * the header and its passphrase keyslot; the data is encrypted here, the
 * way dm-crypt reads it: XTS (or CBC-plain64) per 512-byte sector, the
 * tweak the little-endian sector number counted from the start of the
 * data area. The volume key is made here, lives in locked memory, and on
 * a resume comes back out of the header through the passphrase.
 */
#include "config.h"

#include <endian.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <gcrypt.h>
#include <libcryptsetup.h>

#include "luks2.h"
#include "reencrypt.h"

#define VK_MAX 64

struct luks2_target {
	struct crypt_device *cd;
	gcry_cipher_hd_t hd;	/* checks that libgcrypt runs the cipher */
	int galg;
	bool xts;
	uint8_t *vk;		/* locked */
	size_t vk_len;
};

/* "aes-xts-plain64" -> "aes", "xts-plain64", the gcrypt algorithm, key size */
static int parse_cipher(const char *spec, char *alg, size_t algsz, char *mode,
			size_t modesz, int *galg, bool *xts, size_t *vk_len)
{
	const char *dash = strchr(spec, '-');

	if (!dash || (size_t)(dash - spec) >= algsz || strlen(dash + 1) >= modesz)
		return -EINVAL;
	memcpy(alg, spec, (size_t)(dash - spec));
	alg[dash - spec] = '\0';
	strcpy(mode, dash + 1);
	if (!strcmp(mode, "xts-plain64"))
		*xts = true;
	else if (!strcmp(mode, "cbc-plain64"))
		*xts = false;
	else
		return -ENOTSUP;
	/* 256-bit ciphers; XTS takes two keys */
	if (!strcmp(alg, "aes"))
		*galg = GCRY_CIPHER_AES256;
	else if (!strcmp(alg, "serpent"))
		*galg = GCRY_CIPHER_SERPENT256;
	else if (!strcmp(alg, "twofish"))
		*galg = GCRY_CIPHER_TWOFISH;
	else
		return -ENOTSUP;
	*vk_len = *xts ? 64 : 32;
	return 0;
}

static void __attribute__((noreturn)) fail_cd(struct luks2_target *t, int rc,
					      const char *what, const char *failed)
{
	luks2_close(t);
	errno = rc < 0 ? -rc : rc;
	err(EXIT_FAILURE, "%s: %s", what, failed);
}

static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0 || fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	return rc;
}

/* libcryptsetup's errors reach the user; its notes (a data device too
 * small to activate while it still has to grow) do not */
static void log_errors(int level, const char *msg, void *usrptr)
{
	(void)usrptr;
	if (level == CRYPT_LOG_ERROR)
		fprintf(stderr, "%s: %s", program_invocation_short_name, msg);
}

/*
 * --pbkdf, --iter-time, --pbkdf-force-iterations and --pbkdf-memory, as
 * cryptsetup luksFormat reads them; libcryptsetup checks the values
 * (pbkdf2 at least 1000 iterations, argon2 a time cost of at least 4) and
 * says what is wrong through log_errors.
 */
static int set_pbkdf(struct crypt_device *cd, const struct luks2_pbkdf *want)
{
	const struct crypt_pbkdf_type *def = crypt_get_pbkdf_default(CRYPT_LUKS2);
	struct crypt_pbkdf_type pbkdf;
	bool argon2;

	if (!want->type && !want->time_ms && !want->iterations && !want->memory_kib)
		return 0;
	if (!def)
		return -EINVAL;
	pbkdf = *def;
	if (want->type)
		pbkdf.type = want->type;
	argon2 = strcmp(pbkdf.type, CRYPT_KDF_PBKDF2) != 0;
	if (!argon2) {
		pbkdf.max_memory_kb = 0;
		pbkdf.parallel_threads = 0;
	} else if (!pbkdf.max_memory_kb) {
		/* from a pbkdf2 default (a FIPS build): cryptsetup's own */
		pbkdf.max_memory_kb = 1024 * 1024;
		pbkdf.parallel_threads = 4;
	}
	if (want->time_ms)
		pbkdf.time_ms = want->time_ms;
	if (want->memory_kib)
		pbkdf.max_memory_kb = want->memory_kib;
	if (want->iterations) {
		pbkdf.iterations = want->iterations;
		pbkdf.time_ms = 0;
		pbkdf.flags |= CRYPT_PBKDF_NO_BENCHMARK;
	}
	return crypt_set_pbkdf_type(cd, &pbkdf);
}

int luks2_pbkdf_check(const struct luks2_pbkdf *pbkdf)
{
	struct crypt_device *cd;
	int rc;

	crypt_set_log_callback(NULL, log_errors, NULL);
	rc = crypt_init(&cd, NULL);
	if (rc < 0)
		return rc;
	rc = set_pbkdf(cd, pbkdf);
	crypt_free(cd);
	return rc;
}

struct luks2_target *luks2_open(const char *header, const char *image,
				const char *cipher, uint64_t data_off,
				const struct luks2_pbkdf *pbkdf, const struct loop_pass *pass, bool resuming,
				struct loop_key **key, char *name, size_t namesz)
{
	struct crypt_params_luks2 params = { .sector_size = 512 };
	char alg[32], mode[32];
	struct luks2_target *t;
	const char *pw;
	size_t pwlen, len;
	int galg, rc, fd;
	bool xts;

	crypt_set_log_callback(NULL, log_errors, NULL);
	if (!cipher)
		cipher = "aes-xts-plain64";
	if (parse_cipher(cipher, alg, sizeof(alg), mode, sizeof(mode), &galg, &xts, &len))
		errx(EXIT_FAILURE, "%s: not a LUKS2 cipher this tool writes "
		     "(aes, serpent or twofish with xts-plain64 or cbc-plain64)", cipher);
	snprintf(name, namesz, "luks2-%s", cipher);
	pw = loop_pass_line(pass, 0, &pwlen);
	t = calloc(1, sizeof(*t));
	if (!t || !pw)
		errx(EXIT_FAILURE, "cannot allocate memory");
	t->xts = xts;
	t->vk_len = len;
	t->vk = secbuf_alloc(VK_MAX, SECBUF_LOCK);
	if (!t->vk)
		errx(EXIT_FAILURE, "cannot lock memory for the volume key");

	if (!resuming) {
		/* a new, empty header file; never an existing one */
		fd = open(header, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			fail_cd(t, -errno, header, "cannot create the LUKS2 header");
		/* libcryptsetup writes into a header file but does not grow it:
		 * room for the default metadata and keyslot areas */
		rc = posix_fallocate(fd, 0, LUKS2_HEADER_BYTES);
		close(fd);
		if (rc) {
			unlink(header);
			fail_cd(t, -rc, header, "cannot make room for the LUKS2 header");
		}
		if (getrandom(t->vk, len, 0) != (ssize_t)len)
			fail_cd(t, -EIO, header, "cannot get random bytes for the volume key");
		rc = crypt_init_data_device(&t->cd, header, image);
		if (!rc)
			rc = crypt_set_data_offset(t->cd, data_off / 512);
		params.data_device = image;
		if (!rc)
			rc = set_pbkdf(t->cd, pbkdf);
		if (!rc)
			rc = crypt_format(t->cd, CRYPT_LUKS2, alg, mode, NULL, (const char *)t->vk,
					  len, &params);
		if (!rc)
			rc = crypt_keyslot_add_by_volume_key(t->cd, CRYPT_ANY_SLOT,
							     (const char *)t->vk, len, pw, pwlen);
		if (rc >= 0)
			rc = sync_file(header);
		if (rc < 0) {
			unlink(header);
			fail_cd(t, rc, header, "cannot write the LUKS2 header");
		}
	} else {
		rc = crypt_init_data_device(&t->cd, header, image);
		if (!rc)
			rc = crypt_load(t->cd, CRYPT_LUKS2, NULL);
		if (rc < 0)
			fail_cd(t, rc, header, "cannot read the LUKS2 header");
		if (strcmp(crypt_get_cipher(t->cd), alg) ||
		    strcmp(crypt_get_cipher_mode(t->cd), mode) ||
		    crypt_get_data_offset(t->cd) != data_off / 512)
			errx(EXIT_FAILURE, "%s: the header is %s-%s at sector %llu, not what "
			     "this command asks for", header, crypt_get_cipher(t->cd),
			     crypt_get_cipher_mode(t->cd),
			     (unsigned long long)crypt_get_data_offset(t->cd));
		len = VK_MAX;
		rc = crypt_volume_key_get(t->cd, CRYPT_ANY_SLOT, (char *)t->vk, &len, pw, pwlen);
		if (rc == -EPERM)
			errx(EXIT_FAILURE, "%s: the new passphrase does not open this header; "
			     "nothing was written", header);
		if (rc < 0 || len != t->vk_len)
			fail_cd(t, rc < 0 ? rc : -EINVAL, header, "cannot get the volume key");
	}

	t->galg = galg;
	if (gcry_cipher_open(&t->hd, galg, xts ? GCRY_CIPHER_MODE_XTS : GCRY_CIPHER_MODE_CBC,
			     GCRY_CIPHER_SECURE) ||
	    gcry_cipher_setkey(t->hd, t->vk, len))
		errx(EXIT_FAILURE, "%s: libgcrypt cannot run %s", header, cipher);
	rc = loop_key_new_raw(key, 1, (unsigned int)len, t->vk);
	if (rc)
		fail_cd(t, rc, header, "cannot keep the volume key");
	return t;
}

static int crypt_with(gcry_cipher_hd_t hd, uint64_t sector, void *dst,
		      const void *src, size_t nsectors, bool enc)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	uint8_t iv[16];
	size_t i;

	for (i = 0; i < nsectors; i++, d += 512, s += 512) {
		uint64_t le = htole64(sector + i);
		gcry_error_t ge;

		memset(iv, 0, sizeof(iv));
		memcpy(iv, &le, 8);
		/* all three ciphers have 16-byte blocks: the IV is one block */
		if (gcry_cipher_setiv(hd, iv, sizeof(iv)))
			return -EINVAL;
		ge = enc ? gcry_cipher_encrypt(hd, d, 512, d == s ? NULL : s, d == s ? 0 : 512)
			 : gcry_cipher_decrypt(hd, d, 512, d == s ? NULL : s, d == s ? 0 : 512);
		if (ge)
			return -EINVAL;
	}
	return 0;
}

/*
 * A cipher handle of the call's own, so that threads can share the target
 * (convert.c splits a chunk over the CPUs); opening one costs little next
 * to the thousands of sectors a call gets.
 */
static int crypt_sectors(struct luks2_target *t, uint64_t sector, void *dst,
			 const void *src, size_t nsectors, bool enc)
{
	gcry_cipher_hd_t hd;
	int rc;

	if (gcry_cipher_open(&hd, t->galg, t->xts ? GCRY_CIPHER_MODE_XTS : GCRY_CIPHER_MODE_CBC,
			     GCRY_CIPHER_SECURE))
		return -ENOMEM;
	if (gcry_cipher_setkey(hd, t->vk, t->vk_len)) {
		gcry_cipher_close(hd);
		return -EINVAL;
	}
	rc = crypt_with(hd, sector, dst, src, nsectors, enc);
	gcry_cipher_close(hd);
	return rc;
}


int luks2_encrypt(struct luks2_target *t, uint64_t sector, void *dst,
		  const void *src, size_t nsectors)
{
	return crypt_sectors(t, sector, dst, src, nsectors, true);
}

int luks2_decrypt(struct luks2_target *t, uint64_t sector, void *dst,
		  const void *src, size_t nsectors)
{
	return crypt_sectors(t, sector, dst, src, nsectors, false);
}

void luks2_close(struct luks2_target *t)
{
	if (!t)
		return;
	if (t->hd)
		gcry_cipher_close(t->hd);
	if (t->cd)
		crypt_free(t->cd);
	secbuf_free(t->vk, VK_MAX);
	free(t);
}
