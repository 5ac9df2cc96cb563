// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The attach call's failures come back as text for the caller to print:
 * losetup prefixes its name; mount.cryptoloop puts its fstab options
 * where the text names losetup's, which the message lists as data.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "attach-msg.h"

/*
 * @raw (formatted, with the marks of attach-msg.h) as @m's text, and the
 * options it names as @m's refs. An argument that holds a mark byte
 * itself (a cipher name from an fstab line) only loses that byte.
 */
static void take_marks(struct loop_attach_msg *m, const char *raw)
{
	struct loop_attach_msg_ref *r = NULL;
	size_t n = 0, aside = 0, name = 0, first = 0, i;
	bool in_name = false;

	m->nrefs = 0;
	for (; *raw && n + 1 < sizeof(m->text); raw++) {
		switch (*raw) {
		case '\001':
			r = m->nrefs < LOOP_ATTACH_MSG_REFS ? &m->refs[m->nrefs++] : NULL;
			if (r) {
				memset(r, 0, sizeof(*r));
				r->at = (unsigned short)n;
			}
			in_name = true;
			name = 0;
			continue;
		case '\002':
			in_name = false;
			continue;
		case '\004':
			if (r)
				r->arg = (unsigned short)n;
			continue;
		case '\003':
			if (r) {
				r->len = (unsigned short)(n - r->at);
				if (!r->arg)
					r->arg = (unsigned short)n;
			}
			r = NULL;
			continue;
		case '\005':
			aside = n;
			first = m->nrefs;
			continue;
		case '\006':
			for (i = first; i < m->nrefs; i++) {
				m->refs[i].aside_at = (unsigned short)aside;
				m->refs[i].aside_len = (unsigned short)(n - aside);
			}
			continue;
		}
		if (in_name) {
			if (r && name + 1 < sizeof(r->option))
				r->option[name++] = *raw;
			continue;
		}
		m->text[n++] = *raw;
	}
	m->text[n] = '\0';
}

static int vmsg(struct loop_attach_msg *m, int rc, const char *option, bool with_errno,
		const char *fmt, va_list ap)
{
	char raw[sizeof(m->text) + 256];
	size_t len;

	if (!m)
		return rc;
	m->option = option;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	take_marks(m, raw);
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
