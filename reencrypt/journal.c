// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal of cryptoloop-reencrypt (layout in journal.h). Every field
 * is little-endian on disk, and the header and each slot end with a
 * SHA-256 of what precedes them.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <gcrypt.h>

#include "journal.h"
#include "reencrypt.h"

#define HEADER_MAGIC "CLREENC1"
#define SLOT_MAGIC "CLRSLOT1"
/* version 2 adds the new data offset (the data moves for an in-image
 * LUKS2 header); a version 1 journal has the data stay where it is.
 * Version 3 adds where the LUKS2 header goes: kind, fingerprint, path.
 * Version 4 has the header of version 3, and its slots hold one
 * fingerprint per sector instead of two. */
#define JOURNAL_VERSION 4
/* the last version whose slots hold two fingerprints per sector */
#define JOURNAL_VERSION_FP_PAIRS 3
#define SIDE_BYTES 80
#define HEADER_USED_V1 232
#define HEADER_USED_V2 240
#define HEADER_USED (HEADER_USED_V2 + 8 + JOURNAL_FP_LEN + JOURNAL_HDR_PATH_LEN)
#define SLOT_FIXED 32
#define SHA_LEN 32

static void put32(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return le32toh(v); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return le64toh(v); }

/* the sectors a slot can describe */
static uint32_t slot_sectors(const struct journal *j)
{
	return j->window * (j->chunk / LOOP_SECTOR_SIZE);
}

/* a journal's format by its version: fingerprints per sector, chunks in flight */
static void set_format(struct journal *j, uint32_t version)
{
	j->fp_per_sector = version <= JOURNAL_VERSION_FP_PAIRS ? 2 : 1;
	j->window = version <= JOURNAL_VERSION_FP_PAIRS ? 1 : 2;
}

static uint32_t slot_size_for(const struct journal *j)
{
	uint32_t used = SLOT_FIXED + 8 * j->fp_per_sector * slot_sectors(j) + SHA_LEN;

	return (used + 4095) & ~4095u;
}

int journal_key_check(const struct loop_key *key, const uint8_t *salt,
		      uint32_t iter, uint8_t *out)
{
	unsigned int n = loop_key_count(key), sz = loop_key_size(key), i;
	size_t len = (size_t)n * sz;
	gpg_error_t ge;
	uint8_t *buf;

	/* the keys side by side, in locked memory, wiped after */
	buf = secbuf_alloc(len, SECBUF_LOCK);
	if (!buf)
		return -errno;
	for (i = 0; i < n; i++)
		memcpy(buf + (size_t)i * sz, loop_key_data(key, i), sz);
	ge = gcry_kdf_derive(buf, len, GCRY_KDF_PBKDF2, GCRY_MD_SHA512, salt,
			     JOURNAL_SALT_LEN, iter, JOURNAL_CHECK_LEN, out);
	secbuf_free(buf, len);
	return ge ? -EINVAL : 0;
}

static void put_side(uint8_t *p, const struct journal_side *s)
{
	memcpy(p, s->cipher, sizeof(s->cipher));
	put32(p + 32, s->key_count);
	put32(p + 36, s->key_bits);
	put64(p + 40, s->iv_offset);
	memcpy(p + 48, s->check, JOURNAL_CHECK_LEN);
}

static void get_side(const uint8_t *p, struct journal_side *s)
{
	memcpy(s->cipher, p, sizeof(s->cipher));
	s->cipher[sizeof(s->cipher) - 1] = '\0';
	s->key_count = get32(p + 32);
	s->key_bits = get32(p + 36);
	s->iv_offset = get64(p + 40);
	memcpy(s->check, p + 48, JOURNAL_CHECK_LEN);
}

static int alloc_buffers(struct journal *j)
{
	j->slot_size = slot_size_for(j);
	j->slot = calloc(1, j->slot_size);
	j->fp = calloc((size_t)j->fp_per_sector * slot_sectors(j), sizeof(uint64_t));
	return j->slot && j->fp ? 0 : -ENOMEM;
}

