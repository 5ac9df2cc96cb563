/*
 * pass.c - passphrases and cleartext key files: reading lines the way
 * util-linux 2.12 and loop-AES did, into locked memory.
 *
 * Line rule (util-linux 2.12 xgetpass(), loop-AES get_FD_pass()): bytes
 * up to '\n' or NUL or EOF; the terminator is not part of the line.
 * Multi-line rule (loop-AES sGetPass(), aespipe): keep reading while the
 * lines are at least 20 characters long, at most 66; the first line is
 * always kept.  64 or more long lines make a multi-key set.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "crypto/crypto-internal.h"

struct loop_pass {
	size_t alloc_size;
	size_t count;
	size_t off[LOOP_PASS_LINES_MAX];
	size_t len[LOOP_PASS_LINES_MAX];
	char text[];
};

/* Worst case: 66 lines of LOOP_PASS_LINE_MAX bytes plus NULs.  We start
 * small and grow, so that typical input needs little locked memory
 * (RLIMIT_MEMLOCK can be 64 KiB for ordinary users). */
#define PASS_BUF_MAX (LOOP_PASS_LINES_MAX * (LOOP_PASS_LINE_MAX + 1))
#define PASS_BUF_START 8192

struct pass_builder {
	struct loop_pass *p;
	size_t cap;         /* bytes of p->text */
	size_t used;
	int line_open;      /* a line has been started */
	int done;
	unsigned int flags;
};

static int builder_init(struct pass_builder *b, unsigned int flags)
{
	size_t size = sizeof(struct loop_pass) + PASS_BUF_START;

	if (!flags || (flags & ~(unsigned int)(LOOP_PASS_ONE_LINE | LOOP_PASS_MULTI_LINE)) ||
	    (flags & LOOP_PASS_ONE_LINE && flags & LOOP_PASS_MULTI_LINE))
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->p = loop_secure_alloc(size);
	if (!b->p)
		return -ENOMEM;
	b->p->alloc_size = size;
	b->cap = PASS_BUF_START;
	b->flags = flags;
	return 0;
}

/* Make room for one more byte: move to a locked buffer twice the size. */
static int builder_reserve(struct pass_builder *b)
{
	struct loop_pass *n;
	size_t cap;

	if (b->used < b->cap)
		return 0;
	cap = b->cap * 2;
	if (cap > PASS_BUF_MAX)
		cap = PASS_BUF_MAX;
	if (cap <= b->used)
		return -E2BIG;
	n = loop_secure_alloc(sizeof(*n) + cap);
	if (!n)
		return -ENOMEM;
	memcpy(n, b->p, sizeof(*n) + b->used);
	n->alloc_size = sizeof(*n) + cap;
	loop_secure_free(b->p, b->p->alloc_size);
	b->p = n;
	b->cap = cap;
	return 0;
}

static void builder_abort(struct pass_builder *b)
{
	if (b->p)
		loop_secure_free(b->p, b->p->alloc_size);
	b->p = NULL;
}

/* Close the current line; decide whether to keep reading. */
static int end_line(struct pass_builder *b)
{
	struct loop_pass *p;
	size_t i;
	int r = builder_reserve(b);

	if (r < 0)
		return r;
	p = b->p;
	i = p->count;

	if (!b->line_open) {            /* empty line */
		p->off[i] = b->used;
		p->len[i] = 0;
	}
	p->text[b->used++] = '\0';
	b->line_open = 0;
	if (b->flags & LOOP_PASS_ONE_LINE) {
		p->count = 1;
		b->done = 1;
		return 0;
	}
	/* loop-AES: a short line ends the list; it only counts if first. */
	if (p->len[i] < LOOP_PASS_MIN_LENGTH) {
		if (i == 0)
			p->count = 1;
		b->done = 1;
		return 0;
	}
	p->count = i + 1;
	if (p->count == LOOP_PASS_LINES_MAX)
		b->done = 1;
	return 0;
}

static int add_byte(struct pass_builder *b, char c)
{
	struct loop_pass *p;
	size_t i;
	int r;

	if (c == '\n' || c == '\0')
		return end_line(b);
	r = builder_reserve(b);
	if (r < 0)
		return r;
	p = b->p;
	i = p->count;
	if (!b->line_open) {
		p->off[i] = b->used;
		p->len[i] = 0;
		b->line_open = 1;
	}
	if (p->len[i] >= LOOP_PASS_LINE_MAX)
		return -E2BIG;
	p->text[b->used++] = c;
	p->len[i]++;
	return 0;
}

/* EOF: an unterminated line still counts (and an empty input is one
 * empty line, as in both old tools). */
