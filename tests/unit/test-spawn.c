// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * loop_spawn(), the one fork/exec of libloop (FUSE daemon, gpg): the
 * child has the descriptors it is given at their places and no other,
 * /dev/null for the rest of 0..2, a clean environment, and a failed exec
 * comes back to the caller as -errno.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/spawn.h"
#include "tap.h"

/* Run "sh -c SCRIPT" with @fds (plus our pipe as fd 9 for its output);
 * returns what it wrote there, or "" (static buffer). */
static const char *run_sh(const char *script, struct loop_spawn_fd *extra, size_t nextra,
			  char *const envp[], int *rc)
{
	static char out[4096];
	struct loop_spawn_fd fds[8];
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)script, NULL };
	int p[2], status;
	size_t len = 0, i;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0)
		return out;
	for (i = 0; i < nextra; i++)
		fds[i] = extra[i];
	fds[nextra] = (struct loop_spawn_fd){ p[1], 9 };
	*rc = loop_spawn("/bin/sh", argv, envp, fds, nextra + 1, 0, &pid);
	close(p[1]);
	while (*rc == 0 && (n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	if (*rc == 0)
		waitpid(pid, &status, 0);
	return out;
}

int main(void)
{
	struct loop_spawn_fd fds[2];
	char script[256], *argv[] = { (char *)"x", NULL };
	const char *out;
	int a[2], b[2], leak, rc, status;
	char buf[64];
	ssize_t n;
	pid_t pid;

	/* a descriptor the caller forgot to make CLOEXEC never reaches it */
	leak = open("/dev/null", O_RDONLY);
	ok(leak >= 0, "an inheritable descriptor %d", leak);
	snprintf(script, sizeof(script), "if [ -e /proc/$$/fd/%d ]; then echo open; "
		 "else echo closed; fi >&9", leak);
	out = run_sh(script, NULL, 0, NULL, &rc);
	ok(rc == 0, "spawned (%d)", rc);
	is_str(out, "closed\n", "an fd not in the list is closed in the child");

	/* 0..2 are /dev/null unless given */
	out = run_sh("echo $(readlink /proc/$$/fd/0 /proc/$$/fd/1 /proc/$$/fd/2) >&9", NULL, 0,
		     NULL, &rc);
	is_str(out, "/dev/null /dev/null /dev/null\n", "0, 1 and 2 are /dev/null");

	/* kept descriptors, even where source and target cross: our fd 3
	 * becomes its 4 and our 4 its 3 */
	close(leak);
	if (pipe(a) < 0 || pipe(b) < 0)
		return 1;
	/* the read ends out of the way of 3 and 4 */
	if (dup2(a[0], 20) < 0 || dup2(b[0], 21) < 0)
		return 1;
	close(a[0]);
	close(b[0]);
	a[0] = 20;
	b[0] = 21;
	if (dup2(a[1], 3) < 0 || dup2(b[1], 4) < 0)
		return 1;
	if (a[1] != 3 && a[1] != 4)
		close(a[1]);
	if (b[1] != 3 && b[1] != 4)
		close(b[1]);
	fds[0] = (struct loop_spawn_fd){ 3, 4 };
	fds[1] = (struct loop_spawn_fd){ 4, 3 };
	out = run_sh("echo to-a >&4; echo to-b >&3; echo done >&9", fds, 2, NULL, &rc);
	ok(rc == 0, "spawned with crossing fds (%d)", rc);
	is_str(out, "done\n", "the child ran with both kept fds");
	close(3);
	close(4);
	n = read(a[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	is_str(buf, "to-a\n", "our fd 3 is the child's fd 4");
	n = read(b[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	is_str(buf, "to-b\n", "our fd 4 is the child's fd 3");
	close(a[0]);
	close(b[0]);

	/* the environment: only what is given, none of ours */
	setenv("SPAWN_TEST_SECRET", "leaked", 1);
	out = run_sh("echo \"${SPAWN_TEST_SECRET:-unset} $PATH\" >&9", NULL, 0, NULL, &rc);
	{
		char want[128];

		snprintf(want, sizeof(want), "unset %s\n", LOOP_SPAWN_PATH + strlen("PATH="));
		is_str(out, want, "no caller's variable; PATH is the fixed one");
	}
	{
		char *envp[] = { (char *)"ONLY=this", NULL };

		out = run_sh("env >&9", NULL, 0, envp, &rc);
		ok(strstr(out, "ONLY=this\n") && !strstr(out, "SPAWN_TEST_SECRET"),
		   "a given environment is the child's whole environment");
	}

	/* exec failures come back as the child's errno */
	rc = loop_spawn("/nonexistent/program", argv, NULL, NULL, 0, 0, &pid);
	ok(rc == -ENOENT && pid == 0, "a missing program: -ENOENT (%d)", rc);
	rc = loop_spawn("/dev/null", argv, NULL, NULL, 0, 0, &pid);
	ok(rc == -EACCES && pid == 0, "a file that is not executable: -EACCES (%d)", rc);
	rc = loop_spawn("/nonexistent/program", argv, NULL, NULL, 0, LOOP_SPAWN_DAEMON, &pid);
	ok(rc == -ENOENT && pid == 0, "a daemon's failed exec too (%d)", rc);
	ok(waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD, "no child left to reap");

	/* a daemon: the grandchild's pid, in its own session */
	if (pipe2(a, O_CLOEXEC) < 0)
		return 1;
	fds[0] = (struct loop_spawn_fd){ a[1], 3 };
	{
		char *dargv[] = { (char *)"sh", (char *)"-c", (char *)"echo $$ >&3; exec sleep 5",
				  NULL };

		rc = loop_spawn("/bin/sh", dargv, NULL, fds, 1, LOOP_SPAWN_DAEMON, &pid);
	}
	close(a[1]);
	ok(rc == 0 && pid > 0, "the daemon started (%d)", rc);
	n = read(a[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(a[0]);
	ok(atoi(buf) == pid, "its pid is the daemon's own (%d vs %d)", atoi(buf), (int)pid);
	ok(getsid(pid) > 0 && getsid(pid) != getsid(0), "in a session of its own");
	ok(waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD, "not our child: init reaps it");
	if (pid > 0)
		kill(pid, SIGKILL);
	return tap_done();
}
