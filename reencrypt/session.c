// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Start a journal, or pick one up: a resume must be the same conversion
 * (same range, same formats) with the same keys, and that is checked
 * before anything is written.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/random.h>
#include <gcrypt.h>

#include "journal.h"
#include "reencrypt.h"
#include "session.h"

static void side_record(struct journal_side *js, const struct side *s)
{
	memset(js, 0, sizeof(*js));
	snprintf(js->cipher, sizeof(js->cipher), "%s", s->spec.name);
	js->key_count = loop_key_count(s->key);
	js->key_bits = loop_key_size(s->key) * 8;
	js->iv_offset = s->iv_offset;
}

static void check_key(const struct job *job, const struct journal *j,
		      const struct side *s, const struct journal_side *js, const char *which)
{
	uint8_t check[JOURNAL_CHECK_LEN];
	int rc = journal_key_check(s->key, j->salt, j->kdf_iter, check);

	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "cannot compute the key check");
	}
	if (memcmp(check, js->check, sizeof(check)))
		errx(EXIT_FAILURE, "%s: the %s key is not the one this conversion was "
		     "started with (journal %s); nothing was written", job->image, which,
		     job->journal_path);
}

static void same_side(const struct job *job, const struct journal_side *now,
		      const struct journal_side *then, const char *which)
{
	if (strcmp(now->cipher, then->cipher) || now->key_count != then->key_count ||
	    now->key_bits != then->key_bits || now->iv_offset != then->iv_offset)
		errx(EXIT_FAILURE, "%s: the journal %s was started with another %s format "
		     "(%s, %u key(s) of %u bits, IV offset %llu); give the same options",
		     job->image, job->journal_path, which, then->cipher, then->key_count,
		     then->key_bits, (unsigned long long)then->iv_offset);
}

static enum session_state resume(struct job *job, struct journal *j)
{
	struct journal_side now;

	/* a file grown (or, cut by a crash, growing) for an in-image LUKS2
	 * header: its data is what it was */
	if (job_moves(job) && j->new_off == job->new_off &&
	    job->size >= j->data_off + j->data_len && job->size <= j->new_off + j->data_len)
		job->data_len = j->data_len;
	if (j->new_off != job->new_off)
		errx(EXIT_FAILURE, "%s: the journal %s moves the data to byte %llu, this "
		     "command to %llu; give the same options", job->image, job->journal_path,
		     (unsigned long long)j->new_off, (unsigned long long)job->new_off);
	if (j->data_off != job->data_off || j->data_len != job->data_len)
		errx(EXIT_FAILURE, "%s: the journal %s is for bytes %llu..%llu, not "
		     "%llu..%llu of this image", job->image, job->journal_path,
		     (unsigned long long)j->data_off,
		     (unsigned long long)(j->data_off + j->data_len),
		     (unsigned long long)job->data_off,
		     (unsigned long long)(job->data_off + job->data_len));
	side_record(&now, &job->old);
	same_side(job, &now, &j->old, "old");
	side_record(&now, &job->new);
	same_side(job, &now, &j->new, "new");
	check_key(job, j, &job->old, &j->old, "old");
	check_key(job, j, &job->new, &j->new, "new");
	job->chunk = j->chunk;
	if (j->done == j->data_len && !j->inflight)
		return SESSION_COMPLETE;
	return SESSION_RESUMED;
}

/* SHA-256 of the whole of the file @path. 0 or -errno. */
static int file_fingerprint(const char *path, uint8_t *out)
{
	unsigned char buf[65536];
	gcry_md_hd_t md;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (gcry_md_open(&md, GCRY_MD_SHA256, 0)) {
		close(fd);
		return -ENOMEM;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		gcry_md_write(md, buf, (size_t)n);
	}
	if (!rc)
		memcpy(out, gcry_md_read(md, GCRY_MD_SHA256), JOURNAL_FP_LEN);
	gcry_md_close(md);
	close(fd);
	return rc;
}

/* What the journal records of the LUKS2 header this run makes. */
static void header_record(const struct job *job, struct journal *j)
{
	char canon[PATH_MAX];
	const char *path;
	size_t len;
	int rc;

	if (!job->luks2) {
		j->luks2 = JOURNAL_LUKS2_NONE;
		return;
	}
	if (!job->header) {
		j->luks2 = JOURNAL_LUKS2_IN_IMAGE;
		return;
	}
	j->luks2 = JOURNAL_LUKS2_DETACHED;
	/* for messages only (the fingerprint decides): a longer path is cut */
	path = realpath(job->header, canon) ? canon : job->header;
	len = strnlen(path, sizeof(j->header_path) - 1);
	memcpy(j->header_path, path, len);
	j->header_path[len] = '\0';
	rc = file_fingerprint(job->header, j->header_fp);
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "%s: cannot read the LUKS2 header back", job->header);
	}
}

