/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Passphrase entry and key-derivation rules that are about input, not
 * bytes on disk: line splitting as util-linux 2.12 xgetpass() and loop-AES
 * get_FD_pass() do it, the loop-AES multi-line rule, no-terminal errors,
 * gpg failures, minimum lengths, and that no secret survives in memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <termios.h>
#include <time.h>

#include "libloop-crypto.h"
#include "tap.h"
#include "memscan.h"

static int pipe_with(const char *data, size_t len)
{
	int p[2];

	if (pipe(p) < 0)
		return -1;
	if (write(p[1], data, len) != (ssize_t)len)
		return -1;
	close(p[1]);
	return p[0];
}

static void test_lines(void)
{
	struct loop_pass *p = NULL;
	const char *l;
	size_t len;
	char rest[16];
	int fd, r;

	fd = pipe_with("secret one\nnext", 15);
	r = loop_pass_read_fd(&p, fd, LOOP_PASS_ONE_LINE);
	l = loop_pass_line(p, 0, &len);
	ok(!r && loop_pass_count(p) == 1 && len == 10 && !strcmp(l, "secret one"),
	   "one line ends at newline, newline not included");
	ok(read(fd, rest, sizeof(rest)) == 4 && !memcmp(rest, "next", 4),
	   "nothing after the newline was consumed");
	close(fd);
	loop_pass_free(p);

	r = loop_pass_from_buffer(&p, "ab\0cd", 5, LOOP_PASS_ONE_LINE);
	l = loop_pass_line(p, 0, &len);
	ok(!r && len == 2 && !strcmp(l, "ab"), "NUL ends a line too");
	loop_pass_free(p);

	r = loop_pass_from_buffer(&p, "no newline", 10, LOOP_PASS_ONE_LINE);
	l = loop_pass_line(p, 0, &len);
	ok(!r && len == 10, "EOF ends the last line");
	loop_pass_free(p);

	r = loop_pass_from_buffer(&p, "", 0, LOOP_PASS_ONE_LINE);
	ok(!r && loop_pass_count(p) == 1 && loop_pass_line(p, 0, &len) && len == 0,
	   "empty input is one empty passphrase");
	loop_pass_free(p);

	r = loop_pass_from_buffer(&p, "a\r\n", 3, LOOP_PASS_ONE_LINE);
	loop_pass_line(p, 0, &len);
	ok(!r && len == 2, "CR is part of the passphrase (both old tools keep it)");
	loop_pass_free(p);

	{
		char *big = malloc(LOOP_PASS_LINE_MAX + 2);

		memset(big, 'x', LOOP_PASS_LINE_MAX + 1);
		big[LOOP_PASS_LINE_MAX + 1] = '\n';
		ok(loop_pass_from_buffer(&p, big, LOOP_PASS_LINE_MAX, LOOP_PASS_ONE_LINE) == 0,
		   "a %d-byte line is accepted", LOOP_PASS_LINE_MAX);
		loop_pass_free(p);
		ok(loop_pass_from_buffer(&p, big, LOOP_PASS_LINE_MAX + 2, LOOP_PASS_ONE_LINE) == -E2BIG,
		   "a longer line is refused (-E2BIG), as loop-AES does");
		free(big);
	}
	ok(loop_pass_from_buffer(&p, "x", 1, 0) == -EINVAL, "flags are required");
	ok(loop_pass_read_fd(&p, -1, LOOP_PASS_ONE_LINE) == -EINVAL, "bad fd");
}

static char *key_lines(int n, int short_at)
{
	char *s = malloc((size_t)n * 32 + 1), *q = s;
	int i;

	for (i = 0; i < n; i++)
		q += sprintf(q, i == short_at ? "short%02d\n" : "key line number %02d of many\n", i);
	return s;
}

