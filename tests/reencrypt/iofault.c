// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iofault: an LD_PRELOAD shim that crashes a process at a chosen I/O
 * operation, for the crash tests of cryptoloop-reencrypt.
 *
 * Only files whose path starts with one of IOFAULT_PATHS (colon
 * separated) are watched. Each pwrite/write and each fsync/fdatasync on
 * them is one operation; before operation IOFAULT_CRASH_AT (1-based) the
 * process dies by SIGKILL. IOFAULT_COUNT names a file that receives the
 * number of operations at exit, so a test knows the range to pick from.
 *
 * IOFAULT_MODE:
 *   kill        SIGKILL only: what was written stays (the page cache
 *               survives a killed process).
 *   powerloss   first undo every write not yet made durable by fsync or
 *               fdatasync of its file, newest first: a power cut.
 *   torn        undo a random half of the 512-byte pieces of those writes
 *               (IOFAULT_SEED): a power cut on a device that reorders.
 *               IOFAULT_TEAR_BYTES sets another piece size: less than 512
 *               tears sectors, a device that does not write one atomically.
 *   corrupt     no crash: operation IOFAULT_CRASH_AT, if it is a write,
 *               writes its data with one bit flipped (a device that lies).
 *   interrupt   SIGINT before operation IOFAULT_CRASH_AT, and when the
 *               process exits, the power cut of powerloss: what a tool
 *               that stops on the signal left unsynced is lost.
 *
 * IOFAULT_SYNC_DELAY_US makes each fsync/fdatasync wait that long before
 * it counts and runs, as a slow disk does: a thread that does not wait for
 * another's sync before it writes on then gets caught by the crash.
 *
 * IOFAULT_WRITE_DELAY_US makes each write wait that long after it counts,
 * as a large write to a slow disk does: a sync that another thread starts
 * before the write returned then does not cover it.
 *
 * A sync makes durable only the writes that had returned before it began:
 * a write that runs in another thread meanwhile stays undoable, as it
 * may on a real device. The state is shared by the threads under a lock.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define MAX_FD 1024
#define MAX_FILES 16

struct undo {
	int file;		/* index into files[] */
	off_t off;
	size_t len;
	off_t old_size;
	unsigned char *pre;	/* the bytes before the write */
	unsigned long done;	/* when the write returned (seq), 0: not yet */
	struct undo *prev;
};

static struct {
	dev_t dev;
	ino_t ino;
	int fd;			/* our own descriptor, for the undo */
} files[MAX_FILES];
static int nfiles;
static signed char fd_file[MAX_FD];	/* fd -> files[] index + 1, 0: not watched */
static struct undo *pending;
static unsigned long ops, crash_at;
static unsigned long seq;		/* counts writes that returned */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int mode;			/* 0 kill, 1 powerloss, 2 torn, 3 corrupt */
static int inited;
static unsigned long long rng;
static unsigned long sync_delay_us, write_delay_us;
static size_t tear_bytes = 512;

static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_close)(int);
static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);

static void init(void)
{
	const char *s;

	if (inited)
		return;
	inited = 1;
	real_pwrite = dlsym(RTLD_NEXT, "pwrite");
	real_write = dlsym(RTLD_NEXT, "write");
	real_fsync = dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
	real_close = dlsym(RTLD_NEXT, "close");
	real_open = dlsym(RTLD_NEXT, "open");
	real_openat = dlsym(RTLD_NEXT, "openat");
	s = getenv("IOFAULT_CRASH_AT");
	crash_at = s ? strtoul(s, NULL, 10) : 0;
	s = getenv("IOFAULT_MODE");
	mode = !s || !strcmp(s, "kill") ? 0 : !strcmp(s, "powerloss") ? 1 :
	       !strcmp(s, "torn") ? 2 : !strcmp(s, "interrupt") ? 4 : 3;
	s = getenv("IOFAULT_SYNC_DELAY_US");
	sync_delay_us = s ? strtoul(s, NULL, 10) : 0;
	s = getenv("IOFAULT_WRITE_DELAY_US");
	write_delay_us = s ? strtoul(s, NULL, 10) : 0;
	s = getenv("IOFAULT_TEAR_BYTES");
	if (s && strtoul(s, NULL, 10))
		tear_bytes = strtoul(s, NULL, 10);
	s = getenv("IOFAULT_SEED");
	rng = s ? strtoull(s, NULL, 10) * 2654435761u + 1 : 1;
}

