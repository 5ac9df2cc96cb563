// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * torture DEV FILE1 FILE2 SECONDS [SEED]: the module under fire, in the
 * VM.  Two threads do I/O on DEV (reopening it, buffered or O_DIRECT,
 * reads, writes, fsync, discard) while a third, for SECONDS, changes the
 * device under them at random: LOOP_CONFIGURE, LOOP_SET_FD with
 * LOOP_SET_STATUS64 or the old LOOP_SET_STATUS, LOOP_SET_STATUS64 on a
 * bound device, LOOP_SET_CAPACITY after resizing FILE2,
 * LOOP_SET_BLOCK_SIZE (valid and not), LOOP_SET_DIRECT_IO, the loop-AES
 * multi-key switch (v2 and v3), LOOP_CLR_FD (with the I/O threads'
 * descriptors open, which defers it to the last close, or after they
 * closed them, which detaches at once), and writes of good and bad
 * values to the device's sysfs attributes (loop/swap, queue/...).
 * FILE1 should be fully written on a block-device filesystem (so that
 * loop/swap=1 can map it), FILE2 anywhere (it is resized).
 *
 * Failures of single operations are expected (EBUSY, ENXIO, EINVAL, EIO
 * on a device that was just cleared or reconfigured) and only counted.
 * At the end the device is cleared, then a last configure with a known
 * key must write and read back 1 MiB exactly, and the device must end
 * unbound.  A thread stuck in one call for 60 s fails the run.  What the
 * kernel logged is for the caller to check (tests/vm/guest/guest-torture).
 *
 * Prints the seed, one line per operation ("op NAME ok N failed M
 * slowest T ms"), the
 * I/O counts, and "torture: PASS" or "torture: FAIL: why".  Exit 0 on
 * PASS, 1 otherwise.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MULTI_KEY_SETUP		0x4C4D
#define MULTI_KEY_SETUP_V3	0x4C4E
#define KEY_SLOT		32
#define IO_MAX			(64 * 1024)
#define STUCK_SECS		60

static const char *dev, *file1, *file2;
static char sysdir[128];
static atomic_int stop;
/* Set: the I/O threads close the device and wait (a clear right now). */
static atomic_int quiet;
static atomic_int holders;	/* I/O threads with the device open */
/* Seconds since the epoch at which each thread entered its current call. */
static atomic_long busy_since[3];

enum op {
	OP_CONFIGURE, OP_SET_FD, OP_SET_STATUS, OP_SET_STATUS_OLD,
	OP_GET_STATUS, OP_CAPACITY, OP_BLOCK_SIZE, OP_DIO, OP_MULTI_KEY,
	OP_CLEAR, OP_CLEAR_NOW, OP_SYSFS, NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"configure", "set-fd+status", "set-status64", "set-status-old",
	"get-status", "set-capacity", "block-size", "direct-io", "multi-key",
	"clear", "clear-idle", "sysfs-write",
};

static unsigned long op_ok[NR_OPS], op_fail[NR_OPS], op_max_ms[NR_OPS];

enum io { IO_OPEN, IO_READ, IO_WRITE, IO_FSYNC, IO_DISCARD, NR_IO };

static const char *const io_names[NR_IO] = {
	"open", "read", "write", "fsync", "discard",
};

static atomic_ulong io_ok[NR_IO], io_fail[NR_IO];

/* A small xorshift generator per thread: reproducible from the seed. */
static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

static long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fill_random(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n <= 0)
			continue;
		p += n;
		len -= n;
	}
}

static void count(enum op op, int ret, long ms)
{
	if (ms > (long)op_max_ms[op])
		op_max_ms[op] = ms;
	if (ret == 0)
		op_ok[op]++;
	else
		op_fail[op]++;
}

