// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The conversion loop. Write ordering, the invariant a resume relies on:
 *
 *   Before any sector of a chunk is written, the journal durably says
 *   that every sector before the chunks in flight (this one and at most
 *   one before it) holds new ciphertext, and carries a fingerprint of
 *   the old ciphertext of every sector in flight (and, in a journal of
 *   version 1-3, of the new one too, with one chunk in flight). The
 *   journal moves past a chunk only after the chunk's new ciphertext is
 *   durable. Sectors after the chunks in flight are not written before
 *   the journal has moved on.
 *
 * So after a crash each sector in flight is old or new, and the
 * fingerprint of its old ciphertext says which (classify_sector() has
 * why one fingerprint suffices); a sector that is neither (torn by the
 * device) stops the resume instead of being guessed at. The pipeline
 * that keeps two chunks in flight: convert_chunk_pipelined().
 *
 * When the data moves to a higher offset (an in-image LUKS2 header needs
 * the room), the chunks go last to first, no longer than the shift, and
 * each is written to its new place:
 *
 *   A chunk's new place holds only sectors whose old ciphertext has
 *   already moved, durably, with the journal past them; its old place
 *   is not written before the journal is past the chunk.
 *
 * So the old ciphertext of the chunk in flight is intact after any
 * crash, and a resume simply converts the whole chunk again.
 */
#include "config.h"

#include <err.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "luks2.h"
#include "reencrypt.h"

volatile sig_atomic_t reencrypt_stop;

#define MAX_THREADS 8
/* 64 KiB: a slice's batch, small enough for L2 with its plaintext copy */
#define BATCH_SECTORS 128

int new_encrypt(struct job *job, uint64_t sector, void *dst, const void *src, size_t n)
{
	if (job->luks2)
		return luks2_encrypt(job->luks2, sector, dst, src, n);
	return loop_crypt_encrypt(job->new.crypt, sector, dst, src, n);
}

int new_decrypt(struct job *job, uint64_t sector, void *dst, const void *src, size_t n)
{
	if (job->luks2)
		return luks2_decrypt(job->luks2, sector, dst, src, n);
	return loop_crypt_decrypt(job->new.crypt, sector, dst, src, n);
}

struct bufs {
	uint8_t *cipher;	/* read from the image, then the new ciphertext */
	uint8_t *spare;		/* the other one: the chunk being written behind */
	uint8_t *plain;		/* the old plaintext, locked, wiped at the end */
	uint8_t *check;		/* --verify: read back */
	uint64_t *fp;		/* as the journal holds them: fp_per_sector each */
	uint32_t fp_per_sector;
	size_t fp_base;		/* where in fp the chunk being encrypted starts */
	size_t size;
};

/* read at byte @off of the image (data_off + pos: old data, new_off + pos: new) */
static int image_read(struct job *job, void *buf, size_t len, uint64_t off)
{
	int rc = pread_all(job->img_fd, buf, len, off);

	if (rc)
		warnx("%s: cannot read at byte %llu: %s", job->image,
		      (unsigned long long)off, strerror(-rc));
	return rc;
}

/* write the new data of [pos, pos + len) and make it durable */
static int image_write(struct job *job, const void *buf, size_t len, uint64_t pos)
{
	int rc = image_pwrite(job->img_fd, job->img_dfd, buf, len, job->new_off + pos);

	if (!rc && fdatasync(job->img_fd) < 0)
		rc = -errno;
	if (rc)
		warnx("%s: cannot write at byte %llu: %s", job->image,
		      (unsigned long long)(job->new_off + pos), strerror(-rc));
	return rc;
}

/*
 * Write the new data of [pos, pos + len) and make it durable, both in the
 * background: @buf stays untouched until image_sync().
 */
static void image_write_async(struct job *job, const void *buf, size_t len, uint64_t pos,
			      struct flusher *f)
{
	flush_start_write(f, job->img_fd, job->img_dfd, buf, len, job->new_off + pos);
}

