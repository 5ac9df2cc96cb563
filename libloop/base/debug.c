// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Debug tracing for libloop. The library never prints on its own; this is
 * the one opt-in exception, so a user can see which ioctl, engine or
 * record a failure came from. LIBLOOP_DEBUG selects areas the way
 * util-linux's LOOPDEV_DEBUG does: "engine,state", "all", or a mask
 * number; "help" lists the names. Lines go to stderr as one write each,
 * so threads do not interleave within a line.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/private.h"

static const struct {
	const char *name;
	int mask;
	const char *help;
} areas[] = {
	{ "init",   LOOP_DEBUG_INIT,   "the debug mask" },
	{ "setup",  LOOP_DEBUG_SETUP,  "loop devices: control, ioctls" },
	{ "engine", LOOP_DEBUG_ENGINE, "engine choice, attach, detach" },
	{ "crypto", LOOP_DEBUG_CRYPTO, "cipher specs, key shapes (never keys)" },
	{ "state",  LOOP_DEBUG_STATE,  "records of encrypted devices" },
	{ "all",    LOOP_DEBUG_ALL,    "everything" },
};

static int debug_mask;
static pthread_once_t debug_once = PTHREAD_ONCE_INIT;

static int parse_mask(const char *s)
{
	char *end, *list, *tok, *save = NULL;
	unsigned long n;
	size_t i;
	int mask = 0;

	n = strtoul(s, &end, 0);
	if (end != s && !*end)
		return (int)(n & LOOP_DEBUG_ALL);
	list = strdup(s);
	if (!list)
		return 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
			if (!strcasecmp(tok, areas[i].name))
				mask |= areas[i].mask;
		if (!strcasecmp(tok, "help")) {
			fputs("LIBLOOP_DEBUG=NAME[,NAME...] or a mask:\n", stderr);
			for (i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
				fprintf(stderr, "  %-7s 0x%04x  %s\n", areas[i].name,
					areas[i].mask, areas[i].help);
		}
	}
	free(list);
	return mask;
}

static void debug_init(void)
{
	const char *v = getenv("LIBLOOP_DEBUG");

	debug_mask = v && *v ? parse_mask(v) : 0;
	if (debug_mask)
		debug_mask |= LOOP_DEBUG_INIT;
	/* not DBG(): that would wait for this very pthread_once */
	if (debug_mask)
		loop_debug_obj("init", "libloop", "debug mask 0x%04x", debug_mask);
}

LIBLOOP_PRIVATE_EXPORT int loop_debug_mask(void)
{
	pthread_once(&debug_once, debug_init);
	return debug_mask;
}

static const char *area_upper(const char *area, char *buf, size_t size)
{
	size_t i;

	for (i = 0; area[i] && i + 1 < size; i++)
		buf[i] = (char)(area[i] >= 'a' && area[i] <= 'z' ? area[i] - 'a' + 'A' : area[i]);
	buf[i] = '\0';
	return buf;
}

LIBLOOP_PRIVATE_EXPORT void loop_debug_obj(const char *area, const char *obj,
					   const char *fmt, ...)
{
	char line[1024], name[16];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%d: libloop: %8s: [%s]: ", (int)getpid(),
		     area_upper(area, name, sizeof(name)), obj ? obj : "-");
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}