static void test_multi_lines(void)
{
	static const struct { int lines, short_at, want; } v[] = {
		{ 1, -1, 1 }, { 2, -1, 2 }, { 64, -1, 64 }, { 65, -1, 65 },
		{ 66, -1, 66 }, { 70, -1, 66 }, { 65, 10, 10 }, { 3, 0, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct loop_pass *p = NULL;
		char *s = key_lines(v[i].lines, v[i].short_at);
		int r = loop_pass_from_buffer(&p, s, strlen(s), LOOP_PASS_MULTI_LINE);

		ok(!r && (int)loop_pass_count(p) == v[i].want,
		   "%d lines (short line at %d) -> %d kept (got %zu)", v[i].lines,
		   v[i].short_at, v[i].want, loop_pass_count(p));
		loop_pass_free(p);
		free(s);
	}
}

/* Large multi-key input: the locked buffer has to grow several times. */
static void test_big_lines(void)
{
	size_t linelen = LOOP_PASS_LINE_MAX, n = 66, i;
	char *s = malloc(n * (linelen + 1)), *q = s;
	struct loop_pass *p = NULL;
	const char *l;
	size_t len;
	int r, good = 1;

	for (i = 0; i < n; i++) {
		memset(q, 'a' + (int)(i % 26), linelen);
		q[linelen] = '\n';
		q += linelen + 1;
	}
	r = loop_pass_from_buffer(&p, s, n * (linelen + 1), LOOP_PASS_MULTI_LINE);
	ok(!r && loop_pass_count(p) == 66, "66 lines of %zu bytes kept (r=%d)", linelen, r);
	for (i = 0; !r && i < n; i++) {
		l = loop_pass_line(p, i, &len);
		good &= l && len == linelen && l[0] == 'a' + (int)(i % 26) &&
			l[linelen - 1] == 'a' + (int)(i % 26) && l[linelen] == '\0';
	}
	ok(good, "every line intact after the buffer grew");
	loop_pass_free(p);
	free(s);
}

static void test_no_tty(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct loop_pass *p = NULL;

		/* a new session has no controlling terminal */
		setsid();
		_exit(loop_pass_read_tty(&p, "Password: ", 0) == -ENOTTY ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "no controlling terminal: -ENOTTY at once, no hang");
}

/*
 * A real terminal: a pty becomes the controlling terminal of a child in a
 * new session; the child reads with loop_pass_read_tty() while we type.
 * Checks echo is off (what we type never comes back) and ask-twice.
 */
static int tty_child(int verify, const char *typed, size_t typed_len,
		     int *result, char *got, size_t got_size, char *echoed, size_t echo_size)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY), res[2], status;
	size_t echoed_len = 0;
	pid_t pid;

	if (master < 0 || grantpt(master) || unlockpt(master) || pipe(res))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct loop_pass *p = NULL;
		const char *l;
		size_t len = 0;
		int slave, r;

		char name[64];

		snprintf(name, sizeof(name), "%s", ptsname(master));
		close(master);
		setsid();
		slave = open(name, O_RDWR);   /* becomes our controlling tty */
		if (slave < 0)
			_exit(2);
		r = loop_pass_read_tty(&p, "Password: ", verify);
		l = r ? "" : loop_pass_line(p, 0, &len);
		if (write(res[1], &r, sizeof(r)) < 0 || write(res[1], l, len + 1) < 0)
			_exit(3);
		loop_pass_free(p);
		_exit(0);
	}
	close(res[1]);
	/* wait for the prompt, so echo is already off, then type */
	{
		char buf[256];
		size_t want_prompts = verify ? 2 : 1, seen = 0, i;
		const char *t = typed;

		while (seen < want_prompts) {
			ssize_t n = read(master, buf, sizeof(buf));

			if (n <= 0)
				break;
			for (i = 0; i < (size_t)n; i++) {
				if (echoed_len + 1 < echo_size)
					echoed[echoed_len++] = buf[i];
			}
			echoed[echoed_len] = '\0';
			seen = 0;
			for (const char *q = echoed; (q = strstr(q, "assword: ")) != NULL; q++)
				seen++;
			if (seen >= 1 && t == typed) {
				const char *nl = memchr(typed, '\n', typed_len);
				size_t first = nl ? (size_t)(nl - typed) + 1 : typed_len;

				if (write(master, typed, first) < 0)
					break;
				t = typed + first;
			}
			if (seen >= want_prompts && t < typed + typed_len) {
				if (write(master, t, (size_t)(typed + typed_len - t)) < 0)
					break;
				t = typed + typed_len;
			}
		}
	}
	if (read(res[0], result, sizeof(*result)) != sizeof(*result))
		*result = -999;
	{
		ssize_t n = read(res[0], got, got_size - 1);

		got[n > 0 ? n : 0] = '\0';
	}
	waitpid(pid, &status, 0);
	/* collect whatever else the child wrote to the terminal */
	{
		char buf[256];
		ssize_t n;

		fcntl(master, F_SETFL, O_NONBLOCK);
		while ((n = read(master, buf, sizeof(buf))) > 0) {
			size_t i;

			for (i = 0; i < (size_t)n && echoed_len + 1 < echo_size; i++)
				echoed[echoed_len++] = buf[i];
		}
		echoed[echoed_len] = '\0';
	}
	close(master);
	close(res[0]);
	return 0;
}

