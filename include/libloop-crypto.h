/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libloop-crypto.h - encryption core of libloop: cipher specs, key
 * derivation, passphrase entry and the 512-byte sector encryption.
 *
 * Included from <libloop.h>, and complete on its own.
 *
 * Conventions: every function returns 0 (or a documented non-negative
 * value) on success and -errno on failure.  Nothing here prints or exits.
 * Secrets (passphrases, keys, key schedules) live in mlock()ed memory that
 * is wiped before it is released.
 */
#ifndef LIBLOOP_CRYPTO_H
#define LIBLOOP_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The IV and CBC chain always restart every 512 bytes, whatever the
 * logical block size of the device: the 2003 fix. */
#define LOOP_SECTOR_SIZE 512

/* ------------------------------------------------------------------ */
/* Cipher specs                                                        */
/* ------------------------------------------------------------------ */

enum loop_cipher_alg {
	LOOP_CIPHER_AES = 1,
	LOOP_CIPHER_TWOFISH,
	LOOP_CIPHER_SERPENT,
	LOOP_CIPHER_BLOWFISH,
};

/* On-disk format.  There is no header on disk; this is the whole story. */
enum loop_format {
	/* util-linux 2.12 + kernel cryptoloop: CBC, IV = le32(sector),
	 * zero padded to the block size.  dm-crypt "cbc-plain". */
	LOOP_FORMAT_CRYPTOLOOP = 1,
	/* CBC, IV = le64(sector), zero padded.  dm-crypt "cbc-plain64". */
	LOOP_FORMAT_PLAIN64,
	/* loop-AES.  With one key: IV = le64(sector) (same bytes as
	 * plain64).  With 64 keys (v2) or 65 keys (v3): key K[sector & 63]
	 * and the MD5-based IV of loop-AES multi-key mode (dm-crypt "lmk").
	 * Which one is decided by the key, not the spec. */
	LOOP_FORMAT_LOOPAES,
};

/* What a parsed cipher name means. */
struct loop_cipher_spec {
	char name[32];             /* canonical name, e.g. "aes-cbc-plain" */
	enum loop_cipher_alg alg;
	unsigned int key_bytes;    /* key size the cipher gets */
	unsigned int block_bytes;  /* 16, or 8 for blowfish */
	enum loop_format format;
	/* Kernel loop ABI (struct loop_info64) for the kmod engine:
	 * lo_encrypt_type and lo_crypt_name as the old tools set them.
	 * 18 = LO_CRYPT_CRYPTOAPI (cryptoloop); loop-AES uses its own
	 * numbers (16 = AES, 3 = twofish, 4 = blowfish, 7 = serpent). */
	int lo_encrypt_type;
	char lo_crypt_name[64];
};

/* loop_cipher_spec_parse() flags */
enum loop_spec_flags {
	/* A loop-AES-only option (-H, -K, -S, -C, -G, cleartext key file)
	 * is present: bare names ("aes", "twofish", ...) then mean loop-AES
	 * (AES128 with SHA-256, twofish128, ...) instead of cryptoloop. */
	LOOP_SPEC_LOOPAES = 1 << 0,
};

/*
 * loop_cipher_spec_parse - parse an `-e` / `encryption=` name.
 * @name: e.g. "aes", "AES256", "twofish", "aes-cbc-plain64"
 *        (case-insensitive, as both old tools matched them)
 * @key_bits: 0 for the name's default, else an explicit key size
 *            (util-linux `-k`, cryptsetup `-s`); names that carry a bit
 *            count must agree with it.
 * @flags: enum loop_spec_flags.
 *
 * Bare "aes" (no bit count) is the util-linux 2.12 cryptoloop format
 * (AES-256 from a raw 32-byte key, 32-bit IV), not loop-AES's AES128,
 * unless LOOP_SPEC_LOOPAES is given.
 *
 * Returns 0; 1 for "none"/"no"/"0" (no encryption, @spec untouched);
 * -EINVAL for an unknown or malformed name, an impossible key size or
 * a cryptsetup-style name with LOOP_SPEC_LOOPAES; -ENOTSUP for a name
 * the old tools knew but libgcrypt cannot run (xor, des, cast128, idea,
 * mars, rc6, tripleDES, twofish160/192).
 */
int loop_cipher_spec_parse(struct loop_cipher_spec *spec, const char *name,
			   unsigned int key_bits, unsigned int flags);

/* One row of `losetup --list-ciphers`. */
struct loop_cipher_info {
	const char *name;         /* accepted spelling */
	const char *description;  /* one line for humans */
};

/*
 * loop_cipher_list - the supported names, for --list-ciphers.
 * Returns the number of entries; *list points to a static table.
 */