static int builder_finish(struct pass_builder *b, struct loop_pass **out)
{
	struct loop_pass *p;
	size_t size;
	int r;

	if (!b->done) {
		r = end_line(b);
		if (r < 0) {
			builder_abort(b);
			return r;
		}
	}
	/* Move into a right-sized locked allocation. */
	size = sizeof(struct loop_pass) + b->used;
	p = loop_secure_alloc(size);
	if (!p) {
		builder_abort(b);
		return -ENOMEM;
	}
	memcpy(p, b->p, size);
	p->alloc_size = size;
	builder_abort(b);
	*out = p;
	return 0;
}

LIBLOOP_EXPORT int loop_pass_from_buffer(struct loop_pass **pass, const void *buf, size_t len,
			  unsigned int flags)
{
	struct pass_builder b;
	const char *s = buf;
	size_t i;
	int r;

	if (!pass || (!buf && len))
		return -EINVAL;
	*pass = NULL;
	r = builder_init(&b, flags);
	if (r < 0)
		return r;
	for (i = 0; i < len && !b.done; i++) {
		r = add_byte(&b, s[i]);
		if (r < 0) {
			builder_abort(&b);
			return r;
		}
	}
	return builder_finish(&b, pass);
}

/* One byte at a time, so we never consume input past the last line that
 * belongs to us (the rest of the fd may be data for someone else). */
static int read_lines(struct pass_builder *b, int fd)
{
	char c;
	ssize_t n;
	int r;

	while (!b->done) {
		n = read(fd, &c, 1);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		r = add_byte(b, c);
		if (r < 0)
			return r;
	}
	c = 0;
	return 0;
}

static int pass_read_fd(struct loop_pass **pass, int fd, unsigned int flags)
{
	struct pass_builder b;
	int r;

	if (!pass || fd < 0)
		return -EINVAL;
	*pass = NULL;
	r = builder_init(&b, flags);
	if (r < 0)
		return r;
	r = read_lines(&b, fd);
	if (r < 0) {
		builder_abort(&b);
		return r;
	}
	return builder_finish(&b, pass);
}

LIBLOOP_EXPORT int loop_pass_read_fd(struct loop_pass **pass, int fd, unsigned int flags)
{
	int r = pass_read_fd(pass, fd, flags);

	/* the lines were copied through the stack and registers */
	loop_secret_scrub();
	return r;
}

LIBLOOP_EXPORT int loop_pass_read_file(struct loop_pass **pass, const char *path)
{
	int fd, r;

	if (!pass || !path)
		return -EINVAL;
	*pass = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = loop_pass_read_fd(pass, fd, LOOP_PASS_MULTI_LINE);
	close(fd);
	return r;
}

/*
 * While echo is off, a signal that ends the process (Ctrl-C, Ctrl-\\, a
 * hang-up, kill) must not leave the terminal without echo: such signals
 * are caught for the duration of the read, which then restores the
 * terminal and the caller's handlers and raises the signal again.
 * Ctrl-Z is caught too: a stopped prompt would leave echo off at the shell.
 */
static const int tty_signals[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP,
				   SIGTTIN, SIGTTOU };
#define N_TTY_SIGNALS (sizeof(tty_signals) / sizeof(tty_signals[0]))

static volatile sig_atomic_t tty_caught;

static void tty_on_signal(int sig)
{
	tty_caught = sig;
}

static void tty_catch(struct sigaction *saved)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tty_on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: read() returns EINTR and the loop sees the signal */
	sa.sa_flags = 0;
	tty_caught = 0;
	for (i = 0; i < N_TTY_SIGNALS; i++)
		sigaction(tty_signals[i], &sa, &saved[i]);
}

static void tty_release(const struct sigaction *saved)
{
	size_t i;

	for (i = 0; i < N_TTY_SIGNALS; i++)
		sigaction(tty_signals[i], &saved[i], NULL);
}

/* One line from the terminal @fd with echo off; @prompt goes to @prompt_fd
 * once echo is off, since turning it off (TCSAFLUSH) drops what was typed
 * before. */
static int tty_read_one(int fd, int prompt_fd, const char *prompt, struct loop_pass **out)
{
	struct sigaction saved[N_TTY_SIGNALS];
	struct termios old, quiet;
	int have_termios, r, sig;
	struct pass_builder b;
	char c;
	ssize_t n;
	int got_any = 0;

	tty_catch(saved);
	have_termios = tcgetattr(fd, &old) == 0;
	if (have_termios) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		quiet.c_lflag |= ICANON;
		if (tcsetattr(fd, TCSAFLUSH, &quiet) < 0) {
			r = -errno;
			tty_release(saved);
			return r;
		}
	}
	if (prompt && *prompt && write(prompt_fd, prompt, strlen(prompt)) < 0) {
		r = -errno;
		goto out;
	}
	r = builder_init(&b, LOOP_PASS_ONE_LINE);
	if (r < 0)
		goto out;
	while (!b.done) {
		if (tty_caught) {
			r = -EINTR;
			break;
		}
		n = read(fd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0) {
			/* ^D on an empty line: the user gave up */
			if (!got_any)
				r = -ECANCELED;
			break;
		}
		got_any = 1;
		r = add_byte(&b, c);
		if (r < 0)
			break;
	}
	c = 0;
	if (r < 0)
		builder_abort(&b);
	else
		r = builder_finish(&b, out);
	/* Echo was off, so the user's Enter left no newline. */
	if (write(prompt_fd, "\n", 1) < 0) {
		/* nothing sensible to do */
	}