static int lock_journal(int fd)
{
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? -ENOLCK : -errno;
	return 0;
}

/*
 * Whether @tmp is what a start killed before its rename left: a regular
 * file of ours, with no other name, that holds zeros (its space
 * allocated) or begins with a journal header. Anything else there (a
 * symbolic link planted in a directory others can write to, a file of
 * another user) stays, and the journal is not made.
 */
static bool own_leftover(const char *tmp)
{
	uint8_t head[8], zero[8] = { 0 };
	struct stat st;
	bool ours;
	int fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	       st.st_nlink == 1 && pread_all(fd, head, sizeof(head), 0) == 0 &&
	       (!memcmp(head, HEADER_MAGIC, 8) || !memcmp(head, zero, 8));
	close(fd);
	return ours;
}

/* PATH.new, created here and now: 0600, never through a symbolic link */
static int create_tmp(const char *tmp)
{
	int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(tmp, flags, 0600);

	if (fd >= 0 || errno != EEXIST)
		return fd < 0 ? -errno : fd;
	/* unlink() takes the name away, whatever it is, and never follows it;
	 * should another name appear meanwhile, O_EXCL refuses it */
	if (!own_leftover(tmp) || unlink(tmp) < 0)
		return -EEXIST;
	fd = open(tmp, flags, 0600);
	return fd < 0 ? -errno : fd;
}

int journal_create(struct journal *j, const char *path)
{
	uint8_t hdr[JOURNAL_HEADER_SIZE] = { 0 };
	char tmp[PATH_MAX];
	int fd, rc;

	j->fd = -1;
	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	set_format(j, JOURNAL_VERSION);
	j->version = JOURNAL_VERSION;
	rc = alloc_buffers(j);
	if (rc)
		return rc;
	fd = create_tmp(tmp);
	if (fd < 0)
		return fd;
	rc = lock_journal(fd);
	if (rc)
		goto fail_close;
	/* all of its space now, so that ENOSPC comes before the image is touched */
	rc = -posix_fallocate(fd, 0, JOURNAL_HEADER_SIZE + 2 * (off_t)j->slot_size);
	if (rc)
		goto fail_close;
	/* and written once: a later slot write then changes no file system
	 * metadata, so its fdatasync does not wait for a file system commit */
	rc = pwrite_all(fd, j->slot, j->slot_size, JOURNAL_HEADER_SIZE);
	if (!rc)
		rc = pwrite_all(fd, j->slot, j->slot_size, JOURNAL_HEADER_SIZE + j->slot_size);
	if (rc)
		goto fail_close;

	memcpy(hdr, HEADER_MAGIC, 8);
	put32(hdr + 8, JOURNAL_VERSION);
	put32(hdr + 12, j->chunk);
	put64(hdr + 16, j->data_off);
	put64(hdr + 24, j->data_len);
	put32(hdr + 32, j->kdf_iter);
	memcpy(hdr + 40, j->salt, JOURNAL_SALT_LEN);
	put_side(hdr + 72, &j->old);
	put_side(hdr + 72 + SIDE_BYTES, &j->new);
	put64(hdr + HEADER_USED_V1, j->new_off);
	put32(hdr + HEADER_USED_V2, (uint32_t)j->luks2);
	memcpy(hdr + HEADER_USED_V2 + 8, j->header_fp, JOURNAL_FP_LEN);
	memcpy(hdr + HEADER_USED_V2 + 8 + JOURNAL_FP_LEN, j->header_path,
	       JOURNAL_HDR_PATH_LEN - 1);
	gcry_md_hash_buffer(GCRY_MD_SHA256, hdr + HEADER_USED, hdr, HEADER_USED);
	rc = pwrite_all(fd, hdr, sizeof(hdr), 0);
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (rc)
		goto fail_close;
	/* never over a journal another run made meanwhile */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0) {
		rc = errno == EEXIST ? -EBUSY : -errno;
		goto fail_close;
	}
	rc = sync_path(path, true);
	if (rc) {
		close(fd);
		return rc;
	}
	j->fd = fd;
	j->seq = 0;
	j->done = 0;
	j->inflight = 0;
	j->nsect = 0;
	j->cur_slot = -1;
	return 0;