static unsigned int next_rand(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)(rng >> 33);
}

static int watched_path(const char *path)
{
	const char *list = getenv("IOFAULT_PATHS"), *p;
	size_t n;

	if (!list || !path)
		return 0;
	for (p = list; *p; p += n + (p[n] == ':')) {
		n = strcspn(p, ":");
		if (n && !strncmp(path, p, n))
			return 1;
	}
	return 0;
}

/*
 * Our own descriptor for the undo, a new open file description: a dup
 * would share the caller's flags, and the first descriptor the tool opens
 * may be read-only (a journal read on resume) or O_DIRECT (whose
 * alignment our undo buffers lack), so the undo writes would fail and
 * the power cut would not be staged.  A directory (synced, never
 * written) gets none.
 */
static int undo_fd(int fd)
{
	char proc[64];
	int our;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	our = real_open(proc, O_RDWR | O_CLOEXEC);
	if (our < 0 || our >= 100)
		return our;
	/* out of the range the tool's own descriptors use */
	fd = fcntl(our, F_DUPFD_CLOEXEC, 100);
	real_close(our);
	return fd;
}

static void watch(int fd)
{
	struct stat st;
	int i;

	if (fd < 0 || fd >= MAX_FD || fstat(fd, &st) < 0)
		return;
	for (i = 0; i < nfiles; i++)
		if (files[i].dev == st.st_dev && files[i].ino == st.st_ino)
			break;
	if (i == nfiles) {
		if (nfiles == MAX_FILES)
			return;
		files[i].dev = st.st_dev;
		files[i].ino = st.st_ino;
		files[i].fd = undo_fd(fd);
		nfiles++;
	}
	fd_file[fd] = (signed char)(i + 1);
}

/* a power cut that cannot be staged would test nothing: say why, abort */
static void cannot_stage(const char *what, int fd)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg), "iofault: cannot stage the power cut: %s on fd %d: %s\n",
			 what, fd, strerror(errno));

	if (n > 0)
		real_write(STDERR_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	abort();
}

static void undo_write(int fd, const void *buf, size_t len, off_t off)
{
	if (real_pwrite(fd, buf, len, off) != (ssize_t)len)
		cannot_stage("pwrite", fd);
}

/* undo what is not durable: all of each write, or (torn) pieces of it */
static void power_cut(void)
{
	struct undo *u;
	size_t p;

	for (u = pending; mode && u; u = u->prev) {
		int fd = files[u->file].fd;

		if (mode == 1 || mode == 4) {
			undo_write(fd, u->pre, u->len, u->off);
			if (u->off + (off_t)u->len > u->old_size &&
			    ftruncate(fd, u->old_size > u->off ? u->old_size : u->off) < 0)
				cannot_stage("ftruncate", fd);
			continue;
		}
		for (p = 0; p < u->len; p += tear_bytes)
			if (next_rand() & 1)
				undo_write(fd, u->pre + p,
					   u->len - p < tear_bytes ? u->len - p : tear_bytes,
					   u->off + (off_t)p);
	}
}

static void crash(void)
{
	power_cut();
	raise(SIGKILL);
}

/* 1 when this write is the one to corrupt */
static int count_op(void)
{
	if (++ops != crash_at)
		return 0;
	if (mode == 3)
		return 1;
	if (mode == 4) {
		raise(SIGINT);
		return 0;
	}
	crash();
	return 0;
}

static struct undo *remember(int fd, size_t len, off_t off)
{
	struct undo *u;
	struct stat st;
	int f = fd_file[fd] - 1;
	ssize_t n;

	if (mode != 1 && mode != 2 && mode != 4)
		return NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		abort();
	u->pre = calloc(1, len ? len : 1);
	if (!u->pre)
		abort();
	if (files[f].fd < 0)
		cannot_stage("reopen", fd);
	u->file = f;
	u->off = off;
	u->len = len;
	fstat(files[f].fd, &st);
	u->old_size = st.st_size;
	n = pread(files[f].fd, u->pre, len, off);
	(void)n;	/* past the end stays zero */
	u->prev = pending;
	pending = u;
	return u;
}

/* the write of @u returned */
static void written(struct undo *u)
{
	if (!u)
		return;
	pthread_mutex_lock(&lock);
	u->done = ++seq;
	pthread_mutex_unlock(&lock);
}

