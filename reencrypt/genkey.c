// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --generate: a new loop-AES key file, made the way loop-AES's README
 * makes one (65 lines of 60 base64 characters of random bytes, then
 * "gpg --symmetric -a"). The lines exist only in locked memory and a
 * pipe to gpg; the passphrase goes to gpg on its own pipe.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/wait.h>

#include "reencrypt.h"
#include "base/spawn.h"

#define KEY_LINES 65
#define LINE_RAW 45		/* bytes, 60 characters of base64 */
#define LINE_CHARS 60

extern char **environ;

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64_line(char *out, const uint8_t *in)
{
	int i;

	for (i = 0; i < LINE_RAW; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		*out++ = b64[v >> 18 & 63];
		*out++ = b64[v >> 12 & 63];
		*out++ = b64[v >> 6 & 63];
		*out++ = b64[v & 63];
	}
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* gpg --symmetric --armor, @text on its stdin, the passphrase on fd 3 */
static int run_gpg(const char *out, const char *gpghome, const char *text, size_t textlen,
		   const char *pass, size_t passlen)
{
	static const char *const gpgs[] = {
		"/usr/bin/gpg", "/bin/gpg", "/usr/local/bin/gpg", NULL
	};
	const char *argv[20];
	struct loop_spawn_fd fds[4];
	int in[2] = { -1, -1 }, pp[2] = { -1, -1 }, i = 0, rc, status;
	pid_t pid;

	argv[i++] = "gpg";
	if (gpghome) {
		argv[i++] = "--homedir";
		argv[i++] = gpghome;
	}
	argv[i++] = "--no-options";
	argv[i++] = "--quiet";
	argv[i++] = "--batch";
	argv[i++] = "--no-tty";
	argv[i++] = "--yes";
	argv[i++] = "--pinentry-mode";
	argv[i++] = "loopback";
	argv[i++] = "--passphrase-fd";
	argv[i++] = "3";
	argv[i++] = "--symmetric";
	argv[i++] = "--armor";
	argv[i++] = "--output";
	argv[i++] = out;
	argv[i] = NULL;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(pp, O_CLOEXEC) < 0) {
		rc = -errno;
		goto out;
	}
	/* the text on stdin, the passphrase on fd 3, our stdout and stderr
	 * (gpg's complaints are the user's to read); the user's own gpg and
	 * environment (its keyring, agent and locale), as they run it */
	fds[0] = (struct loop_spawn_fd){ in[0], 0 };
	fds[1] = (struct loop_spawn_fd){ STDOUT_FILENO, 1 };
	fds[2] = (struct loop_spawn_fd){ STDERR_FILENO, 2 };
	fds[3] = (struct loop_spawn_fd){ pp[0], 3 };
	rc = -ENOENT;
	for (i = 0; rc == -ENOENT && gpgs[i]; i++)
		rc = loop_spawn(gpgs[i], (char *const *)argv, environ, fds, 4, 0, &pid);
	if (rc)
		goto out;
	close(in[0]);
	close(pp[0]);
	in[0] = pp[0] = -1;
	/* both fit in a pipe's buffer, so the order cannot deadlock */
	rc = write_all(pp[1], pass, passlen);
	if (!rc)
		rc = write_all(pp[1], "\n", 1);
	close(pp[1]);
	pp[1] = -1;
	if (!rc)
		rc = write_all(in[1], text, textlen);
	close(in[1]);
	in[1] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status)))
		rc = -EIO;
out:
	for (i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (pp[i] >= 0)
			close(pp[i]);
	}
	return rc;
}

int genkey_write(const char *path, const char *gpghome, const struct loop_pass *gpgpass)
{
	size_t textlen = KEY_LINES * (LINE_CHARS + 1), passlen;
	const char *pass = loop_pass_line(gpgpass, 0, &passlen);
	uint8_t raw[LINE_RAW];
	char tmp[PATH_MAX], *text;
	int i, rc;

	if (!pass)
		return -EINVAL;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	text = secbuf_alloc(textlen, SECBUF_LOCK);
	if (!text)
		return -errno;
	for (i = 0; i < KEY_LINES; i++) {
		if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
			rc = -EIO;
			goto out;
		}
		base64_line(text + i * (LINE_CHARS + 1), raw);
		text[i * (LINE_CHARS + 1) + LINE_CHARS] = '\n';
	}
	explicit_bzero(raw, sizeof(raw));

	rc = run_gpg(tmp, gpghome, text, textlen, pass, passlen);
	if (!rc)
		rc = sync_path(tmp, false);
	/* never replace a key file: it may be the only key of another image */
	if (!rc && renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0)
		rc = -errno;
	if (!rc)
		rc = sync_path(path, true);
	if (rc)
		unlink(tmp);
out:
	secbuf_free(text, textlen);
	return rc;
}