static void test_tty(void)
{
	char got[128], echoed[1024];
	int r = 0;

	if (tty_child(0, "sekrit words\n", 13, &r, got, sizeof(got), echoed, sizeof(echoed))) {
		ok(1, "# SKIP no pty available");
		return;
	}
	ok(r == 0 && !strcmp(got, "sekrit words"), "terminal: passphrase read (r=%d, '%s')", r, got);
	ok(strstr(echoed, "Password: ") && !strstr(echoed, "sekrit"),
	   "terminal: prompt shown, typing not echoed");

	tty_child(1, "same thing\nsame thing\n", 22, &r, got, sizeof(got), echoed, sizeof(echoed));
	ok(r == 0 && !strcmp(got, "same thing") && strstr(echoed, "Retype password: "),
	   "terminal -T: asked twice, equal answers accepted (r=%d)", r);
	tty_child(1, "same thing\nother thing\n", 23, &r, got, sizeof(got), echoed, sizeof(echoed));
	ok(r == -EKEYREJECTED, "terminal -T: different answers -> -EKEYREJECTED (r=%d)", r);
}

/*
 * Ctrl-C at the prompt: the process dies of SIGINT as it should, and the
 * terminal has its echo back (before, the shell was left typing blind).
 */
static void test_tty_interrupt(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave, status = 0;
	struct termios t;
	char buf[256], name[64];
	size_t seen = 0;
	pid_t pid;

	if (master < 0 || grantpt(master) || unlockpt(master)) {
		ok(1, "# SKIP no pty available");
		ok(1, "# SKIP no pty available");
		return;
	}
	snprintf(name, sizeof(name), "%s", ptsname(master));
	/* ours, so that the terminal's settings outlive the child */
	slave = open(name, O_RDWR | O_NOCTTY);
	pid = fork();
	if (pid == 0) {
		struct loop_pass *p = NULL;
		int fd;

		close(master);
		setsid();
		/* as in an interactive shell: a test run as a background job
		 * inherits SIGINT ignored, and Ctrl-C would then do nothing */
		signal(SIGINT, SIG_DFL);
		fd = open(name, O_RDWR);	/* our controlling terminal */
		if (fd < 0)
			_exit(2);
		loop_pass_read_tty(&p, "Password: ", 0);
		_exit(3);
	}
	buf[0] = '\0';
	while (!strstr(buf, "Password: ") && seen + 1 < sizeof(buf)) {
		ssize_t n = read(master, buf + seen, sizeof(buf) - 1 - seen);

		if (n <= 0)
			break;
		seen += (size_t)n;
		buf[seen] = '\0';
	}
	/* half a passphrase, then Ctrl-C as the terminal delivers it */
	if (write(master, "half a pass\x03", 12) != 12)
		ok(0, "cannot type");
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT,
	   "Ctrl-C at the prompt: the process ends by SIGINT (status %#x)", status);
	ok(slave >= 0 && tcgetattr(slave, &t) == 0 && (t.c_lflag & ECHO),
	   "Ctrl-C at the prompt: the terminal has its echo back");
	close(slave);
	close(master);
}

/*
 * A gpg key file cut short: 65 long lines (compressed, so gpg writes what
 * it has decrypted as it goes) without its last 300 bytes. gpg itself
 * prints part of the lines, then exits 2; none of them may be taken.
 */