/* a sync of @fd that began when seq was @since returned */
static void synced(int fd, unsigned long since)
{
	struct undo **pp = &pending, *u;
	int f = fd_file[fd] - 1;

	pthread_mutex_lock(&lock);
	while ((u = *pp)) {
		if (u->file == f && u->done && u->done <= since) {
			*pp = u->prev;
			free(u->pre);
			free(u);
		} else {
			pp = &u->prev;
		}
	}
	pthread_mutex_unlock(&lock);
}

/* the seq a sync begins at, after counting it as an operation */
static unsigned long sync_begins(void)
{
	unsigned long since;

	pthread_mutex_lock(&lock);
	count_op();
	since = seq;
	pthread_mutex_unlock(&lock);
	return since;
}

static int is_watched(int fd)
{
	return fd >= 0 && fd < MAX_FD && fd_file[fd];
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	struct undo *u;
	ssize_t n;
	int bad;

	init();
	if (!is_watched(fd))
		return real_pwrite(fd, buf, len, off);
	pthread_mutex_lock(&lock);
	bad = count_op();
	u = remember(fd, len, off);
	pthread_mutex_unlock(&lock);
	if (write_delay_us)
		usleep(write_delay_us);
	if (bad && len) {
		/* aligned as the caller's may be: an O_DIRECT write wants it */
		unsigned char *copy = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

		if (!copy)
			abort();
		memcpy(copy, buf, len);
		copy[len / 2] ^= 0x10;
		n = real_pwrite(fd, copy, len, off);
		free(copy);
	} else {
		n = real_pwrite(fd, buf, len, off);
	}
	written(u);
	return n;
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite(fd, buf, len, off);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	struct undo *u = NULL;
	ssize_t n;

	init();
	if (is_watched(fd)) {
		pthread_mutex_lock(&lock);
		count_op();
		u = remember(fd, len, lseek(fd, 0, SEEK_CUR));
		pthread_mutex_unlock(&lock);
	}
	n = real_write(fd, buf, len);
	written(u);
	return n;
}

int fsync(int fd)
{
	unsigned long since;
	int rc;

	init();
	if (!is_watched(fd))
		return real_fsync(fd);
	if (sync_delay_us)
		usleep(sync_delay_us);
	since = sync_begins();
	rc = real_fsync(fd);
	if (rc == 0)
		synced(fd, since);
	return rc;
}

int fdatasync(int fd)
{
	unsigned long since;
	int rc;

	init();
	if (!is_watched(fd))
		return real_fdatasync(fd);
	if (sync_delay_us)
		usleep(sync_delay_us);
	since = sync_begins();
	rc = real_fdatasync(fd);
	if (rc == 0)
		synced(fd, since);
	return rc;
}

int close(int fd)
{
	init();
	if (fd >= 0 && fd < MAX_FD)
		fd_file[fd] = 0;
	return real_close(fd);
}

static int opened(int fd, const char *path)
{
	if (fd >= 0 && watched_path(path))
		watch(fd);
	return fd;
}

int open(const char *path, int flags, ...)
{
	mode_t m = 0;
	va_list ap;

	init();
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		m = va_arg(ap, mode_t);
		va_end(ap);
	}
	return opened(real_open(path, flags, m), path);
}

int open64(const char *path, int flags, ...)
{
	mode_t m = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		m = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open(path, flags, m);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t m = 0;
	va_list ap;

	init();
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		m = va_arg(ap, mode_t);
		va_end(ap);
	}
	return opened(real_openat(dirfd, path, flags, m), path);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t m = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		m = va_arg(ap, mode_t);
		va_end(ap);
	}
	return openat(dirfd, path, flags, m);
}

/*
 * _FORTIFY_SOURCE turns open() and openat() calls without a mode into
 * these checked entry points: without them a hardened build's image
 * escapes the model and its writes all look durable.
 */
int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags)
{
	return open(path, flags);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags);
}

static void __attribute__((destructor)) report(void)
{
	const char *out = getenv("IOFAULT_COUNT");
	FILE *f;

	if (mode == 4)
		power_cut();
	if (!out || !ops)
		return;
	f = fopen(out, "we");
	if (f) {
		fprintf(f, "%lu\n", ops);
		fclose(f);
	}
}
