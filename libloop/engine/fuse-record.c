// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The FUSE engine's records: what ties a record to its daemon and mount
 * point. The engine alone kills and unmounts, so it alone judges this.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/private.h"
#include "engine/engine-private.h"

/* Start time (clock ticks since boot) of @pid, 0 when it is gone or a zombie. */
unsigned long long loop_pid_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	char state;
	ssize_t n;
	int fd, i;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name may hold anything: fields start after the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c", &state) != 1 || state == 'Z' || state == 'X')
		return 0;
	/* field 22 is starttime; p + 2 is field 3 */
	p += 2;
	for (i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &start) != 1)
		return 0;
	return start;
}

/*
 * What a record must prove before anything is killed or unmounted on its
 * word. A record is only text in a file; killing a pid or unmounting a
 * path because that text says so would let a corrupt or planted record
 * take down an unrelated process or a live device.
 *  - the mount path is the record's own directory's "mnt": nothing else
 *    is ever ours to unmount;
 *  - the daemon: same boot, its pid still runs the program it started
 *    with (start time), and /proc/PID/exe is cryptoloop-fuse.
 */
int loop_state_owns_mount(const struct loop_state *st)
{
	char want[PATH_MAX];

	if (!st->id[0] || strchr(st->id, '/') || st->id[0] == '.')
		return 0;
	snprintf(want, sizeof(want), "%s/%s/mnt", LOOP_STATE_DIR, st->id);
	return !strcmp(st->mount, want);
}

int loop_pid_is_daemon(pid_t pid)
{
	static const char name[] = "cryptoloop-fuse", deleted[] = " (deleted)";
	char path[64], exe[PATH_MAX], *base;
	ssize_t n;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	len = (size_t)n;
	/* an upgrade replaced the binary under a running daemon */
	if (len > sizeof(deleted) - 1 &&
	    !strcmp(exe + len - (sizeof(deleted) - 1), deleted))
		exe[len - (sizeof(deleted) - 1)] = '\0';
	base = strrchr(exe, '/');
	return !strcmp(base ? base + 1 : exe, name);
}

int loop_state_proves_daemon(const struct loop_state *st)
{
	char boot[40];

	if (st->engine != LOOP_ENGINE_FUSE || st->pid <= 0 || !st->pid_start)
		return 0;
	if (loop_boot_id(boot, sizeof(boot)) || strcmp(boot, st->boot_id))
		return 0;
	return loop_state_owns_mount(st) && loop_pid_start(st->pid) == st->pid_start &&
	       loop_pid_is_daemon(st->pid);
}