int loop_cipher_list(const struct loop_cipher_info **list);

/* ------------------------------------------------------------------ */
/* Passphrases (secret text, one or more lines)                        */
/* ------------------------------------------------------------------ */

/* One passphrase, or the 64/65 lines of a loop-AES multi-key file. */
struct loop_pass;

/* Lines longer than this are rejected (-E2BIG), as loop-AES does. */
#define LOOP_PASS_LINE_MAX 4094
/* loop-AES key files and fds: up to 66 lines are read. */
#define LOOP_PASS_LINES_MAX 66
/* loop-AES: lines shorter than this end a multi-key list, and single
 * passphrases shorter than this are refused unless overridden. */
#define LOOP_PASS_MIN_LENGTH 20

enum loop_pass_flags {
	/* Read exactly one line (util-linux 2.12 `-p`, gpg passphrase). */
	LOOP_PASS_ONE_LINE = 1 << 0,
	/* Read like loop-AES: keep reading lines while they are at least
	 * LOOP_PASS_MIN_LENGTH long (at most 66), so a fd or cleartext key
	 * file may carry 1, 64 or 65 keys. */
	LOOP_PASS_MULTI_LINE = 1 << 1,
};

/*
 * loop_pass_read_fd - read a passphrase from an open fd (`-p FD`).
 * Lines end at '\n' or NUL, and neither is part of the passphrase (the
 * rule of util-linux 2.12 xgetpass() and loop-AES get_FD_pass()).  EOF
 * ends the last line.  The fd is not closed.
 * Returns 0, -EINVAL (bad flags), -E2BIG (line too long), -ENOMEM,
 * -errno from read().
 */
int loop_pass_read_fd(struct loop_pass **pass, int fd, unsigned int flags);

/*
 * loop_pass_read_file - read a cleartext key file (loop-AES `-P`), same
 * line rules as loop_pass_read_fd() with LOOP_PASS_MULTI_LINE.
 * Returns 0 or -errno (open/read errors, -E2BIG, -ENOMEM).
 */
int loop_pass_read_file(struct loop_pass **pass, const char *path);

/*
 * loop_pass_read_tty - prompt on /dev/tty with echo off.
 * @prompt: e.g. "Password: "
 * @verify: ask twice (`-T`), fail with -EKEYREJECTED when they differ.
 * Interrupting signals (SIGINT, SIGQUIT, SIGTERM, SIGHUP, and the stop
 * signals) are caught while echo is off; the terminal is restored, the
 * caller's handlers put back, and the signal raised again; after a stop
 * the question is asked again.
 * Returns 0, -ENOTTY if there is no controlling terminal (never
 * blocks waiting for one), -ECANCELED if input ended before a newline
 * was typed, -EINTR if a signal the caller handles came, -E2BIG,
 * -ENOMEM, -EKEYREJECTED.
 */
int loop_pass_read_tty(struct loop_pass **pass, const char *prompt, int verify);

/*
 * loop_pass_from_buffer - split @len bytes at '\n'/NUL like the fd
 * readers (same @flags).  For callers that already hold the secret in
 * locked memory; @buf is not modified.
 * Returns 0, -EINVAL, -E2BIG, -ENOMEM.
 */
int loop_pass_from_buffer(struct loop_pass **pass, const void *buf, size_t len,
			  unsigned int flags);

/*
 * loop_pass_from_gpg - decrypt a loop-AES gpg key file (`-K`).
 * gpg is run as "gpg [--homedir DIR] --no-options --quiet --batch
 * --no-tty --pinentry-mode loopback --passphrase-fd N --decrypt", the key
 * file on its stdin, @gpg_pass (first line) written to a pipe, and its
 * stdout read through a pipe into locked memory with the multi-line rule.
 * Nothing decrypted touches disk; no secret is in argv or environ.
 * @gpg_program: NULL for "gpg" looked up in /usr/bin, /bin, /usr/local/bin.
 * Returns 0, -ENOENT (key file or gpg missing), -EKEYREJECTED (gpg
 * failed: wrong passphrase or not a gpg file), -EBADMSG (decrypted to
 * nothing), -EIO (gpg gave lines but then failed: a truncated or damaged
 * file; the lines are dropped), -E2BIG, -ENOMEM, -errno from pipe/fork.
 */
int loop_pass_from_gpg(struct loop_pass **pass, const char *keyfile,
		       const char *gpg_homedir, const char *gpg_program,
		       const struct loop_pass *gpg_pass);

/*
 * loop_pass_from_gpg_fd - loop_pass_from_gpg() of a key file the caller
 * has open as @keyfd (gpg reads it from its start; it is not closed).
 * Same returns; -ENOENT only for a missing gpg.
 */