fail_close:
	close(fd);
	unlink(tmp);
	return rc;
}

/* 1 when slot @idx is valid (and then loaded into @j), 0 when not. */
static int load_slot(struct journal *j, int idx, uint64_t *seq)
{
	uint64_t off = JOURNAL_HEADER_SIZE + (uint64_t)idx * j->slot_size;
	uint32_t nsect, used;
	uint8_t sha[SHA_LEN];

	/* what journal_commit() writes, no more: the rest of the slot is not
	 * the slot's */
	if (pread_all(j->fd, j->slot, SLOT_FIXED, off) || memcmp(j->slot, SLOT_MAGIC, 8))
		return 0;
	nsect = get32(j->slot + 28);
	if (nsect > slot_sectors(j))
		return 0;
	used = SLOT_FIXED + 8 * j->fp_per_sector * nsect;
	if (pread_all(j->fd, j->slot + SLOT_FIXED, used + SHA_LEN - SLOT_FIXED, off + SLOT_FIXED))
		return 0;
	gcry_md_hash_buffer(GCRY_MD_SHA256, sha, j->slot, used);
	if (memcmp(sha, j->slot + used, SHA_LEN))
		return 0;
	*seq = get64(j->slot + 8);
	return 1;
}

static void use_slot(struct journal *j, int idx)
{
	uint32_t nsect = get32(j->slot + 28), i;

	j->cur_slot = idx;
	j->nsect = nsect;
	j->seq = get64(j->slot + 8);
	j->done = get64(j->slot + 16);
	j->inflight = get32(j->slot + 24);
	for (i = 0; i < j->fp_per_sector * nsect; i++)
		j->fp[i] = get64(j->slot + SLOT_FIXED + 8 * i);
}

/* Read and check the header of the journal open on @fd into @j.
 * 0 or -EBADMSG. */
static int read_header(int fd, struct journal *j)
{
	uint8_t hdr[JOURNAL_HEADER_SIZE], sha[SHA_LEN];
	uint32_t version, used;

	if (pread_all(fd, hdr, sizeof(hdr), 0) || memcmp(hdr, HEADER_MAGIC, 8))
		return -EBADMSG;
	version = get32(hdr + 8);
	if (version < 1 || version > JOURNAL_VERSION)
		return -EBADMSG;
	used = version == 1 ? HEADER_USED_V1 : version == 2 ? HEADER_USED_V2 : HEADER_USED;
	set_format(j, version);
	j->version = version;
	gcry_md_hash_buffer(GCRY_MD_SHA256, sha, hdr, used);
	if (memcmp(sha, hdr + used, SHA_LEN))
		return -EBADMSG;
	j->chunk = get32(hdr + 12);
	j->data_off = get64(hdr + 16);
	j->data_len = get64(hdr + 24);
	j->kdf_iter = get32(hdr + 32);
	memcpy(j->salt, hdr + 40, JOURNAL_SALT_LEN);
	get_side(hdr + 72, &j->old);
	get_side(hdr + 72 + SIDE_BYTES, &j->new);
	j->new_off = version == 1 ? j->data_off : get64(hdr + HEADER_USED_V1);
	j->luks2 = JOURNAL_LUKS2_UNKNOWN;
	memset(j->header_path, 0, sizeof(j->header_path));
	if (version >= 3) {
		/* an int on disk: out of range, it is refused by journal_validate() */
		j->luks2 = (enum journal_luks2)(int32_t)get32(hdr + HEADER_USED_V2);
		memcpy(j->header_fp, hdr + HEADER_USED_V2 + 8, JOURNAL_FP_LEN);
		memcpy(j->header_path, hdr + HEADER_USED_V2 + 8 + JOURNAL_FP_LEN,
		       JOURNAL_HDR_PATH_LEN - 1);
	}
	return 0;
}

int journal_peek(struct journal *j, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = read_header(fd, j);
	close(fd);
	return rc;
}

