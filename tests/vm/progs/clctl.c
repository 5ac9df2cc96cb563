// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * clctl: issue the loop ioctls to /dev/cryptoloopN (or /dev/loopN) for the
 * VM tests, before the project's losetup knows the kmod engine.
 *
 *   clctl attach DEV FILE [opts]   LOOP_CONFIGURE (or --set-fd: LOOP_SET_FD
 *                                  then LOOP_SET_STATUS64)
 *       --cipher NAME   lo_crypt_name            --type N   lo_encrypt_type
 *       --key FILE      raw key bytes (whole file, up to 32)
 *       --key-size N    lo_encrypt_key_size (default: bytes in --key)
 *       --offset N --sizelimit N --init N --block-size N
 *       --ro --autoclear --partscan --dio --set-fd --old-status
 *   clctl cycle DEV FILE N [opts]   N times: LOOP_CONFIGURE, on every tenth
 *                                  a 256 KiB O_DIRECT write and read-back
 *                                  check, LOOP_CLR_FD (one process, so a
 *                                  leak test is not dominated by forks)
 *   clctl multikey DEV KEYS         LOOP_MULTI_KEY_SETUP(_V3): KEYS holds
 *                                  64 or 65 32-byte slots
 *   clctl setstatus DEV [opts]      LOOP_SET_STATUS64 with the same options
 *   clctl detach DEV                LOOP_CLR_FD
 *   clctl status DEV                LOOP_GET_STATUS64, one field a line
 *   clctl capacity DEV | dio DEV 0|1 | blocksize DEV N
 *   clctl add N | remove N | getfree    on /dev/cryptoloop-control
 *
 * Exit status: 0, or 1 with "clctl: OP: strerror" on stderr.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MULTI_KEY_SETUP		0x4C4D
#define MULTI_KEY_SETUP_V3	0x4C4E
#define CONTROL			"/dev/cryptoloop-control"

static int fail(const char *what)
{
	fprintf(stderr, "clctl: %s: %s\n", what, strerror(errno));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "clctl: bad usage, see the comment in clctl.c\n");
	return 2;
}

static int read_file(const char *path, unsigned char *buf, size_t max,
		     size_t *len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, max);
	close(fd);
	if (n < 0)
		return -1;
	*len = n;
	return 0;
}

struct opts {
	struct loop_info64 info;
	unsigned int block_size;
	int set_fd, old_status, key_size_given;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--ro")) {
			o->info.lo_flags |= LO_FLAGS_READ_ONLY;
		} else if (!strcmp(a, "--autoclear")) {
			o->info.lo_flags |= LO_FLAGS_AUTOCLEAR;
		} else if (!strcmp(a, "--partscan")) {
			o->info.lo_flags |= LO_FLAGS_PARTSCAN;
		} else if (!strcmp(a, "--dio")) {
			o->info.lo_flags |= LO_FLAGS_DIRECT_IO;
		} else if (!strcmp(a, "--set-fd")) {
			o->set_fd = 1;
		} else if (!strcmp(a, "--old-status")) {
			o->old_status = 1;
		} else if (!v) {
			return -1;
		} else if (!strcmp(a, "--cipher")) {
			strncpy((char *)o->info.lo_crypt_name, v, LO_NAME_SIZE - 1);
			if (!o->info.lo_encrypt_type)
				o->info.lo_encrypt_type = LO_CRYPT_CRYPTOAPI;
			i++;
		} else if (!strcmp(a, "--type")) {
			o->info.lo_encrypt_type = strtoul(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--key")) {
			size_t len;

			if (read_file(v, o->info.lo_encrypt_key, LO_KEY_SIZE,
				      &len))
				return -1;
			if (!o->key_size_given)
				o->info.lo_encrypt_key_size = len;
			i++;
		} else if (!strcmp(a, "--key-size")) {
			o->info.lo_encrypt_key_size = strtoul(v, NULL, 0);
			o->key_size_given = 1;
			i++;
		} else if (!strcmp(a, "--offset")) {
			o->info.lo_offset = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--sizelimit")) {
			o->info.lo_sizelimit = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--init")) {
			o->info.lo_init[0] = strtoll(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--block-size")) {
			o->block_size = strtoul(v, NULL, 0);
			i++;
		} else {
			return -1;
		}
	}
	return 0;
}

