// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-reencrypt's journal (reencrypt/journal.c), whatever the file
 * holds: reading it never overruns, and a journal it accepts keeps every
 * bound convert.c sizes its buffers and I/O by. The next commit a resume
 * would write is read back as the state it recorded.
 *
 * The input is a control byte, then the journal file. Checksums would
 * stop almost every mutation at the first check, so unless bit 2 of the
 * control byte is set, the header's and the slots' SHA-256 are made
 * right first (journal.h's layout, as a crafted journal would have
 * them); bits 0-1 pick the image size it is checked against.
 */
#include "config.h"

#include <errno.h>
#include <endian.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gcrypt.h>

#include "journal.h"
#include "reencrypt.h"
#include "fuzz.h"

/* a range inside the image convert.c reads and writes: no wrap-around */
static int inside(uint64_t off, uint64_t len, uint64_t size)
{
	return len <= size && off <= size - len;
}

static void check_bounds(const struct journal *j, uint64_t image_size)
{
	uint64_t shift = j->new_off - j->data_off;

	FUZZ_ASSERT(j->kdf_iter == JOURNAL_KDF_ITER);
	FUZZ_ASSERT(j->chunk && j->chunk % LOOP_SECTOR_SIZE == 0 && j->chunk <= JOURNAL_CHUNK_MAX);
	FUZZ_ASSERT(j->data_len && inside(j->data_off, j->data_len, image_size));
	FUZZ_ASSERT(j->new_off >= j->data_off && inside(j->new_off, j->data_len, UINT64_MAX));
	FUZZ_ASSERT(!shift || j->chunk <= shift);
	FUZZ_ASSERT(j->done % LOOP_SECTOR_SIZE == 0 && j->inflight % LOOP_SECTOR_SIZE == 0);
	FUZZ_ASSERT(inside(j->done, j->inflight, j->data_len));
	/* redo_moved(): one chunk buffer; finish_inflight(): the window's fingerprints */
	FUZZ_ASSERT(j->inflight <= (shift ? j->chunk : (uint64_t)j->window * j->chunk));
	FUZZ_ASSERT(j->nsect == j->inflight / LOOP_SECTOR_SIZE);
	FUZZ_ASSERT(j->cur_slot < 0 || j->seq % 2 == (uint64_t)j->cur_slot);
}

static uint32_t le32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/* journal.c's layout: where the header's checksum goes, by version */
static size_t header_used(uint32_t version)
{
	return version == 1 ? 232 : version == 2 ? 240 : 240 + 8 + JOURNAL_FP_LEN +
							JOURNAL_HDR_PATH_LEN;
}

/* the checksums of the header and of each slot that has its magic */
static void fix_checksums(uint8_t *b, size_t len)
{
	uint32_t version, chunk, fpps, nsect;
	size_t used, slot_size, i;

	if (len < JOURNAL_HEADER_SIZE || memcmp(b, "CLREENC1", 8))
		return;
	version = le32_at(b + 8);
	if (version < 1 || version > 4)
		return;
	used = header_used(version);
	gcry_md_hash_buffer(GCRY_MD_SHA256, b + used, b, used);
	chunk = le32_at(b + 12);
	if (!chunk || chunk % LOOP_SECTOR_SIZE || chunk > JOURNAL_CHUNK_MAX)
		return;
	fpps = version <= 3 ? 2 : 1;
	slot_size = (32 + 8 * fpps * (version <= 3 ? 1 : 2) * (chunk / LOOP_SECTOR_SIZE) + 32 +
		     4095) & ~(size_t)4095;
	for (i = 0; i < 2; i++) {
		uint8_t *sl = b + JOURNAL_HEADER_SIZE + i * slot_size;

		if (JOURNAL_HEADER_SIZE + (i + 1) * slot_size > len || memcmp(sl, "CLRSLOT1", 8))
			continue;
		nsect = le32_at(sl + 28);
		used = 32 + 8 * (size_t)fpps * nsect;
		if (used + 32 <= slot_size)
			gcry_md_hash_buffer(GCRY_MD_SHA256, sl + used, sl, used);
	}
}

static int load(int fd, struct journal *j, uint64_t image_size)
{
	char why[256] = "";
	int rc;

	memset(j, 0, sizeof(*j));
	j->fd = fd;
	rc = journal_read(j, image_size, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG || rc == -ERANGE);
	/* a refusal names what it refuses */
	FUZZ_ASSERT(rc != -ERANGE || why[0]);
	if (!rc)
		check_bounds(j, image_size);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t sizes[] = { UINT64_MAX, 17825792, 262144, 512 };
	static int fd = -1;
	struct journal j, back;
	uint64_t image_size;
	uint8_t *file;
	int rc;

	if (!size)
		return 0;
	if (fd < 0)
		fd = memfd_create("journal", MFD_CLOEXEC);
	FUZZ_ASSERT(fd >= 0);
	file = malloc(size);
	FUZZ_ASSERT(file);
	memcpy(file, data + 1, size - 1);
	if (!(data[0] & 4))
		fix_checksums(file, size - 1);
	FUZZ_ASSERT(ftruncate(fd, 0) == 0);
	FUZZ_ASSERT(pwrite_all(fd, file, size - 1, 0) == 0);
	free(file);
	image_size = sizes[data[0] % 4];

	rc = load(fd, &j, image_size);
	if (!rc) {
		/* what a resume writes before it goes on reads back the same */
		rc = journal_commit(&j, j.done, j.inflight, j.fp);
		FUZZ_ASSERT(rc == 0 || (rc == -EOVERFLOW && j.seq == UINT64_MAX - 1));
		if (!rc) {
			FUZZ_ASSERT(load(fd, &back, image_size) == 0);
			FUZZ_ASSERT(back.seq == j.seq && back.done == j.done &&
				    back.inflight == j.inflight &&
				    !memcmp(back.fp, j.fp,
					    (size_t)j.fp_per_sector * j.nsect * sizeof(*j.fp)));
			back.fd = -1;
			journal_close(&back);
		}
	}
	j.fd = -1;
	journal_close(&j);
	return 0;
}