int loop_pass_from_gpg_fd(struct loop_pass **pass, int keyfd,
			  const char *gpg_homedir, const char *gpg_program,
			  const struct loop_pass *gpg_pass);

/*
 * loop_pass_agent_available - whether systemd's password agents can be
 * asked: systemd runs (/run/systemd/system exists), we are root, and
 * /run/systemd/ask-password is a directory only root can write.  When
 * LIBLOOP_ASK_PASSWORD_DIR names another directory (tests; ignored in
 * setuid/setcap processes), that directory is used instead, and it must
 * belong to root or to us and be writable by its owner only.
 * Returns 1 or 0.
 */
int loop_pass_agent_available(void);

/*
 * loop_pass_ask_agent - ask systemd's password agents (console, plymouth,
 * wall...) with the ask-password protocol (systemd.io/PASSWORD_AGENTS):
 * an ask.* file in the agents' directory names our datagram socket, and
 * the agent answers "+passphrase" or "-".  Only answers sent by root or by
 * our uid count.  The answer lands in locked memory; nothing secret
 * touches the file system, argv or the environment.
 * @message: the question shown ("Passphrase for /img:"); @id: a stable
 * name agents may show or cache by, or NULL; @timeout_sec: 0 waits
 * forever; @verify: ask twice and fail with -EKEYREJECTED on a mismatch.
 * Returns 0, -ECANCELED (the agent cancelled), -ETIME (no answer in
 * time), -EPERM/-ENOTDIR (unsafe directory), -E2BIG, -ENOMEM,
 * -EKEYREJECTED, or -errno of the socket or file calls.
 */
int loop_pass_ask_agent(struct loop_pass **pass, const char *message,
			const char *id, unsigned int timeout_sec, int verify);

/* Number of lines (1..66). */
size_t loop_pass_count(const struct loop_pass *pass);
/* Line @i (NUL-terminated, in locked memory) and its length, or NULL. */
const char *loop_pass_line(const struct loop_pass *pass, size_t i, size_t *len);
/* Wipe and free; NULL is fine. */
void loop_pass_free(struct loop_pass *pass);

/* ------------------------------------------------------------------ */
/* Keys                                                                */
/* ------------------------------------------------------------------ */

/* 1 key, or 64 (loop-AES v2) or 65 (loop-AES v3) keys, in locked memory. */
struct loop_key;

/*
 * Passphrase hashing.  LOOP_HASH_DEFAULT picks the format's rule:
 * cryptoloop and plain64 use the util-linux 2.12 raw key, loop-AES
 * hashes by key size (SHA-256/384/512 for 128/192/256 bits).
 */
/* -C beyond this (10^9 rounds, minutes of CPU) is refused: -ERANGE. */
#define LOOP_KEY_ITER_MAX 1000000UL

struct loop_key_params {
	/* NULL/"" for the default, else one of
	 *  loop-AES (-H): "sha256" "sha384" "sha512" "rmd160" "unhashed1"
	 *                 "unhashed2" "random"
	 *  util-linux 2.12: "raw" (= loop-AES unhashed2 with a 32-byte key)
	 *  cryptsetup plain (--hash): "plain", "ripemd160", "sha1", "sha224",
	 *                 "sha256", "sha384", "sha512", "whirlpool",
	 *                 "sha3-256", ..., each optionally ":N" (hash only
	 *                 N bytes, zero the rest), as crypt_plain_hash() does.
	 * "sha256"/"sha384"/"sha512" mean the same in both tools. */
	const char *hash;
	/* loop-AES -S: appended to a single passphrase before hashing. */
	const char *seed;
	/* loop-AES -C: N thousand AES-256 rounds over the key, at most
	 * LOOP_KEY_ITER_MAX. */
	unsigned long iter_thousands;
	/* Accept loop-AES passphrases shorter than LOOP_PASS_MIN_LENGTH. */
	int allow_short;
};

/*
 * loop_key_derive - turn a passphrase (or multi-key lines) into keys.
 * The rules are in libloop/crypto/README.md; each is
 * checked against aespipe, cryptsetup or util-linux by tests/kat.
 *  - loop-AES with 64/65 lines: each line hashed, first byte ^= 0x55
 *    (v2) or 0xF4 (v3); seed and iterations do not apply.
 *  - 2..63 lines: the first line alone, as loop-AES does.
 *  - "random": 65 fresh random keys (v3); only for new volumes.
 * Returns 0, -EINVAL (bad params, hash unknown,
 * multi-key with a non-loop-AES format or 8-byte-block cipher,
 * cryptsetup "HASH:N" with N larger than the key, as cryptsetup
 * refuses it), -ERANGE (iter_thousands above LOOP_KEY_ITER_MAX),
 * -EKEYREJECTED (passphrase shorter than the minimum for its hash, or
 * than N for cryptsetup "plain:N"), -E2BIG (passphrase + seed too long),
 * -ENOMEM.
 */
