// SPDX-License-Identifier: GPL-2.0-or-later
/* loop_parse_size(): every -o, --sizelimit and -b argument. */
#include "config.h"

#include <errno.h>

#include "libloop.h"
#include "cli/size.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	uint64_t v = 1;
	int rc = loop_parse_size(s, &v);

	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	FUZZ_ASSERT(rc == 0 || v == 0);
	free(s);
	return 0;
}