static int set_status(int fd, struct opts *o)
{
	if (o->old_status) {
		struct loop_info old;

		memset(&old, 0, sizeof(old));
		old.lo_offset = o->info.lo_offset;
		old.lo_encrypt_type = o->info.lo_encrypt_type;
		old.lo_encrypt_key_size = o->info.lo_encrypt_key_size;
		old.lo_flags = o->info.lo_flags;
		old.lo_init[0] = o->info.lo_init[0];
		memcpy(old.lo_encrypt_key, o->info.lo_encrypt_key, LO_KEY_SIZE);
		/* The old struct names the cipher in lo_name. */
		memcpy(old.lo_name, o->info.lo_crypt_name, LO_NAME_SIZE);
		return ioctl(fd, LOOP_SET_STATUS, &old);
	}
	return ioctl(fd, LOOP_SET_STATUS64, &o->info);
}

static int cmd_attach(int argc, char **argv)
{
	struct loop_config cfg;
	struct opts o;
	int fd, ffd, ro;

	if (argc < 2 || parse_opts(argc - 2, argv + 2, &o))
		return usage();
	ro = o.info.lo_flags & LO_FLAGS_READ_ONLY;
	fd = open(argv[0], ro ? O_RDONLY : O_RDWR);
	if (fd < 0)
		return fail(argv[0]);
	ffd = open(argv[1], ro ? O_RDONLY : O_RDWR);
	if (ffd < 0)
		return fail(argv[1]);
	strncpy((char *)o.info.lo_file_name, argv[1], LO_NAME_SIZE - 1);

	if (o.set_fd) {
		if (ioctl(fd, LOOP_SET_FD, ffd))
			return fail("LOOP_SET_FD");
		if (set_status(fd, &o)) {
			int e = errno;

			ioctl(fd, LOOP_CLR_FD, 0);
			errno = e;
			return fail("LOOP_SET_STATUS");
		}
		if (o.block_size && ioctl(fd, LOOP_SET_BLOCK_SIZE,
					  (unsigned long)o.block_size))
			return fail("LOOP_SET_BLOCK_SIZE");
	} else {
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = ffd;
		cfg.block_size = o.block_size;
		cfg.info = o.info;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg))
			return fail("LOOP_CONFIGURE");
	}
	memset(&o, 0, sizeof(o));
	memset(&cfg, 0, sizeof(cfg));
	return 0;
}

static int cmd_cycle(int argc, char **argv)
{
	struct loop_config cfg;
	struct opts o;
	unsigned char *buf, *back;
	long i, n;
	int fd, ffd, dfd;

	if (argc < 3 || parse_opts(argc - 3, argv + 3, &o))
		return usage();
	n = strtol(argv[2], NULL, 0);
	if (posix_memalign((void **)&buf, 4096, 262144) ||
	    posix_memalign((void **)&back, 4096, 262144))
		return fail("posix_memalign");
	for (i = 0; i < 262144; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	for (i = 0; i < n; i++) {
		fd = open(argv[0], O_RDWR);
		if (fd < 0)
			return fail(argv[0]);
		ffd = open(argv[1], O_RDWR);
		if (ffd < 0)
			return fail(argv[1]);
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = ffd;
		cfg.info = o.info;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg))
			return fail("LOOP_CONFIGURE");
		close(ffd);
		if (i % 10 == 9) {
			dfd = open(argv[0], O_RDWR | O_DIRECT);
			if (dfd < 0)
				return fail(argv[0]);
			if (pwrite(dfd, buf, 262144, 0) != 262144)
				return fail("pwrite");
			if (pread(dfd, back, 262144, 0) != 262144)
				return fail("pread");
			if (memcmp(buf, back, 262144)) {
				fprintf(stderr, "clctl: read back differs\n");
				return 1;
			}
			close(dfd);
		}
		if (ioctl(fd, LOOP_CLR_FD, 0))
			return fail("LOOP_CLR_FD");
		close(fd);
	}
	free(buf);
	free(back);
	return 0;
}

static int cmd_setstatus(int argc, char **argv)
{
	struct opts o;
	int fd;

	if (argc < 1 || parse_opts(argc - 1, argv + 1, &o))
		return usage();
	fd = open(argv[0], O_RDWR);
	if (fd < 0)
		return fail(argv[0]);
	if (set_status(fd, &o))
		return fail("LOOP_SET_STATUS64");
	return 0;
}

