// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The attach call's failures come back as text for the caller to print:
 * losetup prefixes its name; mount.cryptoloop puts its fstab options
 * where the text names losetup's, which the message lists as data.
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stdio.h>
#include <string.h>

#include "attach/attach-msg.h"

/* Where a message is being written: its text, and the option it names. */
struct marking {
	struct loop_attach_msg *m;
	struct loop_attach_msg_ref *r;
	size_t n, aside, name, first;
	bool in_name;
};

static void put_char(struct marking *k, char c)
{
	if (k->in_name) {
		if (k->r && k->name + 1 < sizeof(k->r->option))
			k->r->option[k->name++] = c;
		return;
	}
	if (k->n + 1 < sizeof(k->m->text))
		k->m->text[k->n++] = c;
}

/* One of attach-msg.h's marks, which only the format holds. */
static void put_mark(struct marking *k, char mark)
{
	struct loop_attach_msg *m = k->m;
	size_t i;

	switch (mark) {
	case '\001':
		k->r = m->nrefs < LOOP_ATTACH_MSG_REFS ? &m->refs[m->nrefs++] : NULL;
		if (k->r) {
			memset(k->r, 0, sizeof(*k->r));
			k->r->at = (unsigned short)k->n;
		}
		k->in_name = true;
		k->name = 0;
		break;
	case '\002':
		k->in_name = false;
		break;
	case '\004':
		if (k->r)
			k->r->arg = (unsigned short)k->n;
		break;
	case '\003':
		if (k->r) {
			k->r->len = (unsigned short)(k->n - k->r->at);
			if (!k->r->arg)
				k->r->arg = (unsigned short)k->n;
		}
		k->r = NULL;
		break;
	case '\005':
		k->aside = k->n;
		k->first = m->nrefs;
		break;
	case '\006':
		for (i = k->first; i < m->nrefs; i++) {
			m->refs[i].aside_at = (unsigned short)k->aside;
			m->refs[i].aside_len = (unsigned short)(k->n - k->aside);
		}
		break;
	}
}

static bool is_mark(char c)
{
	return c >= '\001' && c <= '\006';
}

/*
 * The conversion at @p ("%s", "%-8lu", ...) formatted from @ap into @out;
 * returns its length in @p. Only what the messages use: flags, a width
 * and a precision in digits, the lengths h, l, ll and z, and d, i, u, x,
 * c, s and %; anything else is a bug the unit test catches, printed as
 * "%?" and consuming nothing.
 */
#pragma GCC diagnostic push
/* the spec is one conversion of a checked format, rebuilt above */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static size_t conversion(const char *p, va_list *ap, char *out, size_t size)
{
	char spec[32];
	size_t len = 1 + strspn(p + 1, "-+ #0");
	enum { INT, LONG, LLONG, SIZE } type = INT;

	len += strspn(p + len, "0123456789");
	if (p[len] == '.')
		len += 1 + strspn(p + len + 1, "0123456789");
	if (p[len] == 'h') {
		len += p[len + 1] == 'h' ? 2 : 1;
	} else if (p[len] == 'l') {
		type = p[len + 1] == 'l' ? LLONG : LONG;
		len += type == LLONG ? 2 : 1;
	} else if (p[len] == 'z') {
		type = SIZE;
		len++;
	}
	if (!p[len] || !strchr("diuxcs%", p[len]) || len + 2 > sizeof(spec)) {
		snprintf(out, size, "%%?");
		return p[len] ? len + 1 : len;
	}
	memcpy(spec, p, len + 1);
	spec[len + 1] = '\0';
	switch (p[len]) {
	case '%':
		snprintf(out, size, "%%");
		break;
	case 's':
		snprintf(out, size, spec, va_arg(*ap, const char *));
		break;
	case 'c':
		snprintf(out, size, spec, va_arg(*ap, int));
		break;
	case 'd':
	case 'i':
		if (type == LONG)
			snprintf(out, size, spec, va_arg(*ap, long));
		else if (type == LLONG)
			snprintf(out, size, spec, va_arg(*ap, long long));
		else if (type == SIZE)
			snprintf(out, size, spec, va_arg(*ap, ssize_t));
		else
			snprintf(out, size, spec, va_arg(*ap, int));
		break;
	default:
		if (type == LONG)
			snprintf(out, size, spec, va_arg(*ap, unsigned long));
		else if (type == LLONG)
			snprintf(out, size, spec, va_arg(*ap, unsigned long long));
		else if (type == SIZE)
			snprintf(out, size, spec, va_arg(*ap, size_t));
		else
			snprintf(out, size, spec, va_arg(*ap, unsigned int));
		break;
	}
	return len + 1;
}
#pragma GCC diagnostic pop

/*
 * printf @fmt into @m's text, and the options its marks name into @m's
 * refs. The marks are read in the format only: what the arguments bring
 * (a file name, a cipher from an fstab line) is text, every byte of it.
 */
static void format_marked(struct loop_attach_msg *m, const char *fmt, va_list *ap)
{
	struct marking k = { .m = m };
	char arg[sizeof(m->text)];
	const char *a;

	m->nrefs = 0;
	for (; *fmt; fmt++) {
		if (*fmt == '%') {
			fmt += conversion(fmt, ap, arg, sizeof(arg)) - 1;
			for (a = arg; *a; a++)
				put_char(&k, *a);
		} else if (is_mark(*fmt)) {
			put_mark(&k, *fmt);
		} else {
			put_char(&k, *fmt);
		}
	}
	m->text[k.n] = '\0';
}

static int vmsg(struct loop_attach_msg *m, int rc, const char *option, bool with_errno,
		const char *fmt, va_list ap)
{
	va_list args;
	size_t len;

	if (!m)
		return rc;
	m->option = option;
	va_copy(args, ap);
	format_marked(m, fmt, &args);
	va_end(args);
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
