// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-fuse: the userspace engine of losetup -e. Started by libloop
 * (never by hand), it serves the decrypted view of a range of an image as
 * one file in a private FUSE mount; libloop then puts a loop device on it.
 *
 *   cryptoloop-fuse --image PATH --mountpoint DIR --key-fd N --ready-fd N
 *                   [--offset BYTES] [--sizelimit BYTES] [--read-only]
 *                   [--state-dir DIR] [--threads N]
 *
 * The cipher spec and key arrive on --key-fd (a socket), never in argv or
 * the environment. Readiness, or the reason for failing, goes back on
 * --ready-fd as one line: "OK <pid> rw|ro" or "ERR <errno> <what>".
 * It exits when the loop device lets go of the file (detach), and then
 * unmounts and removes its state directory. SIGTERM, SIGINT and SIGHUP
 * are ignored (signals.c says why); kill -9 is the only other way out.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "engine/key-handover.h"
#include "base/secure-mem.h"

#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

struct args {
	const char *image;
	const char *mountpoint;
	const char *state_dir;
	int key_fd;
	int ready_fd;
	uint64_t offset;
	uint64_t sizelimit;
	bool read_only;
	unsigned int threads;
};

static int ready_fd = -1;
/* mlockall() locks pages as they are touched, not all at once */
static bool locked_on_fault;

/* losetup attaches the loop device right after we report readiness; if
 * nobody opens the file by then, losetup died in between: do not linger */
#define ATTACH_TIMEOUT_SEC 60

static void *attach_watchdog(void *arg)
{
	struct clf *c = arg;

	sleep(ATTACH_TIMEOUT_SEC);
	if (!atomic_load(&c->opened))
		clf_request_exit();
	return NULL;
}

/* Tell losetup why we fail (before readiness), then exit. */
static void __attribute__((noreturn)) fail(int err, const char *what)
{
	if (ready_fd >= 0) {
		dprintf(ready_fd, "ERR %d %s\n", err, what);
		close(ready_fd);
	}
	clf_omit_unregister();
	_exit(EXIT_FAILURE);
}

/* Keys and plaintext stay in RAM, no core dumps, no ptrace by others. */
static void harden(void)
{
	struct rlimit no_core = { 0, 0 };

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	setrlimit(RLIMIT_CORE, &no_core);
	/* lock pages as they are touched: thread stacks are large */
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0)
		locked_on_fault = true;
	else if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		fail(errno, "cannot lock memory (mlockall)");
}

static uint64_t num_arg(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		fail(EINVAL, what);
	return v;
}

static void parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "image", required_argument, NULL, 'i' },
		{ "mountpoint", required_argument, NULL, 'm' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ "key-fd", required_argument, NULL, 'k' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "offset", required_argument, NULL, 'o' },
		{ "sizelimit", required_argument, NULL, 's' },
		{ "read-only", no_argument, NULL, 'R' },
		{ "threads", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->key_fd = a->ready_fd = -1;
	a->threads = 4;
	/* the ready fd first, so that argument errors can be reported on it */
	for (c = 1; c + 1 < argc; c++)
		if (!strcmp(argv[c], "--ready-fd"))
			ready_fd = (int)strtol(argv[c + 1], NULL, 10);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i': a->image = optarg; break;
		case 'm': a->mountpoint = optarg; break;
		case 'S': a->state_dir = optarg; break;
		case 'k': a->key_fd = (int)num_arg(optarg, "bad --key-fd"); break;
		case 'r': a->ready_fd = (int)num_arg(optarg, "bad --ready-fd"); break;
		case 'o': a->offset = num_arg(optarg, "bad --offset"); break;
		case 's': a->sizelimit = num_arg(optarg, "bad --sizelimit"); break;
		case 'R': a->read_only = true; break;
		case 't': a->threads = (unsigned int)num_arg(optarg, "bad --threads"); break;
		default:
			fail(EINVAL, "bad arguments");
		}
	}
	if (!a->image || !a->mountpoint || a->key_fd < 0 || a->ready_fd < 0 ||
	    optind != argc)
		fail(EINVAL, "missing arguments");
	if (a->offset % LOOP_SECTOR_SIZE)
		fail(EINVAL, "offset is not a multiple of 512");
	if (!a->threads || a->threads > 64)
		a->threads = 4;
}

