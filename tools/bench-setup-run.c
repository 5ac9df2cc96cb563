// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-setup-run ROUNDS CYCLES IMAGE LOSETUP_A LOSETUP_B
 *
 * Times attach+detach cycles ("LOSETUP -f --show IMAGE", then
 * "LOSETUP -d DEVICE") of two losetup binaries, interleaved: in each
 * round CYCLES cycles of A then of B, the order swapped every other
 * round, so that a change in the machine's load hits both alike.
 * Prints one line per round:
 *   WALL_A CPU_A WALL_B CPU_B
 * in microseconds for the round's cycles. CPU is the user + system time
 * of the losetup processes alone (wait4), so neither the shell nor this
 * program's own forks count, and a busy machine moves it much less than
 * the wall time. Exit 0, or 1 with the failing command named.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct cost {
	long long wall_us;
	long long cpu_us;
};

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/*
 * Run @argv, its stdout into @out (may be NULL), and add its wall and
 * CPU time to @c. Returns 0, or -1 with the failure printed.
 */
static int run(char *const argv[], char *out, size_t size, struct cost *c)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	int fds[2] = { -1, -1 }, status, rc;
	long long start;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	if (out) {
		if (pipe(fds) < 0) {
			perror("bench-setup-run: pipe");
			return -1;
		}
		posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
		posix_spawn_file_actions_addclose(&fa, fds[0]);
		posix_spawn_file_actions_addclose(&fa, fds[1]);
	}
	start = now_us();
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (out)
		close(fds[1]);
	if (rc) {
		fprintf(stderr, "bench-setup-run: %s: %s\n", argv[0], strerror(rc));
		if (out)
			close(fds[0]);
		return -1;
	}
	if (out) {
		while (got + 1 < size && (n = read(fds[0], out + got, size - 1 - got)) > 0)
			got += (size_t)n;
		out[got] = '\0';
		out[strcspn(out, "\n")] = '\0';
		close(fds[0]);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("bench-setup-run: wait4");
		return -1;
	}
	c->wall_us += now_us() - start;
	c->cpu_us += ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec +
		     ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench-setup-run: %s %s %s: failed (status %d)\n",
			argv[0], argv[1], argv[2] ? argv[2] : "", status);
		return -1;
	}
	if (out && !out[0]) {
		fprintf(stderr, "bench-setup-run: %s printed no device\n", argv[0]);
		return -1;
	}
	return 0;
}

/* @cycles attach+detach cycles of @losetup on @image. */
static int cycles(const char *losetup, const char *image, int cycles, struct cost *c)
{
	char dev[256];
	int i;

	for (i = 0; i < cycles; i++) {
		char *attach[] = { (char *)losetup, "-f", "--show", (char *)image, NULL };
		char *detach[] = { (char *)losetup, "-d", dev, NULL };

		if (run(attach, dev, sizeof(dev), c) || run(detach, NULL, 0, c))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cost warm = { 0, 0 };
	int rounds, ncycles, r;

	if (argc != 6 || (rounds = atoi(argv[1])) <= 0 || (ncycles = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: bench-setup-run ROUNDS CYCLES IMAGE LOSETUP_A LOSETUP_B\n");
		return 2;
	}
	/* the first runs fault the binaries and libraries into the page cache */
	if (cycles(argv[4], argv[3], 2, &warm) || cycles(argv[5], argv[3], 2, &warm))
		return 1;
	for (r = 0; r < rounds; r++) {
		struct cost a = { 0, 0 }, b = { 0, 0 };
		int rc;

		if (r % 2)
			rc = cycles(argv[5], argv[3], ncycles, &b) ||
			     cycles(argv[4], argv[3], ncycles, &a);
		else
			rc = cycles(argv[4], argv[3], ncycles, &a) ||
			     cycles(argv[5], argv[3], ncycles, &b);
		if (rc)
			return 1;
		printf("%lld %lld %lld %lld\n", a.wall_us, a.cpu_us, b.wall_us, b.cpu_us);
		fflush(stdout);
	}
	return 0;
}