/* wait until what was written is durable: the sync started after the write */
static int image_sync(struct job *job, struct flusher *f)
{
	int rc = flush_wait(f);

	if (rc && f->write_failed)
		warnx("%s: cannot write at byte %llu: %s", job->image,
		      (unsigned long long)f->off, strerror(-rc));
	else if (rc)
		warnx("%s: cannot sync: %s", job->image, strerror(-rc));
	return rc;
}

/* --verify: read the chunk back from the device, not the page cache */
static int verify_chunk(struct job *job, struct bufs *b, size_t len, uint64_t pos,
			const uint8_t *skip)
{
	size_t i;
	int rc;

	posix_fadvise(job->img_fd, (off_t)(job->new_off + pos), (off_t)len, POSIX_FADV_DONTNEED);
	rc = image_read(job, b->check, len, job->new_off + pos);
	if (rc)
		return rc;
	rc = new_decrypt(job, pos / LOOP_SECTOR_SIZE, b->check, b->check,
			       len / LOOP_SECTOR_SIZE);
	if (rc)
		return rc;
	for (i = 0; i < len / LOOP_SECTOR_SIZE; i++) {
		if (skip && skip[i])
			continue;
		if (memcmp(b->check + i * LOOP_SECTOR_SIZE, b->plain + i * LOOP_SECTOR_SIZE,
			   LOOP_SECTOR_SIZE)) {
			warnx("%s: verification failed: sector %llu does not decrypt to "
			      "what it held", job->image,
			      (unsigned long long)((job->new_off + pos) / LOOP_SECTOR_SIZE + i));
			return -EIO;
		}
	}
	return 0;
}

static int crypt_chunk(struct job *job, struct bufs *b, uint64_t sector, size_t ns,
		       uint64_t read_off);

/* crypt_chunk()'s @read_off when the chunk is in the buffer already */
#define NO_READ UINT64_MAX

/*
 * The data moves: the old ciphertext of the chunk in flight is intact
 * (the invariant above), so the whole chunk is converted again.
 */
static int redo_moved(struct job *job, struct journal *j, struct bufs *b)
{
	size_t n = j->inflight;
	uint64_t pos = job->data_len - j->done - n;
	int rc;

	rc = crypt_chunk(job, b, pos / LOOP_SECTOR_SIZE, n / LOOP_SECTOR_SIZE,
			 job->data_off + pos);
	if (!rc)
		rc = image_write(job, b->cipher, n, pos);
	if (!rc && job->verify)
		rc = verify_chunk(job, b, n, pos, NULL);
	return rc;
}

/*
 * Which of its two contents sector @sector holds, in @s: 1 new, 0 old,
 * -EIO neither (torn by the device), -EKEYREJECTED (a version 1-3
 * journal: the keys differ from the first run), or -errno. For an old
 * one, @s and @plain hold its new ciphertext and its plaintext after.
 *
 * A version 4 journal has only the fingerprint F of the old ciphertext
 * C. Any other content X is taken as new only when the old cipher
 * applied to the new cipher's decryption of X gives back a sector whose
 * fingerprint is F. Both ciphers are deterministic bijections of a
 * sector for a given sector number and key (every format's IV depends
 * on nothing else), so that content is C, up to a collision of the
 * 64-bit fingerprint, and X, its image under the new cipher, is exactly
 * the new ciphertext of C's plaintext: no torn mix of C and the new
 * ciphertext passes. This is what lets the journal be written before the
 * chunk is encrypted, and the conversion fingerprint each sector once.
 */