out:
	if (have_termios)
		tcsetattr(fd, TCSAFLUSH, &old);
	sig = tty_caught;
	tty_release(saved);
	/* echo is back: now the signal does what the caller's handler (or
	 * the default action) would have done */
	if (sig)
		raise(sig);
	/* stopped and continued (Ctrl-Z, fg): ask again */
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
		return -EAGAIN;
	return r;
}

static int pass_read_tty(struct loop_pass **pass, const char *prompt, int verify)
{
	struct loop_pass *a = NULL, *b = NULL;
	int fd, r;

	if (!pass)
		return -EINVAL;
	*pass = NULL;
	/* No controlling terminal: fail at once rather than wait forever. */
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -ENOTTY;
	if (!isatty(fd)) {
		close(fd);
		return -ENOTTY;
	}
	do
		r = tty_read_one(fd, fd, prompt ? prompt : "Password: ", &a);
	while (r == -EAGAIN);
	if (r == 0 && verify) {
		do
			r = tty_read_one(fd, fd, "Retype password: ", &b);
		while (r == -EAGAIN);
		if (r == 0 && !loop_pass_same(a, b))
			r = -EKEYREJECTED;
		loop_pass_free(b);
	}
	close(fd);
	if (r < 0) {
		loop_pass_free(a);
		return r;
	}
	*pass = a;
	return 0;
}

LIBLOOP_EXPORT int loop_pass_read_tty(struct loop_pass **pass, const char *prompt, int verify)
{
	int r = pass_read_tty(pass, prompt, verify);

	/* the entries were copied and compared through the stack and registers */
	loop_secret_scrub();
	return r;
}

/*
 * A terminal that is not the controlling one: standard input of a script
 * that init runs on the console (an initramfs) has no /dev/tty. getpass()
 * turns echo off there too, and writes the prompt to standard error.
 */
int loop_pass_read_terminal(struct loop_pass **pass, int fd, const char *prompt)
{
	int r;

	if (!pass)
		return -EINVAL;
	*pass = NULL;
	do
		r = tty_read_one(fd, STDERR_FILENO, prompt, pass);
	while (r == -EAGAIN);
	loop_secret_scrub();
	return r;
}

/* The first lines of @a and @b are the same passphrase (the -T check). */
int loop_pass_same(const struct loop_pass *a, const struct loop_pass *b)
{
	return a->len[0] == b->len[0] &&
	       !memcmp(a->text + a->off[0], b->text + b->off[0], a->len[0]);
}

LIBLOOP_EXPORT size_t loop_pass_count(const struct loop_pass *pass)
{
	return pass ? pass->count : 0;
}

LIBLOOP_EXPORT const char *loop_pass_line(const struct loop_pass *pass, size_t i, size_t *len)
{
	if (!pass || i >= pass->count)
		return NULL;
	if (len)
		*len = pass->len[i];
	return pass->text + pass->off[i];
}

LIBLOOP_EXPORT void loop_pass_free(struct loop_pass *pass)
{
	if (pass)
		loop_secure_free(pass, pass->alloc_size);
}

/* For the gpg reader: the multi-line rule over a pipe that is read to
 * its end anyway (the writer must never block or get SIGPIPE), so in
 * blocks rather than read_lines()' byte at a time; what follows the
 * last line is dropped, and wiped, as it may be secret too. */
int loop_pass_read_fd_multi_drain(struct loop_pass **pass, int fd)
{
	struct pass_builder b;
	char block[4096];
	ssize_t n, i;
	int r, e;

	if (!pass || fd < 0)
		return -EINVAL;
	*pass = NULL;
	r = builder_init(&b, LOOP_PASS_MULTI_LINE);
	if (r < 0)
		return r;
	for (;;) {
		n = read(fd, block, sizeof(block));
		if (n < 0) {
			e = errno;
			if (e == EINTR || e == EAGAIN)
				continue;
			/* once the lines are read, the rest is only drained */
			if (!r && !b.done)
				r = -e;
			break;
		}
		if (n == 0)
			break;
		for (i = 0; i < n && !r && !b.done; i++)
			r = add_byte(&b, block[i]);
	}
	explicit_bzero(block, sizeof(block));
	if (r < 0) {
		builder_abort(&b);
		return r;
	}
	return builder_finish(&b, pass);
}