static void test_gpg_truncated(const char *dir, const char *home, const char *srcdir)
{
	struct loop_pass *gp = NULL, *p = NULL;
	char cmd[2048], path[300];
	int lines = 0, status = -1, r;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "set -e; cd '%s'; for i in $(seq 65); do head -c 150 /dev/urandom | base64 -w0; "
		 "echo; done > k65.txt; "
		 "gpg --homedir '%s' --batch --no-options --quiet --pinentry-mode loopback "
		 "--passphrase-file '%s/tests/kat/pass/gpgpass.txt' --symmetric --cipher-algo AES256 "
		 "-o k65.gpg < k65.txt; rm k65.txt; "
		 "head -c $(($(stat -c %%s k65.gpg) - 300)) k65.gpg > cut.gpg; "
		 "{ gpg --homedir '%s' --no-options --quiet --batch --no-tty --pinentry-mode loopback "
		 "--passphrase-file '%s/tests/kat/pass/gpgpass.txt' --decrypt < cut.gpg 2>/dev/null "
		 "&& echo 0 > status || echo $? > status; } | wc -l > lines",
		 dir, home, srcdir, home, srcdir);
	ok(system(cmd) == 0, "a truncated gpg key file made");
	snprintf(path, sizeof(path), "%s/lines", dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &lines) != 1)
			lines = 0;
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/status", dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &status) != 1)
			status = -1;
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/tests/kat/pass/gpgpass.txt", srcdir);
	loop_pass_read_file(&gp, path);
	snprintf(path, sizeof(path), "%s/cut.gpg", dir);
	r = loop_pass_from_gpg(&p, path, home, NULL, gp);
	ok(r == -EIO && !p, "gpg: a truncated key file -> -EIO, no lines (got %d; gpg alone "
	   "printed %d lines and exited %d)", r, lines, status);
	if (lines < 1 || status == 0)
		printf("# gpg did not print part of it and fail: the case was not reached\n");
	loop_pass_free(p);
	loop_pass_free(gp);
}

static void test_files(void)
{
	struct loop_pass *p = NULL, *gp = NULL;
	char dir[] = "/tmp/test-crypto-pass.XXXXXX", path[256], home[256];
	const char *srcdir = getenv("top_srcdir");
	int fd, r;

	ok(loop_pass_read_file(&p, "/nonexistent/key") == -ENOENT, "missing key file: -ENOENT");
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/notgpg", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ok(write(fd, "plain text, not gpg\n", 20) == 20, "write non-gpg file");
	close(fd);
	snprintf(home, sizeof(home), "%s/gpghome", dir);
	mkdir(home, 0700);
	loop_pass_from_buffer(&gp, "whatever passphrase\n", 20, LOOP_PASS_ONE_LINE);

	r = loop_pass_from_gpg(&p, "/nonexistent/key.gpg", home, NULL, gp);
	ok(r == -ENOENT, "gpg: missing key file -> -ENOENT (got %d)", r);
	if (access("/usr/bin/gpg", X_OK) == 0) {
		r = loop_pass_from_gpg(&p, path, home, NULL, gp);
		ok(r == -EKEYREJECTED, "gpg: not a gpg file -> -EKEYREJECTED (got %d)", r);
		if (srcdir) {
			char kf[512];

			snprintf(kf, sizeof(kf), "%s/tests/kat/pass/kf65.gpg", srcdir);
			r = loop_pass_from_gpg(&p, kf, home, NULL, gp);
			ok(r == -EKEYREJECTED, "gpg: wrong passphrase -> -EKEYREJECTED (got %d)", r);
			test_gpg_truncated(dir, home, srcdir);
		} else {
			ok(1, "# SKIP top_srcdir not set");
			ok(1, "# SKIP top_srcdir not set");
			ok(1, "# SKIP top_srcdir not set");
		}
	} else {
		ok(1, "# SKIP gpg not installed");
		ok(1, "# SKIP gpg not installed");
		ok(1, "# SKIP gpg not installed");
		ok(1, "# SKIP gpg not installed");
	}
	r = loop_pass_from_gpg(&p, path, home, "/nonexistent/gpg", gp);
	ok(r == -ENOENT, "gpg: program missing -> -ENOENT");
	{
		/* a "gpg" that prints its environment as key lines: it must
		 * not see the caller's variables */
		char fake[600];
		size_t i, n, len;
		int leak = 0, path_ok = 0;
		struct loop_pass *envp = NULL;

		snprintf(fake, sizeof(fake), "%s/fake-gpg", dir);
		fd = open(fake, O_WRONLY | O_CREAT, 0700);
		ok(fd >= 0 && dprintf(fd, "#!/bin/sh\nexec env | sed 's/^/environment variable: /'\n") > 0,
		   "write a fake gpg");
		close(fd);
		setenv("CRYPTOLOOP_LEAK_MARK", "the caller's environment", 1);
		r = loop_pass_from_gpg(&envp, path, home, fake, gp);
		unsetenv("CRYPTOLOOP_LEAK_MARK");
		n = loop_pass_count(envp);
		for (i = 0; i < n; i++) {
			const char *l = loop_pass_line(envp, i, &len);

			if (memmem(l, len, "CRYPTOLOOP_LEAK_MARK", 20))
				leak = 1;
			if (len == 55 && !memcmp(l, "environment variable: PATH=/usr/local/bin:/usr/bin:/bin", 55))
				path_ok = 1;
		}
		ok(r == 0 && n > 0, "gpg: the fake ran (%d, %zu lines)", r, n);
		ok(!leak, "gpg does not inherit the caller's environment");
		ok(path_ok, "gpg gets a fixed PATH");
		loop_pass_free(envp);
		unlink(fake);
	}
	loop_pass_free(gp);
	unlink(path);
	{
		char cmd[700];

		/* gpg started an agent for this home: stop it, then clean up */
		snprintf(cmd, sizeof(cmd), "gpgconf --homedir '%s' --kill all 2>/dev/null; rm -rf '%s'",
			 home, dir);
		ok(system(cmd) == 0, "cleanup");
	}
}