static int classify_sector(struct job *job, const struct journal *j, uint64_t sector,
			   size_t i, uint8_t *s, uint8_t *plain)
{
	uint64_t f = sector_fingerprint(s), fold;
	int rc;

	fold = j->fp_per_sector == 2 ? j->fp[2 * i] : j->fp[i];
	if (j->fp_per_sector == 2 && f == j->fp[2 * i + 1])
		return 1;
	if (f == fold) {
		rc = loop_crypt_decrypt(job->old.crypt, sector, plain, s, 1);
		if (!rc)
			rc = new_encrypt(job, sector, s, plain, 1);
		if (!rc && j->fp_per_sector == 2 && sector_fingerprint(s) != j->fp[2 * i + 1])
			rc = -EKEYREJECTED;
		return rc;
	}
	if (j->fp_per_sector == 2)
		return -EIO;
	/* not the old ciphertext: new, if it maps back onto it */
	rc = new_decrypt(job, sector, plain, s, 1);
	if (!rc)
		rc = loop_crypt_encrypt(job->old.crypt, sector, plain, plain, 1);
	if (!rc)
		rc = sector_fingerprint(plain) == fold ? 1 : -EIO;
	explicit_bzero(plain, LOOP_SECTOR_SIZE);
	return rc;
}

/*
 * Finish the chunks a crash interrupted (up to j->window of them), sector
 * by sector, a buffer's worth at a time.
 */
static int finish_inflight(struct job *job, struct journal *j, struct bufs *b)
{
	size_t ns = j->inflight / LOOP_SECTOR_SIZE, per = b->size / LOOP_SECTOR_SIZE;
	size_t first, i, k, todo;
	uint8_t *isnew;
	int rc = 0;

	if (job_moves(job))
		return redo_moved(job, j, b);
	isnew = calloc(per, 1);
	if (!isnew)
		return -ENOMEM;
	for (first = 0; !rc && first < ns; first += k) {
		uint64_t pos = j->done + (uint64_t)first * LOOP_SECTOR_SIZE;

		k = ns - first < per ? ns - first : per;
		todo = 0;
		rc = image_read(job, b->cipher, k * LOOP_SECTOR_SIZE, job->data_off + pos);
		for (i = 0; !rc && i < k; i++) {
			uint64_t sector = pos / LOOP_SECTOR_SIZE + i;

			rc = classify_sector(job, j, sector, first + i,
					     b->cipher + i * LOOP_SECTOR_SIZE,
					     b->plain + i * LOOP_SECTOR_SIZE);
			if (rc == -EIO)
				warnx("%s: sector %llu holds neither its old nor its new "
				      "ciphertext (torn by the device); cannot resume safely",
				      job->image,
				      (unsigned long long)(job->data_off / LOOP_SECTOR_SIZE + sector));
			if (rc == -EKEYREJECTED)
				warnx("%s: sector %llu does not re-encrypt to what the journal "
				      "recorded; the keys differ from the first run", job->image,
				      (unsigned long long)(job->data_off / LOOP_SECTOR_SIZE + sector));
			isnew[i] = rc == 1;
			if (rc == 1)
				rc = 0;
			else if (!rc)
				todo++;
		}
		if (!rc && todo)
			rc = image_write(job, b->cipher, k * LOOP_SECTOR_SIZE, pos);
		if (!rc && todo && job->verify)
			rc = verify_chunk(job, b, k * LOOP_SECTOR_SIZE, pos, isnew);
	}
	free(isnew);
	return rc;
}

/* One thread's share of a chunk: sectors [first, first + count). */
struct slice {
	struct job *job;
	struct bufs *b;
	uint64_t sector;	/* of the chunk's first sector */
	uint64_t read_off;	/* image byte of the chunk's old data, or NO_READ */
	size_t first, count;
	int rc;
	bool threaded;
	pthread_t tid;
};

/*
 * Fingerprint, decrypt, encrypt and fingerprint again @count sectors from
 * index @first of the chunk, starting at sector @s of the data.
 */
