/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared state of cryptoloop-reencrypt. */
#ifndef REENCRYPT_H
#define REENCRYPT_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "libloop.h"
#include "losetup.h"

/* One side of the conversion: how the image is encrypted before or after. */
struct side {
	struct loop_attach_opts k;
	uint64_t offset;
	uint64_t sizelimit;
	bool has_offset;
	bool has_sizelimit;
	struct loop_cipher_spec spec;
	struct loop_key *key;
	struct loop_crypt *crypt;
	uint64_t iv_offset;
};

struct luks2_target;

enum progress_mode { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER };

struct job {
	const char *image;
	char *journal_path;
	int img_fd;
	int img_dfd;		/* convert.c: the image with O_DIRECT, or -1 */
	bool is_blockdev;
	uint64_t data_off;	/* where the encrypted data starts, bytes */
	uint64_t data_len;	/* how much of it is re-encrypted, bytes */
	/*
	 * where the new data goes: data_off, or further on when an in-image
	 * LUKS2 header needs the room (the data then moves, last chunk first)
	 */
	uint64_t new_off;
	uint64_t size;		/* of the image when it was opened, bytes */
	uint32_t chunk;		/* bytes per journal step */
	enum progress_mode progress;
	bool verify;
	struct side old, new;
	/* --luks2: the new side is a LUKS2 data area, not a loop format */
	struct luks2_target *luks2;
	/* --luks2 without --header: the header made aside, copied in last */
	char *side_header;
	/* --luks2 --header FILE, NULL without */
	const char *header;
};

/* whether the data moves (to make room for an in-image LUKS2 header) */
static inline bool job_moves(const struct job *job)
{
	return job->new_off != job->data_off;
}

/* the new side's cipher, whichever kind it is */
int new_encrypt(struct job *job, uint64_t sector, void *dst, const void *src, size_t n);
int new_decrypt(struct job *job, uint64_t sector, void *dst, const void *src, size_t n);

/* busy.c: 0 when nothing uses the image, else -EBUSY with @who filled */
int image_in_use(const char *image, int fd, char *who, size_t whosz);

/* sizes.c: the data range to convert, and the chunk size for it */
int image_data_range(struct job *job, uint64_t *total_size);
uint32_t chunk_size_for(uint64_t data_len);

/* genkey.c: write a new gpg key file of 65 random lines (loop-AES) */
int genkey_write(const char *path, const char *gpghome,
		 const struct loop_pass *gpgpass);

/* convert.c: run (or resume) the conversion; 0 or exits with a message */
struct journal;
int convert_run(struct job *job, struct journal *j);
extern volatile sig_atomic_t reencrypt_stop;

/* flush.c: a chunk's write and fdatasync of the image, in a thread that
 * runs while the caller works on the next chunk */
#include <pthread.h>
struct flusher {
	int fd;
	int dfd;		/* the image open with O_DIRECT, or -1 */
	int rc;
	bool running, threaded;
	bool sync;		/* fdatasync after the write (if any) */
	bool write_failed;	/* rc is the write's, not the sync's */
	const void *buf;	/* what to write first (len bytes at off), or NULL */
	size_t len;
	uint64_t off;
	pthread_t tid;
};
/* write @len bytes of @buf at @off (by image_pwrite() with @fd and @dfd)
 * unless @buf is NULL, then with @sync fdatasync @fd; @buf must stay
 * untouched until flush_wait() */
void flush_start(struct flusher *f, int fd, int dfd, const void *buf, size_t len,
		 uint64_t off, bool sync);
/* flush_start() with the write and the sync */
void flush_start_write(struct flusher *f, int fd, int dfd, const void *buf, size_t len,
		       uint64_t off);
int flush_wait(struct flusher *f);	/* 0 or -errno of the write or the fdatasync */
/* fsync @path, or with @dir the directory holding it; 0 or -errno */
int sync_path(const char *path, bool dir);
/* io.c: all of @len bytes at @off, or -errno (-ENODATA: read past the end) */
int pread_all(int fd, void *buf, size_t len, uint64_t off);
int pwrite_all(int fd, const void *buf, size_t len, uint64_t off);
/* direct.c: the image at @path opened again with O_DIRECT (checked to be
 * the file open on @fd), or -1 when the file system refuses it */
int image_open_direct(const char *path, int fd);
/* write all of @buf at @off: by @dfd when it is open (>= 0) and buf, len
 * and off are aligned for it, else (or when it says EINVAL) by @fd.
 * 0 or -errno */
int image_pwrite(int fd, int dfd, const void *buf, size_t len, uint64_t off);

/* secbuf.c: a page-aligned buffer for a chunk of the image or a key, left
 * out of core dumps, locked in memory as @lock says; NULL with errno */
enum secbuf_lock {
	SECBUF_UNLOCKED,	/* ciphertext */
	SECBUF_TRY_LOCK,	/* plaintext: locked if RLIMIT_MEMLOCK allows */
	SECBUF_LOCK,		/* keys: locked, or no buffer */
};
void *secbuf_alloc(size_t len, enum secbuf_lock lock);
/* wipe, unlock and unmap a secbuf_alloc() buffer (NULL: nothing) */
void secbuf_free(void *p, size_t len);

/* progress.c */
void progress_start(enum progress_mode mode, uint64_t total, uint64_t done);
void progress_update(uint64_t done);
void progress_end(void);

/* hash64.c: a fast 64-bit fingerprint of one 512-byte sector */
uint64_t sector_fingerprint(const void *sector);

#endif