int loop_key_derive(struct loop_key **key, const struct loop_cipher_spec *spec,
		    const struct loop_key_params *params,
		    const struct loop_pass *pass);

/*
 * loop_key_new_raw - wrap raw key bytes (tests, kernel key hand-over).
 * @count: 1, 64 or 65; @key_bytes each; @data: count * key_bytes bytes.
 * Returns 0, -EINVAL, -ENOMEM.
 */
int loop_key_new_raw(struct loop_key **key, unsigned int count,
		     unsigned int key_bytes, const void *data);

unsigned int loop_key_count(const struct loop_key *key);
unsigned int loop_key_size(const struct loop_key *key);
/* Key @i (key_size bytes, locked memory), NULL if out of range. */
const uint8_t *loop_key_data(const struct loop_key *key, unsigned int i);
void loop_key_free(struct loop_key *key);

/* ------------------------------------------------------------------ */
/* Sector encryption                                                   */
/* ------------------------------------------------------------------ */

struct loop_crypt;

/*
 * loop_crypt_init - set libgcrypt up for libloop, with secure memory for
 * the key schedules of its cipher handles.
 *
 * libloop does this itself on first use, unless the application has
 * initialised libgcrypt already: its handles then stay in ordinary
 * memory, since libloop cannot tell whether secure memory is there.  An
 * application that uses libgcrypt too and wants them secure calls this
 * before its own first libgcrypt call.
 * Returns 0, -ENOTSUP (no libgcrypt, or one older than 1.8.0).
 */
int loop_crypt_init(void);

/*
 * loop_crypt_new - prepare to encrypt/decrypt sectors.
 * @iv_offset: added to every sector number before it becomes an IV (and
 *   before it picks a multi-key key).  Use loop_crypt_iv_offset() to get
 *   the value the old tools used.
 *
 * The context is immutable after creation and safe to use from many
 * threads at once: AES key schedules are read-only, and libgcrypt
 * handles (other ciphers, or no AES-NI) come from an internal pool, one
 * per concurrent call.
 * Returns 0, -EINVAL (key does not fit the spec), -ENOTSUP (cipher not in
 * libgcrypt), -ENOMEM.
 */
int loop_crypt_new(struct loop_crypt **crypt, const struct loop_cipher_spec *spec,
		   const struct loop_key *key, uint64_t iv_offset);

/*
 * loop_crypt_iv_offset - the IV offset for a device whose data starts
 * @offset_bytes into the backing file.  By default sectors count from the
 * start of the backing file (kernel loop.c since 2003, loop-AES, cryptsetup
 * loopaes with --skip = --offset); @override >= 0 replaces that
 * (loop-AES `-I`, aespipe `-O`, cryptsetup `--skip`).
 */
uint64_t loop_crypt_iv_offset(uint64_t offset_bytes, int64_t override);

/*
 * loop_crypt_encrypt / loop_crypt_decrypt - @nsectors 512-byte sectors.
 * @sector: first sector, counted from the start of the device's data
 *   (the IV sector is sector + iv_offset; cryptoloop keeps its low 32 bits).
 * @dst may equal @src (in place); otherwise they must not overlap.
 * Returns 0 or -EINVAL (NULL buffers), -ENOMEM (no cipher handle).
 */
int loop_crypt_encrypt(struct loop_crypt *crypt, uint64_t sector, void *dst,
		       const void *src, size_t nsectors);
int loop_crypt_decrypt(struct loop_crypt *crypt, uint64_t sector, void *dst,
		       const void *src, size_t nsectors);

/* Which code path runs for this context, chosen when it was created
 * (CPU, LIBLOOP_CRYPTO_NO_AESNI, _AES_WIDTH, _MD5_LANES).  The short form
 * is the text before the first comma: "aesni-8way" (8 sectors
 * interleaved on encrypt, xmm), "aesni-8way+vaes" (and VAES on ymm:
 * 16-block decrypt, 16-sector encrypt) or "libgcrypt".  Details follow,
 * for reading, not parsing: the register width, and for loop-AES
 * multi-key the lmk IV's MD5 lanes and whether MD5 and AES run fused,
 * e.g. "aesni-8way+vaes, ymm, md5 16-lane avx2 fused".  Static string. */
const char *loop_crypt_impl_name(const struct loop_crypt *crypt);

/* Wipe and free; NULL is fine. */
void loop_crypt_free(struct loop_crypt *crypt);

#ifdef __cplusplus
}
#endif

#endif /* LIBLOOP_CRYPTO_H */