static int crypt_batch(struct job *job, struct bufs *b, uint64_t s, size_t first,
		       size_t count, uint64_t read_off)
{
	uint8_t *c = b->cipher + first * LOOP_SECTOR_SIZE;
	uint8_t *p = b->plain + first * LOOP_SECTOR_SIZE;
	uint64_t *f = b->fp + b->fp_base;
	/* a moving chunk is redone whole after a crash: no fingerprints */
	bool fp = !job_moves(job);
	/* a version 1-3 journal holds the new ciphertext's fingerprints too */
	size_t i, step = b->fp_per_sector;
	int rc;

	/* read here, so that the passes below find the batch in the cache */
	if (read_off != NO_READ) {
		rc = image_read(job, c, count * LOOP_SECTOR_SIZE,
				read_off + first * LOOP_SECTOR_SIZE);
		if (rc)
			return rc;
	}
	for (i = 0; fp && i < count; i++)
		f[step * (first + i)] = sector_fingerprint(c + i * LOOP_SECTOR_SIZE);
	rc = loop_crypt_decrypt(job->old.crypt, s, p, c, count);
	if (!rc)
		rc = new_encrypt(job, s, c, p, count);
	for (i = 0; fp && step == 2 && !rc && i < count; i++)
		f[2 * (first + i) + 1] = sector_fingerprint(c + i * LOOP_SECTOR_SIZE);
	return rc;
}

static void *crypt_slice(void *arg)
{
	struct slice *sl = arg;
	size_t done, n;

	/*
	 * In batches that stay in the CPU's cache through all four passes,
	 * instead of four passes over the whole slice (up to 32 MiB) in
	 * memory.
	 */
	for (done = 0; done < sl->count && !sl->rc; done += n) {
		n = sl->count - done < BATCH_SECTORS ? sl->count - done : BATCH_SECTORS;
		sl->rc = crypt_batch(sl->job, sl->b, sl->sector + sl->first + done,
				     sl->first + done, n, sl->read_off);
	}
	return NULL;
}

/*
 * Read (from image byte @read_off, unless NO_READ), fingerprint, decrypt,
 * encrypt and fingerprint again the @ns sectors of b->cipher, split over
 * the CPUs: the sector encryption contexts and the LUKS2 target are safe to share between
 * threads, and each thread reads its own share.
 */