/* Random but mostly valid device settings. */
static void random_info(uint64_t *s, struct loop_info64 *info)
{
	static const char *const ciphers[] = {
		"aes-cbc-plain", "aes-cbc-plain64", "twofish-cbc-plain64",
		"aes-cbc-plain64", "nosuch-cbc-plain",
	};
	static const unsigned int keylens[] = { 16, 24, 32, 32, 7 };
	uint32_t r = rnd(s);

	memset(info, 0, sizeof(*info));
	switch (r % 6) {
	case 0: /* no encryption */
		break;
	case 1: /* loop-AES's number for AES */
		info->lo_encrypt_type = 16;
		info->lo_encrypt_key_size = keylens[rnd(s) % 3];
		break;
	default:
		info->lo_encrypt_type = LO_CRYPT_CRYPTOAPI;
		strcpy((char *)info->lo_crypt_name, ciphers[rnd(s) % 5]);
		info->lo_encrypt_key_size = keylens[rnd(s) % 5];
		break;
	}
	fill_random(info->lo_encrypt_key, sizeof(info->lo_encrypt_key));
	if (rnd(s) % 3 == 0)
		info->lo_offset = (uint64_t)(rnd(s) % 64) * 512;
	if (rnd(s) % 4 == 0)
		info->lo_sizelimit = (uint64_t)(1 + rnd(s) % 16) << 20;
	if (rnd(s) % 8 == 0)
		info->lo_init[0] = rnd(s);
	r = rnd(s);
	if (r % 7 == 0)
		info->lo_flags |= LO_FLAGS_READ_ONLY;
	if (r % 5 == 0)
		info->lo_flags |= LO_FLAGS_AUTOCLEAR;
	if (r % 6 == 0)
		info->lo_flags |= LO_FLAGS_PARTSCAN;
	if (r % 3 == 0)
		info->lo_flags |= LO_FLAGS_DIRECT_IO;
	strncpy((char *)info->lo_file_name, "torture", LO_NAME_SIZE - 1);
}

static const char *pick_file(uint64_t *s)
{
	return rnd(s) % 3 ? file1 : file2;
}

static int op_configure(uint64_t *s, int fd)
{
	static const unsigned int bsizes[] = { 0, 512, 1024, 2048, 4096 };
	struct loop_config cfg;
	int ffd, ret;

	memset(&cfg, 0, sizeof(cfg));
	random_info(s, &cfg.info);
	ffd = open(pick_file(s), cfg.info.lo_flags & LO_FLAGS_READ_ONLY ?
		   O_RDONLY : O_RDWR);
	if (ffd < 0)
		return -1;
	cfg.fd = ffd;
	cfg.block_size = bsizes[rnd(s) % 5];
	ret = ioctl(fd, LOOP_CONFIGURE, &cfg);
	memset(&cfg, 0, sizeof(cfg));
	close(ffd);
	return ret;
}

static int op_set_fd(uint64_t *s, int fd)
{
	struct loop_info64 info;
	int ffd, ret;

	ffd = open(pick_file(s), O_RDWR);
	if (ffd < 0)
		return -1;
	ret = ioctl(fd, LOOP_SET_FD, ffd);
	close(ffd);
	if (ret)
		return ret;
	random_info(s, &info);
	ret = ioctl(fd, LOOP_SET_STATUS64, &info);
	memset(&info, 0, sizeof(info));
	return ret;
}

static int op_set_status(uint64_t *s, int fd)
{
	struct loop_info64 info;
	int ret;

	random_info(s, &info);
	ret = ioctl(fd, LOOP_SET_STATUS64, &info);
	memset(&info, 0, sizeof(info));
	return ret;
}

static int op_set_status_old(uint64_t *s, int fd)
{
	struct loop_info64 info;
	struct loop_info old;
	int ret;

	random_info(s, &info);
	memset(&old, 0, sizeof(old));
	old.lo_offset = info.lo_offset;
	old.lo_encrypt_type = info.lo_encrypt_type;
	old.lo_encrypt_key_size = info.lo_encrypt_key_size;
	old.lo_flags = info.lo_flags;
	old.lo_init[0] = info.lo_init[0];
	memcpy(old.lo_encrypt_key, info.lo_encrypt_key, LO_KEY_SIZE);
	memcpy(old.lo_name, info.lo_crypt_name, LO_NAME_SIZE);
	ret = ioctl(fd, LOOP_SET_STATUS, &old);
	memset(&info, 0, sizeof(info));
	memset(&old, 0, sizeof(old));
	return ret;
}

