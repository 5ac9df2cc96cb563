/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal of cryptoloop-reencrypt. It says how far the conversion
 * has come, and it never holds a key or a passphrase: only the names of
 * the formats, a salted slow check of each key, and fingerprints of the
 * ciphertext of the chunk being written.
 *
 * Layout: a 4 KiB header, then two slots written alternately. A slot is
 * valid when its checksum matches; the valid slot with the higher
 * sequence number is the current one, so a torn slot write falls back to
 * the previous slot, which is still true.
 *
 * A slot holds one fingerprint per sector in flight: of its old
 * ciphertext (version 4), and up to two chunks are in flight. Versions 1
 * to 3 held two fingerprints, of the old and of the new ciphertext, for
 * one chunk at most; such a journal is resumed and carried on in its own
 * format. Why one is enough: convert.c, classify_sector().
 */
#ifndef REENCRYPT_JOURNAL_H
#define REENCRYPT_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "libloop.h"

#define JOURNAL_SALT_LEN 32
#define JOURNAL_CHECK_LEN 32
#define JOURNAL_HEADER_SIZE 4096

struct journal_side {
	char cipher[32];	/* spec name */
	uint32_t key_count;
	uint32_t key_bits;
	uint64_t iv_offset;
	uint8_t check[JOURNAL_CHECK_LEN];
};

/* Where a --luks2 conversion's header goes (the journal's version 3). */
enum journal_luks2 {
	JOURNAL_LUKS2_UNKNOWN = -1,	/* an older journal: not recorded */
	JOURNAL_LUKS2_NONE = 0,		/* no LUKS2: a loop format */
	JOURNAL_LUKS2_IN_IMAGE,		/* into the image (no --header) */
	JOURNAL_LUKS2_DETACHED,		/* --header FILE */
};

#define JOURNAL_FP_LEN 32
#define JOURNAL_HDR_PATH_LEN 1024

/*
 * PBKDF2-SHA512 rounds of the key check. The image itself lets anyone
 * test a guessed key with one decryption of a sector whose plaintext is
 * predictable; the check must cost more than that per guess, and it is
 * paid twice on every start. A journal with any other count is refused:
 * its count would decide how long a start hashes before it can say
 * anything.
 */
#define JOURNAL_KDF_ITER 20000
/* the largest chunk (sizes.c): it bounds the buffers a journal sizes */
#define JOURNAL_CHUNK_MAX (64u << 20)

struct journal {
	int fd;
	/* header */
	uint32_t version;
	uint64_t data_off;
	uint64_t data_len;
	uint64_t new_off;	/* where the new data goes; data_off: in place */
	uint32_t chunk;
	uint32_t kdf_iter;
	uint8_t salt[JOURNAL_SALT_LEN];
	struct journal_side old, new;
	/*
	 * --luks2: where the header is; with --header, its canonical path
	 * (for messages) and a SHA-256 of its contents as the run that
	 * started made it (public data: the header is a file of its own)
	 */
	enum journal_luks2 luks2;
	uint8_t header_fp[JOURNAL_FP_LEN];
	char header_path[JOURNAL_HDR_PATH_LEN];
	/* current slot */
	uint64_t seq;
	/*
	 * bytes that hold new data: from the start of the data, or from its
	 * end when the data moves to a higher offset (new_off > data_off)
	 */
	uint64_t done;
	uint32_t inflight;	/* bytes next to those being written, 0: none */
	uint32_t nsect;		/* sectors the slot has fingerprints for */
	int cur_slot;		/* the slot the state came from, -1: none */
	/*
	 * fingerprints per sector of the chunk: 1 (version 4: the old
	 * ciphertext's) or 2 (versions 1-3: the old and the new one's)
	 */
	uint32_t fp_per_sector;
	uint32_t window;	/* chunks in flight at most: 2 (version 4) or 1 */
	uint64_t *fp;
	/* slot buffer */
	uint8_t *slot;
	uint32_t slot_size;
};

/* The salted check of @key, slow on purpose (PBKDF2-SHA512). 0 or -errno. */
int journal_key_check(const struct loop_key *key, const uint8_t *salt,
		      uint32_t iter, uint8_t *out);

/*
 * Create the journal at @path atomically (written to PATH.new, synced,
 * renamed, directory synced), its space allocated up front so that a full
 * disk is found before the image is touched. @j's header fields are
 * filled by the caller. PATH.new is made anew, never opened through a
 * symbolic link nor reused; only what a start of this tool killed before
 * the rename left there is removed first. Returns 0, -EEXIST (PATH.new
 * is in the way: a symbolic link, or a file that is not such a
 * leftover), -EBUSY (PATH appeared meanwhile), -ENOSPC or -errno.
 */
int journal_create(struct journal *j, const char *path);

/*
 * Open, lock and read an existing journal for an image of @image_size
 * bytes. Returns 0, -ENOENT (none), -EBADMSG (damaged or not a journal),
 * -ERANGE (a field no run of this tool writes, or one that does not fit
 * the image: @why names it), -ENOLCK (another run holds it) or -errno.
 * After an error, @j needs no journal_close().
 */
int journal_open(struct journal *j, const char *path, uint64_t image_size,
		 char *why, size_t whysz);

/*
 * journal_open() of the journal already open on j->fd (no lock taken);
 * @j zeroed but for fd. Needs journal_close() after, also on an error.
 */
int journal_read(struct journal *j, uint64_t image_size, char *why, size_t whysz);

/*
 * Whether every field of the journal read into @j is one this tool
 * writes and fits an image of @image_size bytes, the chunk geometry and
 * the buffers sized by it, before the journal steers any I/O. 0, or
 * -ERANGE with @why naming the first bad field.
 */
int journal_validate(const struct journal *j, uint64_t image_size, char *why, size_t whysz);

/*
 * Read only the header of the journal at @path into @j (no lock, no
 * slots; @j needs no journal_close()). Returns 0, -ENOENT, -EBADMSG or
 * -errno.
 */
int journal_peek(struct journal *j, const char *path);

/*
 * Durably record: [0, done) holds new data, [done, done+inflight) is
 * being written with these fingerprints (j->fp_per_sector per sector).
 * 0 or -errno.
 */
int journal_commit(struct journal *j, uint64_t done, uint32_t inflight,
		   const uint64_t *fp);

void journal_close(struct journal *j);

#endif
