// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * loop_parse_size() against util-linux strtosize() semantics. Expected
 * values are plain arithmetic on the documented suffix rules
 * (K = 2^10 ... ; KB = 10^3 ...; strtoumax base 0 for the digits), and
 * the fractions were confirmed with util-linux's own parser through
 * "fallocate -l SIZE f; stat -c %s f" (util-linux 2.38.1).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libloop.h"
#include "cli/size.h"
#include "tap.h"

static void good(const char *s, uint64_t want)
{
	uint64_t v = 1234;
	int rc = loop_parse_size(s, &v);

	ok(rc == 0, "'%s' parses (rc %d)", s, rc);
	is_u64(v, want, "'%s' = %llu", s, (unsigned long long)want);
}

static void bad(const char *s, int want_rc)
{
	uint64_t v = 1234;
	int rc = loop_parse_size(s, &v);

	ok(rc == want_rc && v == 0, "'%s' is rejected with %d (got %d), result 0", s,
	   want_rc, rc);
}

/*
 * The same, with the string's NUL as the last byte before an unmapped
 * page: a parser that looks one byte past the end dies here even
 * without AddressSanitizer.
 */
static void bad_at_page_end(const char *s, int want_rc)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = strlen(s) + 1;
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t v;
	int rc;

	if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE)) {
		ok(0, "'%s' at a page end: cannot map the guard page", s);
		return;
	}
	memcpy(map + page - n, s, n);
	rc = loop_parse_size(map + page - n, &v);
	ok(rc == want_rc, "'%s' before a guard page is rejected with %d (got %d)",
	   s, want_rc, rc);
	munmap(map, 2 * page);
}

int main(void)
{
	good("0", 0);
	good("512", 512);
	good("0x200", 512);
	good("010", 8);		/* octal, as strtoumax(.., 0) reads it */
	good("1K", 1024);
	good("1k", 1024);
	good("1KiB", 1024);
	good("1Kib", 1024);
	good("1KB", 1000);
	good("1kb", 1000);
	good("2M", 2ULL << 20);
	good("3MB", 3000000);
	good("1G", 1ULL << 30);
	good("1GiB", 1ULL << 30);
	good("1T", 1ULL << 40);
	good("1P", 1ULL << 50);
	good("1E", 1ULL << 60);
	good("1.5K", 1536);
	good("1.5KB", 1500);
	good("0.5M", 512 * 1024);
	good("1.05K", 1024 + 51);	/* 0.05 KiB = 51.2 B, truncated */
	/* util-linux scales each fraction digit separately and truncates
	 * each, so 1.25G is one byte short of 1.25 * 2^30 */
	good("1.25G", 1342177279);
	good("18446744073709551615", UINT64_MAX);

	bad("", -EINVAL);
	bad("-1", -EINVAL);
	bad(" -1", -EINVAL);
	bad("abc", -EINVAL);
	bad("1Q", -EINVAL);
	bad("1KX", -EINVAL);
	bad("1.5", -EINVAL);	/* a fraction needs a suffix */
	bad("1iB", -EINVAL);
	bad("16E", -ERANGE);
	bad("1Z", -ERANGE);
	bad("18446744073709551616", -ERANGE);
	/* a fraction that ends the string: no suffix, nothing read past it */
	bad("1.0", -EINVAL);
	bad_at_page_end("1.0", -EINVAL);
	bad_at_page_end("1.00", -EINVAL);
	bad_at_page_end("1.", -EINVAL);
	bad_at_page_end("1.5", -EINVAL);
	good("1.0K", 1024);
	return tap_done();
}
