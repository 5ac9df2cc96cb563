// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The attach call's failures come back as text for the caller to print:
 * losetup prefixes its name, mount.cryptoloop retells them in the words
 * of the fstab line.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "attach-msg.h"

static int vmsg(struct loop_attach_msg *m, int rc, const char *option, bool with_errno,
		const char *fmt, va_list ap)
{
	size_t len;

	if (!m)
		return rc;
	m->option = option;
	vsnprintf(m->text, sizeof(m->text), fmt, ap);
	len = strlen(m->text);
	if (with_errno && len < sizeof(m->text))
		snprintf(m->text + len, sizeof(m->text) - len, ": %s", strerror(-rc));
	return rc;
}

int attach_msg(struct loop_attach_msg *m, int rc, const char *option, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = vmsg(m, rc, option, false, fmt, ap);
	va_end(ap);
	return rc;
}

int attach_msg_errno(struct loop_attach_msg *m, int rc, const char *option,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = vmsg(m, rc, option, true, fmt, ap);
	va_end(ap);
	return rc;
}
