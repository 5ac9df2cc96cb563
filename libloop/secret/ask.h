/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Asking for a passphrase without -p: terminal, stdin, password agents.
 * Internal to libloop (loop_attach_read_secret()); not installed. */
#ifndef LIBLOOP_ASK_H
#define LIBLOOP_ASK_H

#include <stdbool.h>
#include "libloop.h"

enum ask_source { ASK_TTY, ASK_STDIN, ASK_AGENT };

/*
 * ask_secret - one passphrase line, from the terminal, else standard
 * input when it is a pipe or file, else systemd's password agents when
 * systemd runs, else standard input (getpass() rules).  @object names
 * the image in the agent's question (NULL: just @prompt).  @verify asks
 * twice.  *@from says where it came from, for the caller's messages.
 * Returns 0 or the -errno of loop_pass_read_tty(), loop_pass_read_fd()
 * or loop_pass_ask_agent(); -EKEYREJECTED when the two entries differ.
 */
int ask_secret(struct loop_pass **pass, const char *prompt, const char *object,
	       bool verify, enum ask_source *from);

#endif
