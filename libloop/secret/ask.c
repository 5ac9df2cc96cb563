// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where a passphrase comes from when no -p, key file or gpg key is given:
 *  1. the controlling terminal, with echo off (as always);
 *  2. without one, standard input when it is a pipe, file or socket:
 *     glibc getpass(), which util-linux 2.12 and loop-AES used, read
 *     stdin then, and cron jobs still do `echo "$pw" | losetup -e ...`;
 *  3. otherwise systemd's password agents, when systemd runs: at boot a
 *     mount or service has /dev/null as stdin, and the agents ask on the
 *     console or in plymouth;
 *  4. otherwise standard input, whatever it is, as getpass() did (a
 *     console there, as in an initramfs, gets its echo turned off).
 * The one output of the library: without a terminal the prompt goes to
 * standard error, as getpass() wrote it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secret/ask.h"
#include "crypto/crypto-internal.h"

/* How long an agent's question stays up: for ever (0), as systemd-cryptsetup's
 * questions at boot; a person who is slow to answer must not end in
 * emergency mode. */
#define AGENT_TIMEOUT_SEC 0

static bool stdin_carries_data(void)
{
	struct stat st;

	if (fstat(STDIN_FILENO, &st) < 0)
		return false;
	return S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode);
}

/* getpass() without a controlling terminal: the prompt goes to stderr,
 * and a console on stdin gets its echo turned off */
static int read_stdin_line(struct loop_pass **pass, const char *prompt)
{
	fflush(stderr);
	if (isatty(STDIN_FILENO))
		return loop_pass_read_terminal(pass, STDIN_FILENO, prompt);
	fputs(prompt, stderr);
	fflush(stderr);
	return loop_pass_read_fd(pass, STDIN_FILENO, LOOP_PASS_ONE_LINE);
}

static int read_stdin(struct loop_pass **pass, const char *prompt, bool verify)
{
	struct loop_pass *again = NULL;
	int rc;

	rc = read_stdin_line(pass, prompt);
	if (rc || !verify)
		return rc;
	rc = read_stdin_line(&again, "Retype password: ");
	if (rc == 0) {
		size_t la = 0, lb = 0;
		const char *a = loop_pass_line(*pass, 0, &la);
		const char *b = loop_pass_line(again, 0, &lb);

		if (la != lb || memcmp(a, b, la))
			rc = -EKEYREJECTED;
	}
	loop_pass_free(again);
	if (rc) {
		loop_pass_free(*pass);
		*pass = NULL;
	}
	return rc;
}

int ask_secret(struct loop_pass **pass, const char *prompt, const char *object,
	       bool verify, enum ask_source *from)
{
	char message[512], id[512];
	int rc;

	*from = ASK_TTY;
	rc = loop_pass_read_tty(pass, prompt, verify);
	if (rc != -ENOTTY)
		return rc;
	if (!stdin_carries_data() && loop_pass_agent_available()) {
		*from = ASK_AGENT;
		if (object) {
			snprintf(message, sizeof(message), "%.*s for %s:",
				 (int)strcspn(prompt, ":"), prompt, object);
			snprintf(id, sizeof(id), "cryptoloop:%s", object);
		} else {
			snprintf(message, sizeof(message), "%s", prompt);
			snprintf(id, sizeof(id), "cryptoloop");
		}
		return loop_pass_ask_agent(pass, message, id, AGENT_TIMEOUT_SEC, verify);
	}
	*from = ASK_STDIN;
	return read_stdin(pass, prompt, verify);
}