void session_check_header(const struct job *job, const char *header)
{
	uint8_t fp[JOURNAL_FP_LEN];
	struct journal j;
	int rc;

	/* the header only, without taking the lock session_open() takes */
	memset(&j, 0, sizeof(j));
	if (journal_peek(&j, job->journal_path))
		return;
	if (j.luks2 == JOURNAL_LUKS2_IN_IMAGE && header)
		errx(EXIT_FAILURE, "%s: the journal %s was started without --header (the "
		     "LUKS2 header goes into the image); resume without --header %s; "
		     "nothing was written", job->image, job->journal_path, header);
	if (j.luks2 != JOURNAL_LUKS2_DETACHED)
		return;
	if (!header)
		errx(EXIT_FAILURE, "%s: the journal %s was started with --header %s; "
		     "resume with the same --header; nothing was written", job->image,
		     job->journal_path, j.header_path);
	rc = file_fingerprint(header, fp);
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "--header %s: cannot read it (the journal %s was started "
		    "with --header %s)", header, job->journal_path, j.header_path);
	}
	if (memcmp(fp, j.header_fp, sizeof(fp)))
		errx(EXIT_FAILURE, "--header %s: not the LUKS2 header the journal %s was "
		     "started with (--header %s, whose contents differ); nothing was "
		     "written", header, job->journal_path, j.header_path);
}

static enum session_state start(struct job *job, struct journal *j)
{
	int rc;

	memset(j, 0, sizeof(*j));
	j->fd = -1;
	j->data_off = job->data_off;
	j->data_len = job->data_len;
	j->new_off = job->new_off;
	j->chunk = job->chunk;
	j->kdf_iter = JOURNAL_KDF_ITER;
	if (getrandom(j->salt, sizeof(j->salt), 0) != (ssize_t)sizeof(j->salt))
		err(EXIT_FAILURE, "cannot get random bytes for the journal's salt");
	side_record(&j->old, &job->old);
	side_record(&j->new, &job->new);
	header_record(job, j);
	rc = journal_key_check(job->old.key, j->salt, j->kdf_iter, j->old.check);
	if (!rc)
		rc = journal_key_check(job->new.key, j->salt, j->kdf_iter, j->new.check);
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "cannot compute the key check");
	}
	rc = journal_create(j, job->journal_path);
	if (rc == -ENOSPC)
		errx(EXIT_FAILURE, "%s: no space for the journal; the image was not touched",
		     job->journal_path);
	if (rc == -EEXIST)
		errx(EXIT_FAILURE, "%s.new: in the way of the journal (a symbolic link, or a "
		     "file this tool did not leave); it was left as it is, and the image was "
		     "not touched", job->journal_path);
	if (rc == -EBUSY)
		errx(EXIT_FAILURE, "%s: another run created this journal meanwhile; the image "
		     "was not touched by this one", job->journal_path);
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "%s: cannot create the journal", job->journal_path);
	}
	return SESSION_STARTED;
}

enum session_state session_open(struct job *job, struct journal *j)
{
	char why[256];
	int rc;

	memset(j, 0, sizeof(*j));
	rc = journal_open(j, job->journal_path, job->size, why, sizeof(why));
	switch (rc) {
	case 0:
		return resume(job, j);
	case -ENOENT:
		return start(job, j);
	case -ENOLCK:
		errx(EXIT_FAILURE, "%s: another cryptoloop-reencrypt is using the journal %s",
		     job->image, job->journal_path);
	case -EBADMSG:
		errx(EXIT_FAILURE, "%s: damaged, or not a cryptoloop-reencrypt journal",
		     job->journal_path);
	case -ERANGE:
		errx(EXIT_FAILURE, "%s: refused, not a journal this tool writes for %s: %s; "
		     "nothing was written", job->journal_path, job->image, why);
	default:
		errno = -rc;
		err(EXIT_FAILURE, "%s: cannot open the journal", job->journal_path);
	}
}

bool session_exists(const struct job *job)
{
	return access(job->journal_path, F_OK) == 0;
}
