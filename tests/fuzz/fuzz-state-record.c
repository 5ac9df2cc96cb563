// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The engine's state records (/run/cryptoloop/ID/state): whatever the
 * file holds, parsing never overruns and, when it succeeds, the record
 * formats back to text that parses to the same record (one spelling).
 */
#include "config.h"

#include <errno.h>

#include "libloop.h"
#include "engine/engine-private.h"
#include "fuzz.h"

static char text[3 * 3 * 4096 + 4096];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct loop_state a, b;
	int rc, n;

	memset(&a, 0, sizeof(a));
	strcpy(a.id, "fuse.fuzz00");
	rc = loop_state_parse(&a, (const char *)data, size);
	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG);
	FUZZ_ASSERT(!strcmp(a.id, "fuse.fuzz00"));
	if (rc)
		return 0;
	n = loop_state_format(&a, text, sizeof(text));
	FUZZ_ASSERT(n > 0);
	memset(&b, 0, sizeof(b));
	strcpy(b.id, "fuse.fuzz00");
	FUZZ_ASSERT(loop_state_parse(&b, text, (size_t)n) == 0);
	FUZZ_ASSERT(!memcmp(&a, &b, sizeof(a)));
	/* the text was canonical: formatting gives it back byte for byte */
	FUZZ_ASSERT((size_t)n == size && !memcmp(text, data, size));
	return 0;
}
