/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Filling a struct loop_attach_msg (libloop-attach.h); not installed. */
#ifndef LIBLOOP_ATTACH_MSG_H
#define LIBLOOP_ATTACH_MSG_H

#include "libloop.h"

/* Set @m's text (printf @fmt) and option; returns @rc. */
int attach_msg(struct loop_attach_msg *m, int rc, const char *option, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same, with ": " and strerror(-@rc) appended, as err(3) would. */
int attach_msg_errno(struct loop_attach_msg *m, int rc, const char *option,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