static int derive(const char *specname, const char *hash, int allow_short,
		  const char *text, struct loop_key **key)
{
	struct loop_cipher_spec spec;
	struct loop_key_params kp = { .hash = hash, .allow_short = allow_short };
	struct loop_pass *p = NULL;
	int r;

	r = loop_cipher_spec_parse(&spec, specname, 0, hash ? LOOP_SPEC_LOOPAES : 0);
	if (r)
		return r;
	r = loop_pass_from_buffer(&p, text, strlen(text),
				  spec.format == LOOP_FORMAT_LOOPAES ?
				  LOOP_PASS_MULTI_LINE : LOOP_PASS_ONE_LINE);
	if (!r)
		r = loop_key_derive(key, &spec, &kp, p);
	loop_pass_free(p);
	return r;
}

static void test_rules(void)
{
	struct loop_key *k = NULL, *k2 = NULL;
	char *s;
	int r;

	ok(derive("AES128", NULL, 0, "nineteen characters", &k) == -EKEYREJECTED,
	   "loop-AES: 19 characters refused");
	ok(derive("AES128", NULL, 1, "nineteen characters", &k) == 0, "... unless overridden");
	loop_key_free(k);
	ok(derive("AES128", NULL, 0, "twenty characters!!!", &k) == 0, "20 characters accepted");
	loop_key_free(k);
	ok(derive("AES128", "unhashed1", 0, "too short", &k) == -EKEYREJECTED,
	   "unhashed1 has the 20-character minimum");
	ok(derive("AES128", "rmd160", 0, "x", &k) == 0, "rmd160: 1 character is enough");
	loop_key_free(k);
	ok(derive("AES128", "unhashed2", 0, "", &k) == -EKEYREJECTED, "unhashed2: empty refused");
	ok(derive("aes", NULL, 0, "", &k) == 0 && loop_key_size(k) == 32,
	   "util-linux raw: no minimum, 32-byte key");
	loop_key_free(k);
	ok(derive("AES128", "md5", 0, "twenty characters!!!", &k) == -EINVAL,
	   "cryptsetup hash names are not loop-AES hashes");

	/* 2..63 long lines: loop-AES warns and uses the first line */
	s = key_lines(10, -1);
	r = derive("AES128", NULL, 0, s, &k);
	ok(!r && loop_key_count(k) == 1, "10 long lines: single key from line 1");
	ok(derive("AES128", NULL, 0, "key line number 00 of many", &k2) == 0 &&
	   !memcmp(loop_key_data(k, 0), loop_key_data(k2, 0), 16), "... the same key as line 1 alone");
	loop_key_free(k);
	loop_key_free(k2);
	free(s);
	s = key_lines(65, -1);
	ok(derive("AES256", NULL, 0, s, &k) == 0 && loop_key_count(k) == 65 &&
	   loop_key_size(k) == 32, "65 lines: 65 keys (v3)");
	loop_key_free(k);
	ok(derive("aes", NULL, 0, s, &k) == 0 && loop_key_count(k) == 1,
	   "cryptoloop reads one line only");
	loop_key_free(k);
	free(s);

	ok(derive("AES128", "random", 0, "", &k) == 0 && loop_key_count(k) == 65 &&
	   memcmp(loop_key_data(k, 0), loop_key_data(k, 1), 16), "random: 65 distinct keys");
	loop_key_free(k);
	{
		struct loop_cipher_spec spec;
		struct loop_key_params kp = { .seed = "x" };
		struct loop_pass *p = NULL;

		loop_cipher_spec_parse(&spec, "aes", 0, 0);
		loop_pass_from_buffer(&p, "pass", 4, LOOP_PASS_ONE_LINE);
		ok(loop_key_derive(&k, &spec, &kp, p) == -EINVAL, "-S is a loop-AES option only");
		loop_pass_free(p);
	}
}

