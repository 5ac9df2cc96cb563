/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Filling a struct loop_attach_msg (libloop-attach.h); not installed. */
#ifndef LIBLOOP_ATTACH_MSG_H
#define LIBLOOP_ATTACH_MSG_H

#include "libloop.h"

/*
 * The options a message names are marked in its format, so that the text
 * keeps losetup's words and the message also carries each option as data
 * (struct loop_attach_msg_ref). @name is the long name without "--".
 * Only the format's marks count: an argument (a file name, an fstab
 * line's cipher) is text, every byte of it.
 */
/* An option, named with @words: MSG_OPT("keybits", "--keybits (-k)") */
#define MSG_OPT(name, words) "\001" name "\002" words "\003"
/* With its argument: MSG_OPT_ARG("pass-fd", "fd ", "%d") */
#define MSG_OPT_ARG(name, words, fmt) "\001" name "\002" words "\004" fmt "\003"
/* An option whose long name and words are the next two %s arguments
 * (plain text, as every argument is: a mark byte there is text) */
#define MSG_OPT_S "\001%s\002%s\003"
/* An aside that offers an option: MSG_ASIDE(" (" MSG_OPT(...) " accepts it)") */
#define MSG_ASIDE(text) "\005" text "\006"

/* Set @m's text (printf @fmt, with the marks above) and option; returns @rc. */
int attach_msg(struct loop_attach_msg *m, int rc, const char *option, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same, with ": " and strerror(-@rc) appended, as err(3) would. */
int attach_msg_errno(struct loop_attach_msg *m, int rc, const char *option,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