static int op_capacity(uint64_t *s, int fd)
{
	/* FILE2 between 24 and 48 MiB; FILE1 stays whole for loop/swap. */
	if (truncate(file2, (off_t)(24 + rnd(s) % 25) << 20))
		return -1;
	return ioctl(fd, LOOP_SET_CAPACITY, 0);
}

static int op_block_size(uint64_t *s, int fd)
{
	static const unsigned long sizes[] = {
		512, 1024, 2048, 4096, 4096, 3000, 8192, 0,
	};

	return ioctl(fd, LOOP_SET_BLOCK_SIZE, sizes[rnd(s) % 8]);
}

static int op_multi_key(uint64_t *s, int fd)
{
	unsigned char keys[65 * KEY_SLOT];
	int v3 = rnd(s) % 2, ret;

	fill_random(keys, sizeof(keys));
	ret = ioctl(fd, v3 ? MULTI_KEY_SETUP_V3 : MULTI_KEY_SETUP, keys);
	memset(keys, 0, sizeof(keys));
	return ret;
}

/*
 * LOOP_CLR_FD while the I/O threads keep the device open only marks it
 * for autoclear (and the next SET_STATUS may unmark it), as with loop;
 * so half the clears first have them close it, and detach at once.
 */
static int op_clear_now(int fd)
{
	long until = now_ms() + 5000;
	int ret;

	atomic_store(&quiet, 1);
	while (atomic_load(&holders) && now_ms() < until)
		usleep(1000);
	ret = ioctl(fd, LOOP_CLR_FD, 0);
	atomic_store(&quiet, 0);
	return ret;
}