/* Derive with a cryptsetup-style "HASH:N" rule or an iteration count. */
static int derive_params(const char *specname, const struct loop_key_params *kp,
			 struct loop_key **key)
{
	struct loop_cipher_spec spec;
	struct loop_pass *p = NULL;
	int r;

	r = loop_cipher_spec_parse(&spec, specname, 0, 0);
	if (r)
		return r;
	r = loop_pass_from_buffer(&p, "twenty characters!!!", 20, LOOP_PASS_ONE_LINE);
	if (!r)
		r = loop_key_derive(key, &spec, kp, p);
	loop_pass_free(p);
	return r;
}

/* "HASH:N" writes N bytes: N past the key size must be refused, as
 * cryptsetup does, never written past the key (ASan saw that). */
static void test_hash_len_bound(void)
{
	static const char *const too_long[] = {
		"sha512:33", "sha512:64", "sha512:100000", "plain:33", "sha256:4294967297",
		/* no digest length (XOF): libgcrypt aborts on reading one */
		"shake256", "2.16.840.1.101.3.4.2.12", "shake128:16",
	};
	struct loop_key_params kp = { .hash = "sha512:32" };
	struct loop_key *k = NULL;
	size_t i;

	ok(derive_params("aes-cbc-plain64", &kp, &k) == 0 && loop_key_size(k) == 32,
	   "sha512:32 for a 256-bit key: accepted");
	loop_key_free(k);
	for (i = 0; i < sizeof(too_long) / sizeof(too_long[0]); i++) {
		k = NULL;
		kp.hash = too_long[i];
		ok(derive_params("aes-cbc-plain64", &kp, &k) == -EINVAL && !k,
		   "%s for a 256-bit key: refused with -EINVAL", too_long[i]);
		loop_key_free(k);
	}
}

/* -C N: N thousand rounds; a count past the documented maximum would
 * run for hours, so it is refused before any work. */
static void test_iter_bound(void)
{
	struct loop_key_params kp = { .iter_thousands = LOOP_KEY_ITER_MAX + 1UL };
	struct loop_cipher_spec spec;
	struct loop_pass *p = NULL;
	struct loop_key *k = NULL;
	time_t t0 = time(NULL);

	loop_cipher_spec_parse(&spec, "AES128", 0, LOOP_SPEC_LOOPAES);
	loop_pass_from_buffer(&p, "twenty characters!!!", 20, LOOP_PASS_ONE_LINE);
	ok(loop_key_derive(&k, &spec, &kp, p) == -ERANGE && !k,
	   "-C %lu: refused with -ERANGE", kp.iter_thousands);
	kp.iter_thousands = 99999999999UL;
	ok(loop_key_derive(&k, &spec, &kp, p) == -ERANGE && !k && time(NULL) - t0 < 5,
	   "-C 99999999999: refused at once");
	kp.iter_thousands = 1;
	ok(loop_key_derive(&k, &spec, &kp, p) == 0, "-C 1 accepted");
	loop_key_free(k);
	loop_pass_free(p);
}