static int crypt_chunk(struct job *job, struct bufs *b, uint64_t sector, size_t ns,
		       uint64_t read_off)
{
	struct slice sl[MAX_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = cpus < 2 ? 1 : (size_t)cpus, i, per;
	int rc = 0;

	if (nt > MAX_THREADS)
		nt = MAX_THREADS;
	/* slices of whole groups of 8 sectors, what the AES-NI path interleaves */
	per = ((ns + nt - 1) / nt + 7) & ~(size_t)7;
	for (i = 0; i < nt && i * per < ns; i++) {
		sl[i] = (struct slice){ .job = job, .b = b, .sector = sector,
					.read_off = read_off, .first = i * per,
					.count = ns - i * per < per ? ns - i * per : per };
		sl[i].threaded = i > 0 && !pthread_create(&sl[i].tid, NULL, crypt_slice, &sl[i]);
	}
	nt = i;
	/* the first slice, and any a thread could not be started for, run here */
	for (i = 0; i < nt; i++)
		if (!sl[i].threaded)
			crypt_slice(&sl[i]);
	for (i = 0; i < nt; i++) {
		if (sl[i].threaded)
			pthread_join(sl[i].tid, NULL);
		if (sl[i].rc && !rc)
			rc = sl[i].rc;
	}
	return rc;
}

/*
 * Convert one chunk. Its read and its crypto overlap the write-back of the
 * chunk before (@f, an fdatasync in a thread): the journal moves past that
 * one only after the sync returned, which keeps the invariant above.
 */
static int convert_chunk(struct job *job, struct journal *j, struct bufs *b,
			 uint64_t done, uint64_t pos, size_t n, struct flusher *f)
{
	size_t ns = n / LOOP_SECTOR_SIZE;
	uint64_t sector = pos / LOOP_SECTOR_SIZE;
	int rc;

	rc = crypt_chunk(job, b, sector, ns, job->data_off + pos);
	if (rc)
		return rc;

	rc = image_sync(job, f);
	if (rc)
		return rc;
	rc = journal_commit(j, done, (uint32_t)n, b->fp);
	if (rc) {
		warnx("%s: cannot write the journal: %s", job->journal_path, strerror(-rc));
		return rc;
	}
	image_write_async(job, b->cipher, n, pos, f);
	/* the next chunk goes to the other buffer while this one is written */
	if (b->spare) {
		uint8_t *t = b->cipher;

		b->cipher = b->spare;
		b->spare = t;
	}
	if (!job->verify)
		return 0;
	rc = image_sync(job, f);
	if (!rc)
		rc = verify_chunk(job, b, n, pos, NULL);
	return rc;
}

/*
 * Two chunks in flight (a version 4 journal, in place, without --verify).
 * The pipeline, for chunk c, while chunk c-1 is written in the background
 * (@wr) and an fdatasync that started after c-2's write returned runs in
 * another thread (@sy):
 *
 *   1. read and encrypt c, fingerprinting its old ciphertext;
 *   2. wait for @sy: c-2 is durable;
 *   3. the journal durably says: everything before c-1 is new, c-1 and c
 *      are in flight, with their fingerprints;
 *   4. wait for @wr: c-1's write returned;
 *   5. start an fdatasync (it makes c-1 durable) and the write of c.
 *
 * So the device writes c while c-1's sync and the journal's run, instead
 * of idling through them, and the invariant holds as in one-chunk steps:
 * no sector is written before the journal describes it (3 before 5), and
 * the journal counts a chunk done only after a sync that began after its
 * write returned (5 of c, then 2 and 3 of c+2).
 */
struct two_in_flight {
	struct flusher wr, sy;
	size_t prev_n;		/* c-1: being written, not yet known durable; 0: none */
	uint64_t done;		/* what the journal may call new once @sy returned */
};

static int convert_chunk_pipelined(struct job *job, struct journal *j, struct bufs *b,
				   struct two_in_flight *fl, uint64_t pos, size_t n)
{
	size_t ns = n / LOOP_SECTOR_SIZE, prev_ns = fl->prev_n / LOOP_SECTOR_SIZE;
	uint8_t *t;
	int rc;

	/* 1: the fingerprints of c go after those of c-1 */
	b->fp_base = prev_ns;
	rc = crypt_chunk(job, b, pos / LOOP_SECTOR_SIZE, ns, job->data_off + pos);
	/* 2 */
	if (fl->sy.running) {
		int src = image_sync(job, &fl->sy);

		rc = rc ? rc : src;
	}
	if (rc)
		return rc;
	/* 3 */
	rc = journal_commit(j, fl->done, (uint32_t)(fl->prev_n + n), b->fp);
	if (rc) {
		warnx("%s: cannot write the journal: %s", job->journal_path, strerror(-rc));
		return rc;
	}
	/* 4 */
	if (fl->wr.running) {
		rc = image_sync(job, &fl->wr);
		if (rc)
			return rc;
	}
	/* 5: c-1's buffer is free again, and c's fingerprints go first */
	if (fl->prev_n)
		flush_start(&fl->sy, job->img_fd, -1, NULL, 0, 0, true);
	flush_start(&fl->wr, job->img_fd, job->img_dfd, b->cipher, n, job->new_off + pos, false);
	t = b->cipher;
	b->cipher = b->spare;
	b->spare = t;
	memmove(b->fp, b->fp + prev_ns, ns * sizeof(*b->fp));
	fl->done += fl->prev_n;
	fl->prev_n = n;
	return 0;
}

/*
 * The end of the pipeline, also after an error or a signal: no thread
 * left, and with 0 every chunk written is durable (a sync that began after
 * the last write returned).
 */
static int drain_two_in_flight(struct job *job, struct two_in_flight *fl)
{
	int rc = 0, src;

	if (fl->wr.running) {
		src = image_sync(job, &fl->wr);
		rc = rc ? rc : src;
	}
	if (fl->sy.running) {
		src = image_sync(job, &fl->sy);
		rc = rc ? rc : src;
	}
	if (!rc && fl->prev_n) {
		flush_start(&fl->sy, job->img_fd, -1, NULL, 0, 0, true);
		rc = image_sync(job, &fl->sy);
	}
	return rc;
}

static int bufs_alloc(struct bufs *b, size_t chunk, uint32_t fp_per_sector, uint32_t window,
		      bool verify)
{
	memset(b, 0, sizeof(*b));
	b->size = chunk;
	b->fp_per_sector = fp_per_sector;
	b->cipher = secbuf_alloc(chunk, SECBUF_UNLOCKED);
	/* the chunk being written and synced while the next is encrypted */
	b->spare = secbuf_alloc(chunk, SECBUF_UNLOCKED);
	/* the plaintext is what the encryption protects: kept off swap */
	b->plain = secbuf_alloc(chunk, SECBUF_TRY_LOCK);
	b->check = verify ? secbuf_alloc(chunk, SECBUF_TRY_LOCK) : NULL;
	b->fp = calloc((size_t)fp_per_sector * window * (chunk / LOOP_SECTOR_SIZE),
		       sizeof(uint64_t));
	if (!b->cipher || !b->spare || !b->plain || (verify && !b->check) || !b->fp)
		return -ENOMEM;
	return 0;
}

static void bufs_free(struct bufs *b)
{
	secbuf_free(b->cipher, b->size);
	secbuf_free(b->spare, b->size);
	secbuf_free(b->plain, b->size);
	secbuf_free(b->check, b->size);
	free(b->fp);
}

int convert_run(struct job *job, struct journal *j)
{
	struct flusher f = { .running = false };
	struct two_in_flight fl = { .wr.running = false, .sy.running = false };
	struct bufs b;
	uint64_t done;
	bool two, durable = false;
	int rc;

	rc = bufs_alloc(&b, j->chunk, j->fp_per_sector, j->window, job->verify);
	if (rc)
		goto out;
	/* the new ciphertext around the page cache, where it can be (direct.c) */
	job->img_dfd = image_open_direct(job->image, job->img_fd);
	if (j->inflight) {
		rc = finish_inflight(job, j, &b);
		if (rc)
			goto out;
	}
	done = j->done + j->inflight;
	/*
	 * two chunks in flight where the journal has room for them; not when
	 * the data moves (a chunk's new place is the next one's old place) nor
	 * with --verify (it reads each chunk back once it is durable)
	 */
	two = j->window == 2 && !job_moves(job) && !job->verify;
	fl.done = done;
	progress_start(job->progress, job->data_len, done);
	while (done < job->data_len) {
		size_t n = job->data_len - done < j->chunk ? job->data_len - done : j->chunk;
		/* forwards in place; backwards when the data moves up */
		uint64_t pos = job_moves(job) ? job->data_len - done - n : done;

		if (reencrypt_stop) {
			rc = -EINTR;
			break;
		}
		if (two)
			rc = convert_chunk_pipelined(job, j, &b, &fl, pos, n);
		else
			rc = convert_chunk(job, j, &b, done, pos, n, &f);
		if (rc)
			break;
		done += n;
		progress_update(done);
	}
	progress_end();
	/* also on an error: no thread outlives the loop */
	if (f.running) {
		int src = image_sync(job, &f);

		if (!rc)
			rc = src;
	}
	if (two) {
		int drc = drain_two_in_flight(job, &fl);

		/* an I/O error matters more than the signal */
		if (drc && (!rc || rc == -EINTR))
			rc = drc;
		durable = !drc;
		done = fl.done + fl.prev_n;
	}
	/*
	 * stopped by a signal, the journal still says how far it came, but
	 * only what the drain made durable
	 */
	if (!rc || (rc == -EINTR && two && durable && done > j->done)) {
		int jrc = journal_commit(j, done, 0, NULL);

		if (jrc)
			warnx("%s: cannot write the journal: %s", job->journal_path,
			      strerror(-jrc));
		rc = rc ? rc : jrc;
	}
out:
	if (job->img_dfd >= 0)
		close(job->img_dfd);
	job->img_dfd = -1;
	bufs_free(&b);
	return rc;
}
