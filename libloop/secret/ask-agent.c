// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ask-agent.c - asking systemd's password agents for a passphrase.
 *
 * The protocol (https://systemd.io/PASSWORD_AGENTS/): we bind a datagram
 * socket, describe the question in an "ask.*" file in the agents'
 * directory, and wait.  An agent (the console, plymouth, wall, a desktop)
 * shows the question and sends "+passphrase" (or "-" to cancel) to the
 * socket.  Nothing secret is ever written to the file system, argv or the
 * environment: the answer goes from the agent's socket into locked memory.
 *
 * Like systemd's own ask_password_agent(), only answers sent by root or by
 * our own uid count (SO_PASSCRED): the directory is world-readable, and the
 * question must not be answerable by whoever can see it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "crypto/crypto-internal.h"

#define ASK_DIR_DEFAULT "/run/systemd/ask-password"
#define SYSTEMD_RUNNING "/run/systemd/system"

/*
 * The agents' directory.  Tests point it elsewhere with
 * LIBLOOP_ASK_PASSWORD_DIR; secure_getenv() ignores it in a setuid or
 * setcap process, so a user cannot aim a privileged caller's question
 * at a directory where the user's own agent answers.  Any directory,
 * the default included, must pass ask_dir_safe() below.
 */
static const char *ask_dir(int *overridden)
{
	const char *d = secure_getenv("LIBLOOP_ASK_PASSWORD_DIR");

	*overridden = d && *d;
	return *overridden ? d : ASK_DIR_DEFAULT;
}

/* Owned by root or by us, not writable by anyone else, not a symlink:
 * otherwise another user could replace our question or our socket. */
static int ask_dir_safe(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

LIBLOOP_EXPORT int loop_pass_agent_available(void)
{
	int overridden;
	const char *dir = ask_dir(&overridden);

	if (!overridden) {
		/* agents answer root's questions; systemd must be PID 1 */
		if (geteuid() != 0 || access(SYSTEMD_RUNNING, F_OK) < 0)
			return 0;
	}
	return ask_dir_safe(dir) == 0;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Message= and Id= are one line each: no newline may end the field early. */
static void put_field(FILE *f, const char *key, const char *value)
{
	const char *p;

	fprintf(f, "%s=", key);
	for (p = value; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
	fputc('\n', f);
}

/* Write the question to a temporary name, then rename it into place:
 * agents watch for ask.* and must never read half a file. */
static int write_ask_file(const char *dir, const char *sock_path, const char *message,
			  const char *id, uint64_t not_after, char *ask_path, size_t size)
{
	char tmp[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
	FILE *f;
	int fd, r;

	snprintf(tmp, sizeof(tmp), "%s/tmp.XXXXXX", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0) {
		r = -errno;
		goto fail_unlink;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		goto fail_unlink;
	}
	fprintf(f, "[Ask]\nPID=%ld\nSocket=%s\nAcceptCached=0\nEcho=0\nNotAfter=%llu\n",
		(long)getpid(), sock_path, (unsigned long long)not_after);
	put_field(f, "Message", message);
	put_field(f, "Icon", "drive-harddisk");
	if (id)
		put_field(f, "Id", id);
	if (fflush(f) != 0 || ferror(f)) {
		r = -EIO;
		fclose(f);
		goto fail_unlink_closed;
	}
	if (fclose(f) != 0) {
		r = -errno;
		goto fail_unlink_closed;
	}
	snprintf(ask_path, size, "%s/ask.%s", dir, tmp + strlen(dir) + strlen("/tmp."));
	if (rename(tmp, ask_path) < 0) {
		r = -errno;
		goto fail_unlink_closed;
	}
	return 0;

fail_unlink:
	close(fd);
fail_unlink_closed:
	unlink(tmp);
	return r;
}

/* A socket named sck.<random> in @dir, taking the sender's credentials. */
static int bind_socket(const char *dir, struct sockaddr_un *sa)
{
	static const int one = 1;
	unsigned char rnd[8];
	int fd, i, r;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
		r = -errno;
		goto fail_close;
	}
	for (i = 0; i < 16; i++) {
		memset(sa, 0, sizeof(*sa));
		sa->sun_family = AF_UNIX;
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
			r = -EIO;
			goto fail_close;
		}
		if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path),
				     "%s/sck.%02x%02x%02x%02x%02x%02x%02x%02x", dir,
				     rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6],
				     rnd[7]) >= sizeof(sa->sun_path)) {
			r = -ENAMETOOLONG;
			goto fail_close;
		}
		if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) == 0)
			return fd;
		if (errno != EADDRINUSE) {
			r = -errno;
			goto fail_close;
		}
	}
	r = -EADDRINUSE;
