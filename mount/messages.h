/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Failures told in the words of the fstab line, not of losetup. */
#ifndef MOUNT_MESSAGES_H
#define MOUNT_MESSAGES_H

/*
 * "FSTAB:LINE" of the fstab line for @source on @target (malloc'ed), or
 * NULL when the mount does not come from one.
 */
char *fstab_line_of(const char *source, const char *target);
/* The same in the fstab file @path. */
char *fstab_line_in(const char *path, const char *source, const char *target);

struct loop_attach_msg;

/*
 * Print @m (a libloop attach message) on stderr after our name and
 * @where (NULL: nothing), each option it names said as the fstab option
 * that gave it ("passfd=3", not losetup's "fd 3").
 */
void tell_in_fstab_words(const char *where, const struct loop_attach_msg *m);

#endif