static void test_no_leftovers(void)
{
	/* the passphrase only ever exists XOR-masked in this test's data */
	static const uint8_t masked[] = "\x39\x33\x34\x3d\x7a\x3a\x2f\x3f\x2f\x3b\x7a\x2b\x2f\x3f\x28\x23\x7a\x6e\x6c\x6f\x68";
	const size_t n = sizeof(masked) - 1;
	struct loop_cipher_spec spec;
	struct loop_pass *p = NULL;
	struct loop_key *k = NULL;
	struct loop_crypt *x = NULL;
	uint8_t key_copy[32], sector[512] = { 0 }, probe[32];
	char pass[32];
	size_t i;
	int fd, r, pass_found, key_found;

	if (MEMSCAN_UNDER_ASAN) {
		for (i = 0; i < 4; i++)
			ok(1, "# SKIP memory scan under AddressSanitizer");
		return;
	}

	for (i = 0; i < n; i++)
		pass[i] = (char)(masked[i] ^ 0x5a);
	pass[n] = '\n';
	fd = pipe_with(pass, n + 1);
	explicit_bzero(pass, sizeof(pass));

	loop_cipher_spec_parse(&spec, "AES256", 0, 0);
	r = loop_pass_read_fd(&p, fd, LOOP_PASS_MULTI_LINE);
	close(fd);
	if (!r)
		r = loop_key_derive(&k, &spec, NULL, p);
	if (!r)
		r = loop_crypt_new(&x, &spec, k, 0);
	if (!r)
		r = loop_crypt_encrypt(x, 0, sector, sector, 1);
	ok(!r, "derive and use a key");
	/* keep the key masked too */
	for (i = 0; i < 32; i++)
		key_copy[i] = loop_key_data(k, 0)[i] ^ 0xa5;
	loop_crypt_free(x);
	loop_key_free(k);
	loop_pass_free(p);

	for (i = 0; i < n; i++)
		probe[i] = masked[i] ^ 0x5a;
	{
		/* control: the scanner must see a copy we leave on the heap */
		char *leak = malloc(n);

		memcpy(leak, probe, n);
		ok(memory_contains(probe, n), "control: a planted heap copy is found");
		explicit_bzero(leak, n);
		free(leak);
	}
	pass_found = memory_contains(probe, n);
	explicit_bzero(probe, sizeof(probe));
	ok(!pass_found, "no copy of the passphrase left in process memory");
	for (i = 0; i < 32; i++)
		probe[i] = key_copy[i] ^ 0xa5;
	/* 16 bytes: a hit on half the key is still a leak */
	key_found = memory_contains(probe, 16) || memory_contains(probe + 16, 16);
	explicit_bzero(probe, sizeof(probe));
	ok(!key_found, "no copy of the key left in process memory");
}

/* The first line of @path, XOR-masked with 0x5a, read without stdio's
 * buffers: the only clear copy is in @buf, wiped by the caller. */
static size_t read_masked_line(const char *path, char *buf, size_t size, uint8_t *masked)
{
	int fd = open(path, O_RDONLY);
	ssize_t got = fd < 0 ? -1 : read(fd, buf, size);
	size_t len = 0;

	if (fd >= 0)
		close(fd);
	while (got > 0 && len < (size_t)got && buf[len] != '\n')
		len++;
	for (size_t i = 0; i < len; i++)
		masked[i] = (uint8_t)(buf[i] ^ 0x5a);
	return len;
}

