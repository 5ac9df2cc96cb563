// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon outlives shutdown's signals. Every shutdown sends SIGTERM to
 * everything (Debian's sendsigs, systemd's final killing spree) while the
 * loop device on our file may still carry a mounted filesystem: a daemon
 * that exits then turns every later write into EIO and loses data. So
 * SIGTERM, SIGINT and SIGHUP are ignored; the daemon leaves only when its
 * loop device lets go of the file (or nobody ever opened it). The pid is
 * also listed in /run/sendsigs.omit.d, and libloop starts us with argv[0]
 * "@cryptoloop-fuse", the marks both init systems honour.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

#define OMIT_DIR "/run/sendsigs.omit.d"

static struct fuse_session *exit_session;
static pthread_t main_thread;
static char omit_path[64];

/* Our own way out: the watchdog's SIGUSR1 to the main thread, which
 * interrupts libfuse's wait for its workers. */
static void on_exit_request(int sig)
{
	(void)sig;
	if (exit_session)
		fuse_session_exit(exit_session);
}

int clf_signals_setup(struct fuse_session *se)
{
	struct sigaction ign, ex;

	exit_session = se;
	main_thread = pthread_self();
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	memset(&ex, 0, sizeof(ex));
	ex.sa_handler = on_exit_request;
	sigemptyset(&ex.sa_mask);
	if (sigaction(SIGTERM, &ign, NULL) || sigaction(SIGINT, &ign, NULL) ||
	    sigaction(SIGHUP, &ign, NULL) || sigaction(SIGPIPE, &ign, NULL) ||
	    sigaction(SIGUSR1, &ex, NULL))
		return -errno;
	return 0;
}

void clf_request_exit(void)
{
	pthread_kill(main_thread, SIGUSR1);
}

/* List our pid for Debian's sendsigs; best effort: without sysvinit's
 * directory (or without write access to /run) there is nothing to tell. */
void clf_omit_register(void)
{
	char line[32];
	int fd, n;

	if (mkdir(OMIT_DIR, 0755) < 0 && errno != EEXIST)
		return;
	snprintf(omit_path, sizeof(omit_path), OMIT_DIR "/cryptoloop-fuse.%ld",
		 (long)getpid());
	fd = open(omit_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		omit_path[0] = '\0';
		return;
	}
	n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (write(fd, line, (size_t)n) != n) {
		close(fd);
		unlink(omit_path);
		omit_path[0] = '\0';
		return;
	}
	close(fd);
}

void clf_omit_unregister(void)
{
	if (omit_path[0])
		unlink(omit_path);
	omit_path[0] = '\0';
}