/* Open the image (read-only when it or -r says so) and size the view. */
static void open_image(struct clf *c, const struct args *a)
{
	uint64_t size;
	int rc;

	c->read_only = a->read_only;
	c->img_fd = open(a->image, (a->read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (c->img_fd < 0 && !a->read_only && (errno == EROFS || errno == EACCES)) {
		c->img_fd = open(a->image, O_RDONLY | O_CLOEXEC);
		c->read_only = true;
	}
	if (c->img_fd < 0)
		fail(errno, "cannot open the image");
	rc = clf_view_size(c->img_fd, a->offset, a->sizelimit, &size);
	if (rc == -ERANGE)
		fail(ERANGE, "the image has less than one sector after the offset");
	if (rc)
		fail(-rc, "cannot get the image's size");
	c->offset = a->offset;
	c->sizelimit = a->sizelimit;
	atomic_store(&c->size, size);
}

static void read_key(struct clf *c, int fd)
{
	struct loop_keymsg_hdr hdr;
	struct loop_key *key = NULL;
	int rc = loop_keymsg_recv(fd, &hdr, &key);

	close(fd);
	if (rc)
		fail(-rc, "cannot receive the key");
	if (key) {
		rc = loop_crypt_new(&c->crypt, &hdr.spec, key, hdr.iv_offset);
		loop_key_free(key);
		if (rc)
			fail(-rc, "cannot set up the cipher");
	}
	explicit_bzero(&hdr, sizeof(hdr));
	/* the key came through the socket's buffers on our stack */
	loop_secret_scrub();
}

/* Leave the terminal and session of whoever started us. */
static void detach_from_caller(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	if (chdir("/") < 0)
		return;
}

static void remove_state(const struct args *a)
{
	char path[4096];

	rmdir(a->mountpoint);
	if (!a->state_dir)
		return;
	snprintf(path, sizeof(path), "%s/state", a->state_dir);
	unlink(path);
	rmdir(a->state_dir);
}

/*
 * argv[0] must start with '@': systemd spares such processes in its final
 * killing spree. libloop starts us that way; whoever did not (a wrapper
 * script that exec'ed us by path) gets us re-executed with the mark.
 */
static void ensure_storage_daemon_mark(char **argv)
{
	static char mark[] = "@cryptoloop-fuse";

	if (argv[0] && argv[0][0] == '@')
		return;
	argv[0] = mark;
	execv("/proc/self/exe", argv);
	/* no /proc: run on unmarked, the other marks still hold */
}

int main(int argc, char **argv)
{
	struct fuse_args fargs = FUSE_ARGS_INIT(0, NULL);
	struct fuse_loop_config *lcfg;
	struct args a;
	struct clf c;
	int rc;

	ensure_storage_daemon_mark(argv);
	parse_args(argc, argv, &a);
	ready_fd = a.ready_fd;
	fcntl(ready_fd, F_SETFD, FD_CLOEXEC);
	setsid();
	/* a closed ready pipe is reported as EPIPE, not a silent death;
	 * shutdown's SIGTERM must not stop us (signals.c) */
	if (clf_signals_setup(NULL))
		fail(errno, "cannot set up signal handling");
	harden();
	clf_omit_register();

	memset(&c, 0, sizeof(c));
	pthread_mutex_init(&c.rmw_lock, NULL);
	read_key(&c, a.key_fd);
	open_image(&c, &a);
	c.image = a.image;
	clf_map_setup(&c, locked_on_fault);

	if (fuse_opt_add_arg(&fargs, argv[0]) ||
	    fuse_opt_add_arg(&fargs, "-o") ||
	    fuse_opt_add_arg(&fargs, "fsname=cryptoloop,subtype=cryptoloop,default_permissions"))
		fail(ENOMEM, "out of memory");
	c.se = fuse_session_new(&fargs, &clf_ops, sizeof(clf_ops), &c);
	if (!c.se)
		fail(EINVAL, "cannot create the FUSE session");
	if (clf_signals_setup(c.se))
		fail(errno, "cannot set up signal handling");
	if (fuse_session_mount(c.se, a.mountpoint))
		fail(EIO, "cannot mount the FUSE file system");
	rc = clf_helper_start(&c);
	if (rc)
		fail(-rc, "cannot start the cipher thread");

	/* mounted and ready: report, then lose the caller's stdio. Nobody
	 * to report to means losetup died: nobody will attach, so go. */
	if (dprintf(ready_fd, "OK %ld %s\n", (long)getpid(), c.read_only ? "ro" : "rw") < 0) {
		fuse_session_unmount(c.se);
		remove_state(&a);
		clf_omit_unregister();
		_exit(EXIT_FAILURE);
	}
	close(ready_fd);
	ready_fd = -1;
	detach_from_caller();
	{
		pthread_t wd;

		if (pthread_create(&wd, NULL, attach_watchdog, &c) == 0)
			pthread_detach(wd);
	}

	lcfg = fuse_loop_cfg_create();
	if (!lcfg) {
		rc = 1;
	} else {
		fuse_loop_cfg_set_max_threads(lcfg, a.threads);
		/* never destroy idle workers: a new one costs a thread, a request
		 * buffer and its page faults (all locked) */
		fuse_loop_cfg_set_idle_threads(lcfg, a.threads);
		fuse_loop_cfg_set_clone_fd(lcfg, 0);
		rc = fuse_session_loop_mt(c.se, lcfg);
		fuse_loop_cfg_destroy(lcfg);
	}

	/* detached (or never opened): nothing more will be written */
	if (!c.read_only)
		fsync(c.img_fd);
	/* Detached: unmount. Should the loop still end while the loop device
	 * holds the file, leave the mount (it fails with EIO once we are
	 * gone, as after kill -9) so that "losetup -d" finds it as it was
	 * recorded and tears down loop device, mount and record in order. */
	if (atomic_load(&c.opens) == 0)
		fuse_session_unmount(c.se);
	fuse_session_destroy(c.se);
	fuse_opt_free_args(&fargs);
	clf_helper_stop(&c);
	clf_map_release(&c);
	loop_crypt_free(c.crypt);
	close(c.img_fd);
	if (atomic_load(&c.opens) == 0)
		remove_state(&a);
	clf_omit_unregister();
	return rc ? EXIT_FAILURE : EXIT_SUCCESS;
}