static int cmd_multikey(int argc, char **argv)
{
	unsigned char keys[65 * 32];
	size_t len;
	int fd;

	if (argc != 2)
		return usage();
	memset(keys, 0, sizeof(keys));
	if (read_file(argv[1], keys, sizeof(keys), &len))
		return fail(argv[1]);
	if (len != 64 * 32 && len != 65 * 32) {
		fprintf(stderr, "clctl: %s: need 64 or 65 slots of 32 bytes\n",
			argv[1]);
		return 1;
	}
	fd = open(argv[0], O_RDWR);
	if (fd < 0)
		return fail(argv[0]);
	if (ioctl(fd, len == 65 * 32 ? MULTI_KEY_SETUP_V3 : MULTI_KEY_SETUP,
		  keys))
		return fail("LOOP_MULTI_KEY_SETUP");
	memset(keys, 0, sizeof(keys));
	return 0;
}

static int cmd_status(int argc, char **argv)
{
	struct loop_info64 info;
	int fd, i;

	if (argc != 1)
		return usage();
	/* Read-only open: what an unprivileged user of the node can do. */
	fd = open(argv[0], O_RDONLY);
	if (fd < 0)
		return fail(argv[0]);
	memset(&info, 0xa5, sizeof(info));
	if (ioctl(fd, LOOP_GET_STATUS64, &info))
		return fail("LOOP_GET_STATUS64");
	printf("number %u\n", info.lo_number);
	printf("device %llu\n", (unsigned long long)info.lo_device);
	printf("inode %llu\n", (unsigned long long)info.lo_inode);
	printf("offset %llu\n", (unsigned long long)info.lo_offset);
	printf("sizelimit %llu\n", (unsigned long long)info.lo_sizelimit);
	printf("flags 0x%x\n", info.lo_flags);
	printf("encrypt_type %u\n", info.lo_encrypt_type);
	printf("key_size %u\n", info.lo_encrypt_key_size);
	printf("file_name %.64s\n", (char *)info.lo_file_name);
	printf("crypt_name %.64s\n", (char *)info.lo_crypt_name);
	printf("init %lld %lld\n", (long long)info.lo_init[0],
	       (long long)info.lo_init[1]);
	printf("key ");
	for (i = 0; i < LO_KEY_SIZE; i++)
		printf("%02x", info.lo_encrypt_key[i]);
	printf("\n");
	return 0;
}

static int simple_ioctl(const char *dev, unsigned long req, unsigned long arg,
			const char *what)
{
	int fd = open(dev, O_RDWR);

	if (fd < 0)
		return fail(dev);
	if (ioctl(fd, req, arg))
		return fail(what);
	return 0;
}

static int control(unsigned long req, long arg, const char *what)
{
	int fd = open(CONTROL, O_RDWR);
	int r;

	if (fd < 0)
		return fail(CONTROL);
	r = ioctl(fd, req, arg);
	if (r < 0)
		return fail(what);
	printf("%d\n", r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	argc -= 2;
	argv += 2;
	if (!strcmp(cmd, "attach"))
		return cmd_attach(argc, argv);
	if (!strcmp(cmd, "cycle"))
		return cmd_cycle(argc, argv);
	if (!strcmp(cmd, "setstatus"))
		return cmd_setstatus(argc, argv);
	if (!strcmp(cmd, "multikey"))
		return cmd_multikey(argc, argv);
	if (!strcmp(cmd, "status"))
		return cmd_status(argc, argv);
	if (!strcmp(cmd, "detach") && argc == 1)
		return simple_ioctl(argv[0], LOOP_CLR_FD, 0, "LOOP_CLR_FD");
	if (!strcmp(cmd, "capacity") && argc == 1)
		return simple_ioctl(argv[0], LOOP_SET_CAPACITY, 0,
				    "LOOP_SET_CAPACITY");
	if (!strcmp(cmd, "dio") && argc == 2)
		return simple_ioctl(argv[0], LOOP_SET_DIRECT_IO,
				    strtoul(argv[1], NULL, 0),
				    "LOOP_SET_DIRECT_IO");
	if (!strcmp(cmd, "blocksize") && argc == 2)
		return simple_ioctl(argv[0], LOOP_SET_BLOCK_SIZE,
				    strtoul(argv[1], NULL, 0),
				    "LOOP_SET_BLOCK_SIZE");
	if (!strcmp(cmd, "add") && argc == 1)
		return control(LOOP_CTL_ADD, strtol(argv[0], NULL, 0),
			       "LOOP_CTL_ADD");
	if (!strcmp(cmd, "remove") && argc == 1)
		return control(LOOP_CTL_REMOVE, strtol(argv[0], NULL, 0),
			       "LOOP_CTL_REMOVE");
	if (!strcmp(cmd, "getfree") && argc == 0)
		return control(LOOP_CTL_GET_FREE, 0, "LOOP_CTL_GET_FREE");
	return usage();
}
