// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pty-answer: run a command with a pseudo-terminal as its controlling
 * terminal and answer its prompts there, as a person at the keyboard
 * would, so that tests reach the terminal path (/dev/tty) without a real
 * one and without waiting on one.
 *
 *   pty-answer [--timeout SEC] [--transcript FILE] [--console] [--echo-off]
 *              ANSWERS -- COMMAND [ARG...]
 *
 * COMMAND keeps our standard input, output and error; only /dev/tty is
 * the pty. With --console the pty is COMMAND's standard input, output and
 * error instead, and COMMAND has no controlling terminal: a script that
 * init runs on the console, as in an initramfs. COMMAND is then not a
 * session leader either (a child of one, as a program init's script runs
 * is), so that it cannot acquire the pty by opening it: bash, which runs
 * libtool's wrapper scripts, opens its standard input's terminal without
 * O_NOCTTY, and a session leader would make it its controlling terminal,
 * so that /dev/tty works again and the test proves nothing.
 *
 * Each time the terminal shows a prompt (output that ends in ": " and
 * then stays still for QUIET_SEC), the next line of the file ANSWERS is
 * typed, then Enter; an empty line is Enter alone. The answers come
 * from a file so that they are in no argv. Typing waits for the prompt
 * because a program that turns echo off (TCSAFLUSH) throws away what was
 * typed before.
 *
 * With --echo-off, every answer must meet a terminal whose echo is
 * already off when the prompt shows, and the echo must be on again once
 * COMMAND is done: the answer is still typed, but the exit status is 3
 * when either fails. Checking the terminal's mode, not the transcript,
 * tells it even where the echo would come late.
 *
 * Everything COMMAND wrote on the terminal goes to the --transcript file.
 * Exits with COMMAND's status (128+N for a signal), 124 when it did not
 * finish within --timeout seconds (default 30; it is then killed), 2 on
 * a usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* how long the output must stay still after a prompt before typing */
#define QUIET_SEC 0.2

static void usage(void)
{
	fputs("usage: pty-answer [--timeout SEC] [--transcript FILE] [--console] [--echo-off] "
	      "ANSWERS -- COMMAND [ARG...]\n", stderr);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pid_t start(const char *slave_name, char **argv, int console)
{
	pid_t pid = fork();
	int fd;

	if (pid != 0)
		return pid;
	if (setsid() < 0)
		_exit(126);
	if (console) {
		int status;
		pid_t child;

		fd = open(slave_name, O_RDWR | O_NOCTTY);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		/* the session leader stays behind, holding no terminal, and
		 * passes COMMAND's status on */
		child = fork();
		if (child < 0)
			_exit(126);
		if (child > 0) {
			while (waitpid(child, &status, 0) < 0 && errno == EINTR)
				;
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		}
	} else {
		fd = open(slave_name, O_RDWR);
		if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0)
			_exit(126);
	}
	if (fd > 2)
		close(fd);
	execvp(argv[0], argv);
	fprintf(stderr, "pty-answer: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Output since the last answer ends in a prompt. */
static int prompted(const char *seen, size_t len)
{
	return len >= 2 && seen[len - 2] == ':' && seen[len - 1] == ' ';
}

int main(int argc, char **argv)
{
	const char *transcript = NULL, *answers_path;
	double timeout = 30, deadline;
	char seen[4096], line[4096];
	size_t seen_len = 0;
	FILE *answers, *log = NULL;
	int master, slave, status, i = 1, console = 0, need_echo_off = 0, echoed = 0, left_off = 0;
	struct termios mode;
	double last_output = 0;
	pid_t pid;

	for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i += 2) {
		if (!strcmp(argv[i], "--console") || !strcmp(argv[i], "--echo-off")) {
			if (argv[i][2] == 'c')
				console = 1;
			else
				need_echo_off = 1;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--timeout"))
			timeout = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--transcript"))
			transcript = argv[i + 1];
		else
			usage();
	}
	if (i + 2 >= argc || strcmp(argv[i + 1], "--"))
		usage();
	answers_path = argv[i];
	answers = fopen(answers_path, "r");
	if (!answers) {
		fprintf(stderr, "pty-answer: %s: %s\n", answers_path, strerror(errno));
		return 2;
	}
	if (transcript && !(log = fopen(transcript, "w"))) {
		fprintf(stderr, "pty-answer: %s: %s\n", transcript, strerror(errno));
		return 2;
	}
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		perror("pty-answer: pty");
		return 2;
	}
	/* held open here, so that the master never reads EIO while the
	 * command has the terminal closed between two prompts */
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0) {
		perror("pty-answer: pty");
		return 2;
	}
	pid = start(ptsname(master), argv + i + 2, console);
	if (pid < 0) {
		perror("pty-answer: fork");
		return 2;
	}
	deadline = now() + timeout;
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		pid_t done = waitpid(pid, &status, WNOHANG);

		if (done == pid)
			break;
		if (now() > deadline) {
			/* its session's group: COMMAND too with --console */
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			fprintf(stderr, "pty-answer: %s: no end after %g s, killed\n",
				argv[i + 2], timeout);
			return 124;
		}
		if (poll(&p, 1, 50) > 0 && (p.revents & POLLIN)) {
			ssize_t n = read(master, seen + seen_len, sizeof(seen) - 1 - seen_len);

			if (n <= 0)
				continue;
			if (log)
				fwrite(seen + seen_len, 1, (size_t)n, log);
			seen_len += (size_t)n;
			last_output = now();
		}
		/* a prompt, and then quiet: "prog: " alone is the start of
		 * a message written in pieces, not a question */
		if (prompted(seen, seen_len) && now() - last_output >= QUIET_SEC &&
		    fgets(line, sizeof(line), answers)) {
			size_t len = strcspn(line, "\n");

			if (tcgetattr(slave, &mode) == 0 && (mode.c_lflag & ECHO))
				echoed++;

			line[len++] = '\n';
			if (write(master, line, len) != (ssize_t)len)
				perror("pty-answer: typing");
			explicit_bzero(line, sizeof(line));
			seen_len = 0;
		}
		if (seen_len >= sizeof(seen) - 1)
			seen_len = 0;
	}
	/* what the command wrote last */
	fcntl(master, F_SETFL, O_NONBLOCK);
	if (log) {
		ssize_t n;

		while ((n = read(master, seen, sizeof(seen))) > 0)
			fwrite(seen, 1, (size_t)n, log);
		fclose(log);
	}
	fclose(answers);
	if (need_echo_off && tcgetattr(slave, &mode) == 0 && !(mode.c_lflag & ECHO)) {
		fprintf(stderr, "pty-answer: the terminal's echo is still off\n");
		left_off = 1;
	}
	close(slave);
	close(master);
	if (need_echo_off && echoed)
		fprintf(stderr, "pty-answer: %d answer(s) typed with the terminal's echo on\n",
			echoed);
	if (need_echo_off && (echoed || left_off))
		return 3;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