fail_close:
	close(fd);
	return r;
}

/*
 * Wait for one acceptable answer.  Returns 0 with *out set, -ECANCELED
 * for "-", -ETIME when @not_after passed, -EINTR on a signal the caller
 * handles (SIGINT/SIGTERM are not blocked here), -E2BIG, -ENOMEM.
 */
static int wait_answer(int fd, uint64_t not_after, struct loop_pass **out)
{
	/* '+' and a line of LOOP_PASS_LINE_MAX and its terminator; one more
	 * byte tells us the datagram was longer than that */
	const size_t cap = LOOP_PASS_LINE_MAX + 3;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} control;
	char *buf = loop_secure_alloc(cap);
	int r = -ETIME;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = cap };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = &control, .msg_controllen = sizeof(control),
		};
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct ucred *cred = NULL;
		struct cmsghdr *c;
		int timeout = -1;
		ssize_t n;

		if (not_after) {
			uint64_t now = now_usec();

			if (now >= not_after) {
				r = -ETIME;
				break;
			}
			timeout = (int)((not_after - now + 999) / 1000);
		}
		n = poll(&pfd, 1, timeout);
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			continue;
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len == CMSG_LEN(sizeof(struct ucred)))
				cred = (struct ucred *)CMSG_DATA(c);
			else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
				/* nobody sends fds here; do not keep them */
				for (int *p = (int *)CMSG_DATA(c);
				     (char *)p < (char *)c + c->cmsg_len; p++)
					close(*p);
		if (!cred || (cred->uid != 0 && cred->uid != getuid()))
			continue;       /* not from root or us: ignore it */
		if (mh.msg_flags & MSG_TRUNC || (size_t)n >= cap) {
			r = -E2BIG;
			break;
		}
		if (n >= 1 && buf[0] == '-') {
			r = -ECANCELED;
			break;
		}
		if (n < 1 || buf[0] != '+')
			continue;
		/* "+pass" or "+pass\0pass2...": the first passphrase */
		r = loop_pass_from_buffer(out, buf + 1, (size_t)n - 1, LOOP_PASS_ONE_LINE);
		break;
	}
	loop_secure_free(buf, cap);
	return r;
}

static int ask_once(const char *message, const char *id, unsigned int timeout_sec,
		    struct loop_pass **out)
{
	char ask_path[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
	struct sockaddr_un sa;
	const char *dir;
	uint64_t not_after = 0;
	int fd, r, overridden;

	dir = ask_dir(&overridden);
	r = ask_dir_safe(dir);
	if (r < 0)
		return r;
	fd = bind_socket(dir, &sa);
	if (fd < 0)
		return fd;
	if (timeout_sec)
		not_after = now_usec() + (uint64_t)timeout_sec * 1000000u;
	r = write_ask_file(dir, sa.sun_path, message, id, not_after, ask_path, sizeof(ask_path));
	if (r < 0)
		goto out_unbind;
	r = wait_answer(fd, not_after, out);
	unlink(ask_path);
out_unbind:
	unlink(sa.sun_path);
	close(fd);
	return r;
}

static int pass_ask_agent(struct loop_pass **pass, const char *message, const char *id,
			  unsigned int timeout_sec, int verify)
{
	struct loop_pass *a = NULL, *b = NULL;
	char again[512];
	int r;

	if (!pass || !message)
		return -EINVAL;
	*pass = NULL;
	r = ask_once(message, id, timeout_sec, &a);
	if (r == 0 && verify) {
		snprintf(again, sizeof(again), "%s (again)", message);
		r = ask_once(again, id, timeout_sec, &b);
		if (r == 0 && !loop_pass_same(a, b))
			r = -EKEYREJECTED;
		loop_pass_free(b);
	}
	if (r < 0) {
		loop_pass_free(a);
		return r;
	}
	*pass = a;
	return 0;
}

LIBLOOP_EXPORT int loop_pass_ask_agent(struct loop_pass **pass, const char *message,
				       const char *id, unsigned int timeout_sec, int verify)
{
	int r = pass_ask_agent(pass, message, id, timeout_sec, verify);

	/* the answers were copied and compared through the stack and registers */
	loop_secret_scrub();
	return r;
}