static int refuse(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
	return -ERANGE;
}

#define ULL(x) ((unsigned long long)(x))

/* what the header's checksum covers is the writer's word for; what it
 * says must still be what this tool writes before it steers any I/O */
static int validate_header(const struct journal *j, uint64_t image_size, char *why,
			   size_t whysz)
{
	uint64_t shift;

	if (j->kdf_iter != JOURNAL_KDF_ITER)
		return refuse(why, whysz, "kdf_iter is %u, not the %u this tool writes",
			      j->kdf_iter, JOURNAL_KDF_ITER);
	if (!j->chunk || j->chunk % LOOP_SECTOR_SIZE || j->chunk > JOURNAL_CHUNK_MAX)
		return refuse(why, whysz, "chunk is %u bytes, not a multiple of %u from %u to %u",
			      j->chunk, LOOP_SECTOR_SIZE, LOOP_SECTOR_SIZE, JOURNAL_CHUNK_MAX);
	/* recorded since version 3, and then known */
	if (j->version >= 3 ? j->luks2 < JOURNAL_LUKS2_NONE || j->luks2 > JOURNAL_LUKS2_DETACHED :
	    j->luks2 != JOURNAL_LUKS2_UNKNOWN)
		return refuse(why, whysz, "luks2 is %d, not a kind of LUKS2 header", (int)j->luks2);
	if (j->data_off % LOOP_SECTOR_SIZE)
		return refuse(why, whysz, "data_off %llu is not a multiple of %u",
			      ULL(j->data_off), LOOP_SECTOR_SIZE);
	if (!j->data_len || j->data_len % LOOP_SECTOR_SIZE)
		return refuse(why, whysz, "data_len %llu is not a positive multiple of %u",
			      ULL(j->data_len), LOOP_SECTOR_SIZE);
	if (j->data_len > image_size || j->data_off > image_size - j->data_len)
		return refuse(why, whysz, "data_off %llu + data_len %llu runs past the end of "
			      "the image (%llu bytes)", ULL(j->data_off), ULL(j->data_len),
			      ULL(image_size));
	if (j->new_off % LOOP_SECTOR_SIZE || j->new_off < j->data_off ||
	    j->new_off > UINT64_MAX - j->data_len)
		return refuse(why, whysz, "new_off %llu is not where data at data_off %llu can "
			      "move to", ULL(j->new_off), ULL(j->data_off));
	shift = j->new_off - j->data_off;
	if (shift && j->luks2 != JOURNAL_LUKS2_IN_IMAGE && j->luks2 != JOURNAL_LUKS2_UNKNOWN)
		return refuse(why, whysz, "new_off %llu moves the data, but luks2 (%d) puts no "
			      "LUKS2 header into the image", ULL(j->new_off), (int)j->luks2);
	/* the data moves last chunk first: a longer chunk overwrites its own
	 * old data before it is read */
	if (shift && j->chunk > shift)
		return refuse(why, whysz, "chunk %u is more than the %llu bytes the data moves by",
			      j->chunk, ULL(shift));
	return 0;
}

int journal_validate(const struct journal *j, uint64_t image_size, char *why, size_t whysz)
{
	uint64_t most;
	int rc = validate_header(j, image_size, why, whysz);

	if (rc || j->cur_slot < 0)
		return rc;
	/* journal_commit() writes seq to slot seq % 2, the one it is not in */
	if (j->seq % 2 != (uint64_t)j->cur_slot || j->seq == UINT64_MAX)
		return refuse(why, whysz, "seq %llu is in slot %d, where this tool never writes it",
			      ULL(j->seq), j->cur_slot);
	if (j->done % LOOP_SECTOR_SIZE || j->done > j->data_len)
		return refuse(why, whysz, "done %llu is not a multiple of %u up to data_len %llu",
			      ULL(j->done), LOOP_SECTOR_SIZE, ULL(j->data_len));
	/* redone whole when the data moves: one chunk in flight, in one buffer */
	most = j->new_off != j->data_off ? j->chunk : (uint64_t)j->window * j->chunk;
	if (j->inflight % LOOP_SECTOR_SIZE || j->inflight > most)
		return refuse(why, whysz, "inflight is %u bytes, not a multiple of %u up to the "
			      "%llu this conversion has in flight", j->inflight, LOOP_SECTOR_SIZE,
			      ULL(most));
	if (j->inflight > j->data_len - j->done)
		return refuse(why, whysz, "done %llu + inflight %u runs past data_len %llu",
			      ULL(j->done), j->inflight, ULL(j->data_len));
	/* the fingerprints a resume compares the sectors in flight with */
	if (j->nsect != j->inflight / LOOP_SECTOR_SIZE)
		return refuse(why, whysz, "nsect is %u, not the %u sectors in flight",
			      j->nsect, j->inflight / LOOP_SECTOR_SIZE);
	return 0;
}

