// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * loop_spawn(): fork and exec with a chosen set of descriptors, a clean
 * environment, and the exec's failure reported back to the parent over
 * a close-on-exec pipe (EOF there means the exec succeeded).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "base/private.h"
#include "base/spawn.h"

/* What the children tell the parent on the report pipe. */
struct report {
	int kind;		/* REPORT_* */
	int value;
};

enum { REPORT_PID = 1, REPORT_ERRNO };

static void tell(int fd, int kind, int value)
{
	struct report r = { kind, value };

	/* a failed write leaves the parent with EOF: nothing better to do */
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		return;
}

static void __attribute__((noreturn)) fail(int report, int err)
{
	tell(report, REPORT_ERRNO, err);
	_exit(127);
}

static bool is_target(const struct loop_spawn_fd *fds, size_t nfds, int fd)
{
	size_t i;

	for (i = 0; i < nfds; i++)
		if (fds[i].target == fd)
			return true;
	return false;
}

/*
 * In the child (async-signal-safe calls only): move every source above
 * all targets first, so that no dup2() clobbers a source still to come,
 * then put each in place; the rest of 0..2 is /dev/null.
 */
static void place_fds(const struct loop_spawn_fd *fds, size_t nfds, int *report)
{
	int high[16], floor = 3, fd, null;
	size_t i;

	if (nfds > sizeof(high) / sizeof(high[0]))
		fail(*report, E2BIG);
	for (i = 0; i < nfds; i++)
		if (fds[i].target >= floor)
			floor = fds[i].target + 1;
	fd = fcntl(*report, F_DUPFD_CLOEXEC, floor);
	if (fd < 0)
		fail(*report, errno);
	*report = fd;
	for (i = 0; i < nfds; i++) {
		high[i] = fcntl(fds[i].fd, F_DUPFD_CLOEXEC, floor);
		if (high[i] < 0)
			fail(*report, errno);
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		fail(*report, errno);
	for (fd = 0; fd <= 2; fd++)
		if (dup2(null, fd) < 0)
			fail(*report, errno);
	/* dup2() clears CLOEXEC on the copy: the targets survive the exec */
	for (i = 0; i < nfds; i++)
		if (dup2(high[i], fds[i].target) < 0)
			fail(*report, errno);
	/* every other descriptor, but the report pipe (CLOEXEC) */
	for (fd = 3; fd < *report; fd++)
		if (!is_target(fds, nfds, fd))
			close(fd);
	closefrom(*report + 1);
}

static void __attribute__((noreturn)) child(const char *path, char *const argv[],
					     char *const envp[], const struct loop_spawn_fd *fds,
					     size_t nfds, int report)
{
	static char *const clean[] = { (char *)LOOP_SPAWN_PATH, NULL };
	sigset_t none;

	/* the caller may block signals; the program must not start so */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	place_fds(fds, nfds, &report);
	execve(path, argv, envp ? envp : clean);
	fail(report, errno);
}

/* Read the children's reports until every copy of the pipe is closed. */
static int collect(int fd, pid_t *pid)
{
	struct report r;
	ssize_t n;
	int rc = 0;

	for (;;) {
		n = read(fd, &r, sizeof(r));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(r))
			return rc;
		if (r.kind == REPORT_PID)
			*pid = r.value;
		else if (r.kind == REPORT_ERRNO)
			rc = r.value > 0 ? -r.value : -EIO;
	}
}

LIBLOOP_PRIVATE_EXPORT int loop_spawn(const char *path, char *const argv[],
				      char *const envp[], const struct loop_spawn_fd *fds,
				      size_t nfds, unsigned int flags, pid_t *pid)
{
	int pipefd[2], status, rc;
	pid_t c;

	*pid = 0;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	c = fork();
	if (c < 0) {
		rc = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return rc;
	}
	if (c == 0) {
		close(pipefd[0]);
		if (!(flags & LOOP_SPAWN_DAEMON))
			child(path, argv, envp, fds, nfds, pipefd[1]);
		/* a daemon: its own session, reparented to init */
		setsid();
		c = fork();
		if (c < 0)
			fail(pipefd[1], errno);
		if (c == 0)
			child(path, argv, envp, fds, nfds, pipefd[1]);
		tell(pipefd[1], REPORT_PID, c);
		_exit(0);
	}
	close(pipefd[1]);
	if (!(flags & LOOP_SPAWN_DAEMON))
		*pid = c;
	rc = collect(pipefd[0], pid);
	close(pipefd[0]);
	if (flags & LOOP_SPAWN_DAEMON) {
		while (waitpid(c, &status, 0) < 0 && errno == EINTR)
			;
	} else if (rc) {
		/* the child has exited after the failed exec: reap it */
		while (waitpid(c, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (!rc && !*pid)
		rc = -ECHILD;
	if (rc)
		*pid = 0;
	return rc;
}