/* gpg's passphrase and the key line it decrypted: gone once freed. */
static void test_gpg_no_leftovers(void)
{
	const char *srcdir = getenv("top_srcdir");
	char home[] = "/tmp/test-crypto-pass-gpg.XXXXXX", path[512], buf[512], cmd[600];
	uint8_t gmask[256], kmask[256], probe[256];
	struct loop_pass *gp = NULL, *p = NULL;
	size_t glen, klen, i;
	int r, found;

	if (MEMSCAN_UNDER_ASAN || !srcdir || access("/usr/bin/gpg", X_OK) || !mkdtemp(home)) {
		for (i = 0; i < 3; i++)
			ok(1, "# SKIP %s", MEMSCAN_UNDER_ASAN ? "memory scan under AddressSanitizer" :
			   "no gpg, no top_srcdir or no temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/tests/kat/pass/gpgpass.txt", srcdir);
	glen = read_masked_line(path, buf, sizeof(buf), gmask);
	loop_pass_from_buffer(&gp, buf, glen, LOOP_PASS_ONE_LINE);
	explicit_bzero(buf, sizeof(buf));
	snprintf(path, sizeof(path), "%s/tests/kat/pass/keys65.txt", srcdir);
	klen = read_masked_line(path, buf, sizeof(buf), kmask);
	explicit_bzero(buf, sizeof(buf));
	snprintf(path, sizeof(path), "%s/tests/kat/pass/kf1.gpg", srcdir);
	r = loop_pass_from_gpg(&p, path, home, NULL, gp);
	ok(r == 0 && loop_pass_count(p) == 1, "gpg: kf1.gpg decrypted (%d)", r);
	loop_pass_free(p);
	loop_pass_free(gp);

	for (i = 0; i < glen; i++)
		probe[i] = gmask[i] ^ 0x5a;
	found = glen && memory_contains(probe, glen);
	explicit_bzero(probe, sizeof(probe));
	ok(glen && !found, "no copy of gpg's passphrase left in process memory");
	for (i = 0; i < klen; i++)
		probe[i] = kmask[i] ^ 0x5a;
	found = klen && memory_contains(probe, klen);
	explicit_bzero(probe, sizeof(probe));
	ok(klen && !found, "no copy of the decrypted key line left in process memory");
	snprintf(cmd, sizeof(cmd), "gpgconf --homedir '%s' --kill all 2>/dev/null; rm -rf '%s'",
		 home, home);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", home);
}

/*
 * A key file the caller opened (cryptoloop-unlock's, on a key device):
 * read from its start each time, as a wrong passphrase asked again reads
 * it again, and left open.
 */
static void test_gpg_fd(void)
{
	const char *srcdir = getenv("top_srcdir");
	char home[] = "/tmp/test-crypto-pass-gpgfd.XXXXXX", path[512], cmd[600];
	struct loop_pass *gp = NULL, *p = NULL;
	int fd, r, i;

	if (!srcdir || access("/usr/bin/gpg", X_OK) || !mkdtemp(home)) {
		for (i = 0; i < 3; i++)
			ok(1, "# SKIP no gpg, no top_srcdir or no temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/tests/kat/pass/gpgpass.txt", srcdir);
	loop_pass_read_file(&gp, path);
	snprintf(path, sizeof(path), "%s/tests/kat/pass/kf65.gpg", srcdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (i = 1; i <= 2; i++) {
		r = loop_pass_from_gpg_fd(&p, fd, home, NULL, gp);
		ok(r == 0 && loop_pass_count(p) == 65, "gpg from a descriptor, read %d: 65 "
		   "lines (%d)", i, r);
		loop_pass_free(p);
		p = NULL;
	}
	ok(fcntl(fd, F_GETFD) >= 0, "the descriptor is left open");
	close(fd);
	loop_pass_free(gp);
	snprintf(cmd, sizeof(cmd), "gpgconf --homedir '%s' --kill all 2>/dev/null; rm -rf '%s'",
		 home, home);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", home);
}

int main(void)
{
	/* a terminal test gone wrong must fail, not hang make check */
	alarm(60);
	test_lines();
	test_multi_lines();
	test_big_lines();
	test_no_tty();
	test_tty();
	test_tty_interrupt();
	test_files();
	test_gpg_fd();
	test_rules();
	test_hash_len_bound();
	test_iter_bound();
	test_no_leftovers();
	test_gpg_no_leftovers();
	return tap_done();
}
