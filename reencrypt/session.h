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

/*
 * A --luks2 resume, before the header is opened: dies with a message
 * naming the journal and --header when the run that started used
 * another header (@header: the one given now, NULL for none) or put it
 * into the image. Returns when they agree, or when the journal does not
 * say (an older journal; one that cannot be read, which session_open()
 * then reports).
 */
void session_check_header(const struct job *job, const char *header);

/* Whether the journal file exists already. */
bool session_exists(const struct job *job);

#endif