static int op_sysfs(uint64_t *s)
{
	static const struct {
		const char *name;
		const char *values[4];
	} attrs[] = {
		{ "loop/swap", { "1", "0", "1", "2" } },
		{ "queue/read_ahead_kb", { "0", "128", "4096", "-1" } },
		{ "queue/max_sectors_kb", { "4", "64", "1280", "0" } },
		{ "queue/nomerges", { "0", "1", "2", "9" } },
		{ "queue/rq_affinity", { "0", "1", "2", "x" } },
		{ "queue/scheduler", { "none", "mq-deadline", "none", "bogus" } },
		{ "queue/nr_requests", { "4", "64", "128", "0" } },
		{ "queue/iostats", { "0", "1", "1", "on" } },
		{ "queue/add_random", { "0", "1", "0", "" } },
		{ "queue/wbt_lat_usec", { "0", "2000", "-1", "z" } },
	};
	unsigned int a = rnd(s) % (sizeof(attrs) / sizeof(attrs[0]));
	const char *v = attrs[a].values[rnd(s) % 4];
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sysdir, attrs[a].name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

static void *control(void *arg)
{
	uint64_t s = *(uint64_t *)arg;
	long end = now() + (long)((uint64_t *)arg)[1];
	int fd;

	while (now() < end && !atomic_load(&stop)) {
		struct loop_info64 info;
		uint32_t r = rnd(&s) % 100;
		long t0 = now_ms();
		enum op op;
		int ret;

		atomic_store(&busy_since[2], now());
		/*
		 * A new descriptor each time: a clear with other openers only
		 * detaches at the last close, which must be able to happen.
		 */
		fd = open(dev, O_RDWR);
		if (fd < 0) {
			perror(dev);
			atomic_store(&stop, 2);
			break;
		}
		if (r < 14) {
			op = OP_CONFIGURE;
			ret = op_configure(&s, fd);
		} else if (r < 20) {
			op = OP_SET_FD;
			ret = op_set_fd(&s, fd);
		} else if (r < 30) {
			op = OP_SET_STATUS;
			ret = op_set_status(&s, fd);
		} else if (r < 34) {
			op = OP_SET_STATUS_OLD;
			ret = op_set_status_old(&s, fd);
		} else if (r < 40) {
			op = OP_GET_STATUS;
			ret = ioctl(fd, LOOP_GET_STATUS64, &info);
		} else if (r < 47) {
			op = OP_CAPACITY;
			ret = op_capacity(&s, fd);
		} else if (r < 55) {
			op = OP_BLOCK_SIZE;
			ret = op_block_size(&s, fd);
		} else if (r < 62) {
			op = OP_DIO;
			ret = ioctl(fd, LOOP_SET_DIRECT_IO, rnd(&s) % 2);
		} else if (r < 70) {
			op = OP_MULTI_KEY;
			ret = op_multi_key(&s, fd);
		} else if (r < 76) {
			op = OP_CLEAR;
			ret = ioctl(fd, LOOP_CLR_FD, 0);
		} else if (r < 82) {
			op = OP_CLEAR_NOW;
			ret = op_clear_now(fd);
		} else {
			op = OP_SYSFS;
			ret = op_sysfs(&s);
		}
		close(fd);
		atomic_store(&busy_since[2], 0);
		count(op, ret, now_ms() - t0);
		if (rnd(&s) % 4 == 0)
			usleep(rnd(&s) % 20000);
	}
	if (!atomic_load(&stop))
		atomic_store(&stop, 1);
	return NULL;
}

static void io_count(enum io io, int ok)
{
	atomic_fetch_add(ok ? &io_ok[io] : &io_fail[io], 1);
}

static void *io_thread(void *arg)
{
	uint64_t s = ((uint64_t *)arg)[0];
	int me = (int)((uint64_t *)arg)[1];
	unsigned char *buf;

	if (posix_memalign((void **)&buf, 4096, IO_MAX))
		return NULL;
	fill_random(buf, IO_MAX);
	while (!atomic_load(&stop)) {
		int direct = rnd(&s) % 2, i, fd;

		if (atomic_load(&quiet)) {
			usleep(1000);
			continue;
		}
		atomic_fetch_add(&holders, 1);
		atomic_store(&busy_since[me], now());
		fd = open(dev, O_RDWR | (direct ? O_DIRECT : 0));
		atomic_store(&busy_since[me], 0);
		io_count(IO_OPEN, fd >= 0);
		if (fd < 0) {
			atomic_fetch_sub(&holders, 1);
			usleep(1000);
			continue;
		}
		for (i = 0; i < 32 && !atomic_load(&stop) &&
			    !atomic_load(&quiet); i++) {
			uint64_t size = 0, range[2];
			size_t len = (1 + rnd(&s) % (IO_MAX / 4096)) * 4096;
			uint32_t r = rnd(&s) % 100;
			off_t off;
			ssize_t n;

			atomic_store(&busy_since[me], now());
			if (ioctl(fd, BLKGETSIZE64, &size) || size < len) {
				atomic_store(&busy_since[me], 0);
				break;
			}
			off = (off_t)(rnd(&s) % ((size - len) / 4096 + 1)) * 4096;
			if (r < 45) {
				n = pread(fd, buf, len, off);
				io_count(IO_READ, n >= 0);
			} else if (r < 90) {
				n = pwrite(fd, buf, len, off);
				io_count(IO_WRITE, n >= 0);
			} else if (r < 96) {
				io_count(IO_FSYNC, fsync(fd) == 0);
			} else {
				range[0] = off;
				range[1] = len;
				io_count(IO_DISCARD,
					 ioctl(fd, BLKDISCARD, range) == 0);
			}
			atomic_store(&busy_since[me], 0);
		}
		atomic_store(&busy_since[me], now());
		close(fd);
		atomic_store(&busy_since[me], 0);
		atomic_fetch_sub(&holders, 1);
		/* Now and then both are closed, and a pending clear happens. */
		usleep(rnd(&s) % 4 ? rnd(&s) % 5000 : 20000 + rnd(&s) % 30000);
	}
	free(buf);
	return NULL;
}

/* The device still works: a known key, 1 MiB written and read back. */
static int final_check(void)
{
	struct loop_config cfg;
	unsigned char *a, *b;
	int fd, ffd, dfd, ret = -1;

	if (posix_memalign((void **)&a, 4096, 1 << 20) ||
	    posix_memalign((void **)&b, 4096, 1 << 20))
		return -1;
	fill_random(a, 1 << 20);
	fd = open(dev, O_RDWR);
	ffd = open(file1, O_RDWR);
	if (fd < 0 || ffd < 0)
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = ffd;
	cfg.info.lo_encrypt_type = LO_CRYPT_CRYPTOAPI;
	strcpy((char *)cfg.info.lo_crypt_name, "aes-cbc-plain64");
	cfg.info.lo_encrypt_key_size = 32;
	fill_random(cfg.info.lo_encrypt_key, 32);
	if (ioctl(fd, LOOP_CONFIGURE, &cfg)) {
		perror("torture: final LOOP_CONFIGURE");
		goto out;
	}
	dfd = open(dev, O_RDWR | O_DIRECT);
	if (dfd < 0 || pwrite(dfd, a, 1 << 20, 4096) != 1 << 20 ||
	    pread(dfd, b, 1 << 20, 4096) != 1 << 20 ||
	    memcmp(a, b, 1 << 20)) {
		fprintf(stderr, "torture: final write/read-back failed\n");
	} else {
		ret = 0;
	}
	if (dfd >= 0)
		close(dfd);
	if (ioctl(fd, LOOP_CLR_FD, 0)) {
		perror("torture: final LOOP_CLR_FD");
		ret = -1;
	}
out:
	memset(&cfg, 0, sizeof(cfg));
	if (fd >= 0)
		close(fd);
	if (ffd >= 0)
		close(ffd);
	free(a);
	free(b);
	return ret;
}

static int is_bound(void)
{
	char path[160];
	struct stat st;

	snprintf(path, sizeof(path), "%s/loop", sysdir);
	return stat(path, &st) == 0;
}

int main(int argc, char **argv)
{
	uint64_t targ[2], ioarg[2][2], seed;
	pthread_t ctl, io[2];
	const char *why = NULL;
	int i, fd;

	if (argc < 5) {
		fprintf(stderr, "usage: torture DEV FILE1 FILE2 SECONDS [SEED]\n");
		return 2;
	}
	dev = argv[1];
	file1 = argv[2];
	file2 = argv[3];
	snprintf(sysdir, sizeof(sysdir), "/sys/block/%s",
		 strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev);
	seed = argc > 5 ? strtoull(argv[5], NULL, 0) : (uint64_t)time(NULL);
	seed |= 1;
	printf("torture: %s, %s s, seed %llu\n", dev, argv[4],
	       (unsigned long long)seed);
	fflush(stdout);

	targ[0] = seed;
	targ[1] = strtoul(argv[4], NULL, 0);
	for (i = 0; i < 2; i++) {
		ioarg[i][0] = seed * 2654435761u + i + 1;
		ioarg[i][1] = i;
		pthread_create(&io[i], NULL, io_thread, ioarg[i]);
	}
	pthread_create(&ctl, NULL, control, targ);

	/* Watchdog: nobody may sit in one call for STUCK_SECS. */
	while (!atomic_load(&stop)) {
		sleep(1);
		for (i = 0; i < 3; i++) {
			long t = atomic_load(&busy_since[i]);

			if (t && now() - t > STUCK_SECS) {
				fprintf(stderr, "torture: thread %d stuck in one call for %d s\n",
					i, STUCK_SECS);
				printf("torture: FAIL: a thread is stuck\n");
				fflush(stdout);
				_exit(1);
			}
		}
	}
	pthread_join(ctl, NULL);
	for (i = 0; i < 2; i++)
		pthread_join(io[i], NULL);
	if (atomic_load(&stop) == 2)
		why = "cannot open the device";

	for (i = 0; i < NR_OPS; i++)
		printf("op %-15s ok %7lu failed %7lu slowest %6lu ms\n",
		       op_names[i], op_ok[i], op_fail[i], op_max_ms[i]);
	for (i = 0; i < NR_IO; i++)
		printf("io %-15s ok %7lu failed %7lu\n", io_names[i],
		       atomic_load(&io_ok[i]), atomic_load(&io_fail[i]));

	/* Clear what the run left (autoclear may already have). */
	fd = open(dev, O_RDWR);
	if (fd >= 0) {
		ioctl(fd, LOOP_CLR_FD, 0);
		close(fd);
	}
	if (!why && final_check())
		why = "the device no longer works after the run";
	for (i = 0; i < 100 && is_bound(); i++)
		usleep(100000);
	if (!why && is_bound())
		why = "the device is still bound";
	if (why) {
		printf("torture: FAIL: %s\n", why);
		return 1;
	}
	printf("torture: PASS\n");
	return 0;
}
