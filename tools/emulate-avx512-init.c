/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /init of the initramfs that tools/emulate-avx512 boots under Bochs.
 *
 * It runs the programs listed in /emulate/cmds one after the other with the
 * console as their stdin/stdout/stderr, and powers the machine off.  The
 * lines it prints itself start with "emulate-avx512:" so that the script on
 * the host can tell them from the programs' output and from the kernel's.
 *
 * /emulate/cmds holds, per program, its argument count as a decimal string
 * and then its arguments, every field terminated by a NUL byte; argv[0] is
 * the path of the executable in the initramfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define TAG "emulate-avx512: "
#define MAX_PROGRAMS 64
#define MAX_ARGS 256

/* The features the host lacks and the guest is there to provide. */
static const char *const wanted_flags[] = {
	"avx512f", "avx512bw", "avx512vl", "avx512dq",
	"vaes", "vpclmulqdq", "gfni",
};

static void console_stdio(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	if (fd < 0)
		return; /* keep the fds the kernel gave us */
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void mount_or_warn(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, NULL) && errno != EBUSY)
		printf(TAG "mount %s on %s: %s\n", type, dir, strerror(errno));
}

static int has_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	const char *p = line;

	while ((p = strstr(p, word))) {
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

/* One line the host greps: which of wanted_flags the first CPU has. */
static void print_cpu_flags(void)
{
	char line[8192];
	char model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t i;

	if (!f) {
		printf(TAG "cannot open /proc/cpuinfo: %s\n", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			const char *v = strchr(line, ':');

			if (v) {
				snprintf(model, sizeof(model), "%s", v + 2);
				model[strcspn(model, "\n")] = '\0';
			}
		}
		if (strncmp(line, "flags", 5))
			continue;
		printf(TAG "cpu model: %s\n", model);
		printf(TAG "cpu flags:");
		for (i = 0; i < sizeof(wanted_flags) / sizeof(*wanted_flags); i++)
			if (has_word(line, wanted_flags[i]))
				printf(" %s", wanted_flags[i]);
		printf("\n");
		break;
	}
	fclose(f);
}

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc(st.st_size + 1)) ||
	    read(fd, buf, st.st_size) != st.st_size) {
		printf(TAG "cannot read %s: %s\n", path, strerror(errno));
		return NULL;
	}
	close(fd);
	buf[st.st_size] = '\0';
	*len = st.st_size;
	return buf;
}

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		printf(TAG "fork for %s: %s\n", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execv(argv[0], argv);
		printf(TAG "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

static void describe(char *buf, size_t size, int status)
{
	if (status < 0)
		snprintf(buf, size, "error");
	else if (WIFEXITED(status))
		snprintf(buf, size, "%d", WEXITSTATUS(status));
	else
		snprintf(buf, size, "signal-%d", WTERMSIG(status));
}

int main(void)
{
	static char results[MAX_PROGRAMS][32];
	char *argv[MAX_ARGS + 1];
	size_t len = 0, pos = 0;
	int n = 0, i;
	char *cmds;

	mount_or_warn("devtmpfs", "/dev");
	console_stdio();
	mount_or_warn("proc", "/proc");
	mount_or_warn("sysfs", "/sys");
	mkdir("/tmp", 01777);
	setenv("PATH", "/emulate/bin", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);

	print_cpu_flags();
	cmds = slurp("/emulate/cmds", &len);
	while (cmds && pos < len && n < MAX_PROGRAMS) {
		int argc = atoi(cmds + pos), a;

		pos += strlen(cmds + pos) + 1;
		if (argc < 1 || argc > MAX_ARGS)
			break;
		for (a = 0; a < argc && pos < len; a++) {
			argv[a] = cmds + pos;
			pos += strlen(cmds + pos) + 1;
		}
		argv[argc] = NULL;
		printf(TAG "run %s\n", argv[0]);
		describe(results[n], sizeof(results[n]), run(argv));
		printf(TAG "exit %s %s\n", argv[0], results[n]);
		n++;
	}
	printf(TAG "done");
	for (i = 0; i < n; i++)
		printf(" %s", results[i]);
	printf("\n");
	fflush(stdout);
	/* the UART sends in the background: power-off would cut it short */
	tcdrain(1);
	sync();
	reboot(RB_POWER_OFF);
	return 1; /* the kernel panics, and the host sees no power-off */
}
