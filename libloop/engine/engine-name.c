// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engines' names, as the records and the command lines spell them;
 * apart from the tables so that the record format need not know them.
 */
#include "config.h"

#include <errno.h>
#include <strings.h>

#include "base/private.h"

static const char *const engine_names[] = {
	[LOOP_ENGINE_AUTO] = "auto",
	[LOOP_ENGINE_FUSE] = "fuse",
	[LOOP_ENGINE_KMOD] = "kmod",
	[LOOP_ENGINE_XFER] = "xfer",
	[LOOP_ENGINE_DM] = "dm",
};

LIBLOOP_EXPORT const char *loop_engine_name(enum loop_engine_kind kind)
{
	if ((unsigned)kind >= sizeof(engine_names) / sizeof(engine_names[0]))
		return "?";
	return engine_names[kind];
}

LIBLOOP_EXPORT int loop_engine_parse(const char *name, enum loop_engine_kind *kind)
{
	size_t i;

	for (i = 0; name && i < sizeof(engine_names) / sizeof(engine_names[0]); i++) {
		if (!strcasecmp(name, engine_names[i])) {
			*kind = (enum loop_engine_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}
