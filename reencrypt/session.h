/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef REENCRYPT_SESSION_H
#define REENCRYPT_SESSION_H

#include <stdbool.h>

struct job;
struct journal;

enum session_state {
	SESSION_STARTED,	/* a new journal; nothing converted yet */
	SESSION_RESUMED,	/* an earlier run was interrupted */
	SESSION_COMPLETE,	/* the journal says the work is done */
};

/* Create or open the journal, checking a resume against it; dies with a
 * message when it does not fit. */
enum session_state session_open(struct job *job, struct journal *j);

/* Whether the journal file exists already. */
bool session_exists(const struct job *job);

#endif
