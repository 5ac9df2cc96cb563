// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one sleep of libloop's retry loops (device nodes, busy devices,
 * detach and daemon waits): the full time even when a signal interrupts
 * it, so that a retry budget means what it says.
 */
#include "config.h"

#include <time.h>

#include "base/private.h"

void loop_usleep(unsigned long usec)
{
	struct timespec ts = { .tv_sec = usec / 1000000, .tv_nsec = (usec % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}