int journal_read(struct journal *j, uint64_t image_size, char *why, size_t whysz)
{
	uint64_t seq0 = 0, seq1 = 0;
	int v0, v1, rc;

	rc = read_header(j->fd, j);
	if (rc)
		return rc;
	j->cur_slot = -1;
	j->seq = 0;
	j->done = 0;
	j->inflight = 0;
	j->nsect = 0;
	/* a chunk out of range would size the slot buffers: refused first */
	rc = validate_header(j, image_size, why, whysz);
	if (rc)
		return rc;
	rc = alloc_buffers(j);
	if (rc)
		return rc;
	v1 = load_slot(j, 1, &seq1);
	v0 = load_slot(j, 0, &seq0);
	if (v0 && (!v1 || seq0 > seq1)) {
		use_slot(j, 0);
	} else if (v1) {
		load_slot(j, 1, &seq1);
		use_slot(j, 1);
	}
	return journal_validate(j, image_size, why, whysz);
}

int journal_open(struct journal *j, const char *path, uint64_t image_size,
		 char *why, size_t whysz)
{
	int rc;

	j->fd = open(path, O_RDWR | O_CLOEXEC);
	if (j->fd < 0)
		return -errno;
	rc = lock_journal(j->fd);
	if (!rc)
		rc = journal_read(j, image_size, why, whysz);
	if (rc)
		journal_close(j);
	return rc;
}

int journal_commit(struct journal *j, uint64_t done, uint32_t inflight,
		   const uint64_t *fp)
{
	uint32_t nsect = inflight / LOOP_SECTOR_SIZE, nfp = j->fp_per_sector * nsect, i;
	uint32_t used = SLOT_FIXED + 8 * nfp;
	uint64_t seq = j->seq + 1;
	int rc;

	/* journal_validate() refuses it: the one after wraps around */
	if (seq == UINT64_MAX)
		return -EOVERFLOW;
	memset(j->slot, 0, j->slot_size);
	memcpy(j->slot, SLOT_MAGIC, 8);
	put64(j->slot + 8, seq);
	put64(j->slot + 16, done);
	put32(j->slot + 24, inflight);
	put32(j->slot + 28, nsect);
	for (i = 0; i < nfp; i++)
		put64(j->slot + SLOT_FIXED + 8 * i, fp[i]);
	gcry_md_hash_buffer(GCRY_MD_SHA256, j->slot + used, j->slot, used);
	/* the slot the current state is not in: a torn write leaves it intact */
	rc = pwrite_all(j->fd, j->slot, used + SHA_LEN,
			JOURNAL_HEADER_SIZE + (off_t)(seq % 2) * j->slot_size);
	if (!rc && fdatasync(j->fd) < 0)
		rc = -errno;
	if (rc)
		return rc;
	j->seq = seq;
	j->done = done;
	j->inflight = inflight;
	j->nsect = nsect;
	j->cur_slot = (int)(seq % 2);
	if (fp != j->fp)
		memcpy(j->fp, fp, (size_t)nfp * sizeof(uint64_t));
	return 0;
}

void journal_close(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	free(j->slot);
	free(j->fp);
	j->slot = NULL;
	j->fp = NULL;
}
