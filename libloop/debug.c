// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Call tracing for libloop. The library never prints on its own; this is
 * the one opt-in exception, so a user can see which ioctl failed.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "private.h"

bool loop_debug_enabled(void)
{
	static int enabled = -1;

	if (enabled < 0) {
		const char *v = getenv("LIBLOOP_DEBUG");

		enabled = v && *v && *v != '0';
	}
	return enabled;
}

void loop_debug(const char *fmt, ...)
{
	va_list ap;

	fputs("libloop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
