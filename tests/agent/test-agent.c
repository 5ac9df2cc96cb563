// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-agent: a password agent for the test suites, speaking systemd's
 * ask-password protocol (systemd.io/PASSWORD_AGENTS) like the console
 * agent does, so that what losetup writes is checked against the
 * protocol and not against itself.
 *
 *   test-agent [--cancel] [--count N] [--timeout SEC] DIR PASSFILE
 *
 * It waits for ask.* files in DIR, checks each one's [Ask] section
 * (Socket=, PID= of a live process, Message=, NotAfter=), prints
 * "asked: MESSAGE", "id: ID" and "not-after: USEC" on stdout, and sends
 * "+" and a line of PASSFILE to the socket (or "-" with --cancel): line N
 * to the Nth question, the last line to any later one, so that a wrong
 * passphrase and then the right one can be typed.  The passphrase
 * is read from a file so that it is in no argv.  It exits 0 after N
 * answers (default 1), 1 when a question is malformed, 2 on timeout.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_SEEN 64

static char seen[MAX_SEEN][256];
static int nseen;

static int was_seen(const char *name)
{
	for (int i = 0; i < nseen; i++)
		if (!strcmp(seen[i], name))
			return 1;
	if (nseen < MAX_SEEN)
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
	return 0;
}

struct ask {
	char socket[108];
	char message[2048];
	char id[2048];
	long pid;
	int in_section;
	int have_not_after;
	char not_after[32];
};

static int parse_ask(const char *path, struct ask *a)
{
	char line[2048];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	memset(a, 0, sizeof(*a));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "[Ask]"))
			a->in_section = 1;
		else if (!strncmp(line, "Socket=", 7))
			memcpy(a->socket, line + 7,
			       strnlen(line + 7, sizeof(a->socket) - 1));
		else if (!strncmp(line, "Message=", 8))
			snprintf(a->message, sizeof(a->message), "%s", line + 8);
		else if (!strncmp(line, "Id=", 3))
			snprintf(a->id, sizeof(a->id), "%s", line + 3);
		else if (!strncmp(line, "PID=", 4))
			a->pid = strtol(line + 4, NULL, 10);
		else if (!strncmp(line, "NotAfter=", 9)) {
			a->have_not_after = 1;
			snprintf(a->not_after, sizeof(a->not_after), "%.20s", line + 9);
		}
	}
	fclose(f);
	return 0;
}

static int answer(const struct ask *a, const char *reply, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ssize_t n;

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", a->socket);
	n = sendto(fd, reply, len, 0, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* The next line of @pf as an answer in @reply; 0 at the end of @pf (the
 * previous answer, still in @reply, stands). */
static int next_reply(FILE *pf, char *reply, size_t size, int cancel, size_t *len)
{
	char line[4200];

	if (!fgets(line, sizeof(line), pf))
		return 0;
	reply[0] = cancel ? '-' : '+';
	*len = cancel ? 1 : 1 + strcspn(line, "\n");
	if (!cancel)
		memcpy(reply + 1, line, *len - 1);
	explicit_bzero(line, sizeof(line));
	return *len < size;
}

int main(int argc, char **argv)
{
	int cancel = 0, count = 1, timeout = 60, answered = 0, i;
	char reply[4200], path[4096];
	time_t end;
	size_t len, last_len = 0;
	FILE *pf;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--cancel"))
			cancel = 1;
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout = atoi(argv[++i]);
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: test-agent [--cancel] [--count N] "
			"[--timeout SEC] DIR PASSFILE\n");
		return 1;
	}
	pf = fopen(argv[i + 1], "r");
	if (!pf || !next_reply(pf, reply, sizeof(reply), cancel, &len)) {
		fprintf(stderr, "test-agent: cannot read %s\n", argv[i + 1]);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	end = time(NULL) + timeout;
	while (answered < count) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;

		if (!d) {
			perror(argv[i]);
			return 1;
		}
		while ((e = readdir(d)) && answered < count) {
			struct ask a;

			if (strncmp(e->d_name, "ask.", 4) || was_seen(e->d_name))
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (parse_ask(path, &a) < 0)
				continue;       /* gone already */
			if (!a.in_section || !*a.socket || !*a.message || a.pid <= 0 ||
			    !a.have_not_after || kill((pid_t)a.pid, 0) < 0) {
				fprintf(stderr, "test-agent: %s: malformed question\n", path);
				return 1;
			}
			printf("asked: %s\n", a.message);
			if (*a.id)
				printf("id: %s\n", a.id);
			printf("not-after: %s\n", a.not_after);
			if (answered && !next_reply(pf, reply, sizeof(reply), cancel, &len))
				len = last_len;
			if (answer(&a, reply, len) < 0) {
				perror(a.socket);
				return 1;
			}
			last_len = len;
			answered++;
		}
		closedir(d);
		if (answered >= count)
			break;
		if (time(NULL) > end) {
			fprintf(stderr, "test-agent: no question within %d s\n", timeout);
			return 2;
		}
		usleep(20000);
	}
	explicit_bzero(reply, sizeof(reply));
	fclose(pf);
	return 0;
}
