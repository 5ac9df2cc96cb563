/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Failures told in the words of the fstab line, not of losetup. */
#ifndef MOUNT_MESSAGES_H
#define MOUNT_MESSAGES_H

/*
 * "FSTAB:LINE" of the fstab line for @source on @target (malloc'ed), or
 * NULL when the mount does not come from one.
 */
char *fstab_line_of(const char *source, const char *target);

/*
 * Print @text (a libloop attach message) on stderr after our name and
 * @where (NULL: nothing), with losetup's option names ("--pass-fd",
 * "fd 3") turned into the fstab options that gave them ("passfd=3").
 */
void tell_in_fstab_words(const char *where, const char *text);

#endif
