// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Records of attached encrypted devices: LOOP_STATE_DIR/<id>/state, one
 * "key=value" line per field. The kernel knows only the loop device on
 * the FUSE file; these records are how a later shell learns the real
 * image, the cipher and the daemon behind it. A record is stale when its
 * device no longer holds what it says (detached behind our back, the
 * daemon gone, another boot); stale records are cleaned up on sight.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "private.h"
#include "engine-private.h"

/* A directory without a record is an attach in progress for this long. */
#define ORPHAN_GRACE_SEC 60

int loop_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	if (fgets(buf, (int)size, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		rc = 0;
	}
	fclose(f);
	return rc;
}

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

LIBLOOP_EXPORT int loop_state_daemon_alive(const struct loop_state *st)
{
	if (st->engine != LOOP_ENGINE_FUSE)
		return 1;
	return st->pid > 0 && loop_pid_start(st->pid) == st->pid_start;
}

static void set_str(char *dst, size_t size, const char *val)
{
	snprintf(dst, size, "%s", val);
}

/*
 * The record's text. Every value is percent-encoded: '%', control bytes,
 * DEL and bytes past ASCII become %XX, so that no value (an image path is
 * anything the user typed) can end its line or fake another key. The
 * reader takes a record only when every key is known, none repeats, all
 * are present and every value decodes and fits: anything else is a
 * corrupt record, and a corrupt record is left alone, never acted on.
 */
enum rec_field {
	R_DEVICE, R_IMAGE, R_IMAGE_DEV, R_IMAGE_INO, R_OFFSET, R_SIZELIMIT,
	R_CIPHER, R_KEY_BITS, R_KEY_COUNT, R_ENCRYPT_TYPE, R_ENGINE,
	R_READ_ONLY, R_PID, R_PID_START, R_MOUNT, R_FUSE_DEV, R_FUSE_INO,
	R_BOOT_ID, R_NFIELDS
};

static const char *const rec_keys[R_NFIELDS] = {
	"device", "image", "image_dev", "image_ino", "offset", "sizelimit",
	"cipher", "key_bits", "key_count", "encrypt_type", "engine",
	"read_only", "pid", "pid_start", "mount", "fuse_dev", "fuse_ino",
	"boot_id",
};

/* A record holds two paths and short fields; anything longer is not ours. */
#define RECORD_MAX (2 * 3 * PATH_MAX + 4096)

struct rec_buf {
	char *p;
	size_t size, len;
	int overflow;
};

static void rec_put(struct rec_buf *b, const char *s, size_t n)
{
	if (b->len + n >= b->size) {
		b->overflow = 1;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void put_str(struct rec_buf *b, enum rec_field f, const char *val)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *v = (const unsigned char *)val;
	char esc[3];

	rec_put(b, rec_keys[f], strlen(rec_keys[f]));
	rec_put(b, "=", 1);
	for (; *v; v++) {
		if (*v == '%' || *v < 0x20 || *v >= 0x7f) {
			esc[0] = '%';
			esc[1] = hex[*v >> 4];
			esc[2] = hex[*v & 15];
			rec_put(b, esc, 3);
		} else {
			rec_put(b, (const char *)v, 1);
		}
	}
	rec_put(b, "\n", 1);
}

static void put_num(struct rec_buf *b, enum rec_field f, uintmax_t val)
{
	char num[32];

	snprintf(num, sizeof(num), "%ju", val);
	put_str(b, f, num);
}

/*
 * loop_state_format - @st as record text in @buf (NUL terminated).
 * Returns the length, or -ENAMETOOLONG when it does not fit @size.
 */
int loop_state_format(const struct loop_state *st, char *buf, size_t size)
{
	struct rec_buf b = { buf, size, 0, 0 };

	if (!size)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	put_str(&b, R_DEVICE, st->device);
	put_str(&b, R_IMAGE, st->image);
	put_num(&b, R_IMAGE_DEV, st->image_dev);
	put_num(&b, R_IMAGE_INO, st->image_ino);
	put_num(&b, R_OFFSET, st->offset);
	put_num(&b, R_SIZELIMIT, st->sizelimit);
	put_str(&b, R_CIPHER, st->cipher);
	put_num(&b, R_KEY_BITS, st->key_bits);
	put_num(&b, R_KEY_COUNT, st->key_count);
	put_num(&b, R_ENCRYPT_TYPE, (unsigned int)st->encrypt_type);
	put_str(&b, R_ENGINE, loop_engine_name(st->engine));
	put_num(&b, R_READ_ONLY, (unsigned int)st->read_only);
	put_num(&b, R_PID, (unsigned long)st->pid);
	put_num(&b, R_PID_START, st->pid_start);
	put_str(&b, R_MOUNT, st->mount);
	put_num(&b, R_FUSE_DEV, st->fuse_dev);
	put_num(&b, R_FUSE_INO, st->fuse_ino);
	put_str(&b, R_BOOT_ID, st->boot_id);
	return b.overflow ? -ENAMETOOLONG : (int)b.len;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode @n bytes of @val into @dst (@size with its NUL); -EBADMSG if bad. */
static int get_str(char *dst, size_t size, const char *val, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)val[i];

		if (c == '%') {
			int hi, lo;

			if (n - i < 3)
				return -EBADMSG;
			hi = hexval(val[i + 1]);
			lo = hexval(val[i + 2]);
			if (hi < 0 || lo < 0)
				return -EBADMSG;
			c = hi << 4 | lo;
			/* only what the writer escapes may be escaped, and
			 * never a NUL: one spelling per value */
			if (!c || (c != '%' && c >= 0x20 && c < 0x7f))
				return -EBADMSG;
			i += 2;
		} else if (c < 0x20 || c >= 0x7f) {
			return -EBADMSG;
		}
		if (o + 1 >= size)
			return -EBADMSG;
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
	return 0;
}

/* Decimal digits only, no sign, no overflow, at most @max. */
static int get_num(uintmax_t *out, const char *val, size_t n, uintmax_t max)
{
	uintmax_t v = 0;
	size_t i;

	if (!n || n > 20 || (n > 1 && val[0] == '0'))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)val[i] - '0';

		if (d > 9 || v > (UINTMAX_MAX - d) / 10)
			return -EBADMSG;
		v = v * 10 + d;
	}
	if (v > max)
		return -EBADMSG;
	*out = v;
	return 0;
}

static int parse_field(struct loop_state *st, enum rec_field f, const char *val, size_t n)
{
	char name[16];
	uintmax_t v = 0;
	int rc = 0;

	switch (f) {
	case R_DEVICE: return get_str(st->device, sizeof(st->device), val, n);
	case R_IMAGE: return get_str(st->image, sizeof(st->image), val, n);
	case R_CIPHER: return get_str(st->cipher, sizeof(st->cipher), val, n);
	case R_MOUNT: return get_str(st->mount, sizeof(st->mount), val, n);
	case R_BOOT_ID: return get_str(st->boot_id, sizeof(st->boot_id), val, n);
	case R_ENGINE:
		if (get_str(name, sizeof(name), val, n) ||
		    loop_engine_parse(name, &st->engine) ||
		    st->engine == LOOP_ENGINE_AUTO ||
		    strcmp(name, loop_engine_name(st->engine)))
			return -EBADMSG;
		return 0;
	case R_IMAGE_DEV: rc = get_num(&v, val, n, (dev_t)-1); st->image_dev = (dev_t)v; break;
	case R_IMAGE_INO: rc = get_num(&v, val, n, (ino_t)-1); st->image_ino = (ino_t)v; break;
	case R_OFFSET: rc = get_num(&v, val, n, UINT64_MAX); st->offset = v; break;
	case R_SIZELIMIT: rc = get_num(&v, val, n, UINT64_MAX); st->sizelimit = v; break;
	case R_KEY_BITS: rc = get_num(&v, val, n, UINT_MAX); st->key_bits = (unsigned int)v; break;
	case R_KEY_COUNT: rc = get_num(&v, val, n, UINT_MAX); st->key_count = (unsigned int)v; break;
	case R_ENCRYPT_TYPE: rc = get_num(&v, val, n, INT_MAX); st->encrypt_type = (int)v; break;
	case R_READ_ONLY: rc = get_num(&v, val, n, 1); st->read_only = (int)v; break;
	case R_PID: rc = get_num(&v, val, n, INT_MAX); st->pid = (pid_t)v; break;
	case R_PID_START: rc = get_num(&v, val, n, ULLONG_MAX); st->pid_start = v; break;
	case R_FUSE_DEV: rc = get_num(&v, val, n, (dev_t)-1); st->fuse_dev = (dev_t)v; break;
	case R_FUSE_INO: rc = get_num(&v, val, n, (ino_t)-1); st->fuse_ino = (ino_t)v; break;
	default: return -EBADMSG;
	}
	return rc;
}

/*
 * loop_state_parse - record text (@len bytes, need not be terminated)
 * into @st; @st->id is kept. Returns 0, or -EBADMSG for a corrupt record:
 * an unknown, repeated, missing or misplaced key (the writer's order is
 * the only one), a value that does not decode or fit or is not spelled
 * as the writer spells it, a NUL byte, or a last line without its
 * newline (cut short). So a record that parses formats back to itself.
 */
int loop_state_parse(struct loop_state *st, const char *buf, size_t len)
{
	char id[sizeof(st->id)];
	int next = 0;
	const char *p = buf, *end = buf + len;
	int rc;

	memcpy(id, st->id, sizeof(id));
	memset(st, 0, sizeof(*st));
	memcpy(st->id, id, sizeof(id));
	if (len > RECORD_MAX || memchr(buf, '\0', len))
		return -EBADMSG;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq;
		size_t klen;
		int f;

		if (!nl)
			return -EBADMSG;
		eq = memchr(p, '=', (size_t)(nl - p));
		if (!eq)
			return -EBADMSG;
		klen = (size_t)(eq - p);
		for (f = 0; f < R_NFIELDS; f++)
			if (strlen(rec_keys[f]) == klen && !memcmp(rec_keys[f], p, klen))
				break;
		if (f != next)
			return -EBADMSG;
		next++;
		rc = parse_field(st, (enum rec_field)f, eq + 1, (size_t)(nl - eq - 1));
		if (rc)
			return -EBADMSG;
		p = nl + 1;
	}
	if (next != R_NFIELDS || !st->device[0])
		return -EBADMSG;
	return 0;
}

int loop_state_read(const char *id, struct loop_state *st)
{
	char path[PATH_MAX], *buf;
	ssize_t n;
	size_t len = 0;
	int fd, rc;

	memset(st, 0, sizeof(*st));
	set_str(st->id, sizeof(st->id), id);
	snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, id);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	buf = malloc(RECORD_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	/* one byte more than a record may hold: a longer file is corrupt */
	while (len <= RECORD_MAX) {
		n = read(fd, buf + len, RECORD_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	rc = n < 0 ? -errno : loop_state_parse(st, buf, len);
	close(fd);
	free(buf);
	return rc;
}

int loop_state_write(const struct loop_state *st)
{
	char path[PATH_MAX + 128], tmp[PATH_MAX + 160], *buf;
	FILE *f;
	int rc = 0, len;

	buf = malloc(RECORD_MAX);
	if (!buf)
		return -ENOMEM;
	len = loop_state_format(st, buf, RECORD_MAX);
	if (len < 0) {
		free(buf);
		return len;
	}
	snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, st->id);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f) {
		rc = -errno;
		free(buf);
		return rc;
	}
	if (fwrite(buf, 1, (size_t)len, f) != (size_t)len)
		rc = -EIO;
	free(buf);
	if (fflush(f) || fsync(fileno(f)))
		rc = rc ? rc : -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

/* 1 when the device still holds what the record says, 0 when not. */
static int device_matches(const struct loop_state *st)
{
	struct loopdev *ld;
	char *file = NULL, expect[PATH_MAX + 8];
	int ok = 0;

	if (loopdev_new(&ld))
		return 1;	/* cannot tell: keep the record */
	if (loopdev_set_device(ld, st->device) == 0 &&
	    loopdev_get_backing_file(ld, &file) == 0) {
		if (st->engine == LOOP_ENGINE_FUSE) {
			dev_t dev = 0;
			ino_t ino = 0;

			snprintf(expect, sizeof(expect), "%s/%s", st->mount, LOOP_FUSE_FILE);
			ok = !strcmp(file, expect);
			/* a lazily unmounted file loses its path, not its identity */
			if (!ok && st->fuse_dev &&
			    loopdev_get_backing_dev(ld, &dev, &ino) == 0)
				ok = dev == st->fuse_dev && ino == st->fuse_ino;
		} else {
			ok = !strcmp(file, st->image);
		}
	}
	free(file);
	loopdev_free(ld);
	return ok;
}

int loop_state_is_stale(const struct loop_state *st)
{
	char boot[40];

	if (loop_boot_id(boot, sizeof(boot)) == 0 && strcmp(boot, st->boot_id))
		return 1;
	return !device_matches(st);
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
static int record_owns_mount(const struct loop_state *st)
{
	char want[PATH_MAX];

	if (!st->id[0] || strchr(st->id, '/') || st->id[0] == '.')
		return 0;
	snprintf(want, sizeof(want), "%s/%s/mnt", LOOP_STATE_DIR, st->id);
	return !strcmp(st->mount, want);
}

static int exe_is_daemon(pid_t pid)
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
	return record_owns_mount(st) && loop_pid_start(st->pid) == st->pid_start &&
	       exe_is_daemon(st->pid);
}

/* Everything a record stands for, except the loop device, goes away:
 * only what the record proves to be its own (see above). */
void loop_state_remove(const struct loop_state *st)
{
	char path[PATH_MAX];

	if (st->engine == LOOP_ENGINE_FUSE) {
		if (loop_state_proves_daemon(st))
			loop_fuse_stop_daemon(st);
		/* a daemon killed with -9 could not take its pid out of the
		 * shutdown scripts' spare list: do it, unless that pid runs a
		 * daemon again */
		if (st->pid > 0 && !exe_is_daemon(st->pid)) {
			snprintf(path, sizeof(path), "/run/sendsigs.omit.d/cryptoloop-fuse.%ld",
				 (long)st->pid);
			unlink(path);
		}
		if (st->mount[0] && record_owns_mount(st)) {
			loop_fuse_unmount(st->mount);
			rmdir(st->mount);
		}
	}
	snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, st->id);
	unlink(path);
	/* the record's own mount point, empty by now unless still mounted */
	snprintf(path, sizeof(path), "%s/%s/mnt", LOOP_STATE_DIR, st->id);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/%s", LOOP_STATE_DIR, st->id);
	rmdir(path);
}

/* A directory whose attach never finished (the process died midway). */
static void clean_orphan_dir(const char *id)
{
	char dir[PATH_MAX], mnt[PATH_MAX + 8], state[PATH_MAX + 8];
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s/%s", LOOP_STATE_DIR, id);
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	if (access(state, F_OK) == 0 || stat(dir, &sb) < 0 ||
	    time(NULL) - sb.st_mtime < ORPHAN_GRACE_SEC)
		return;
	loop_fuse_unmount(mnt);
	rmdir(mnt);
	rmdir(dir);
}

/* Walk the records; with @fn NULL just collect the garbage. A corrupt
 * record is left alone (with its daemon and mount): @corrupt hears of it. */
static int walk(int (*fn)(const struct loop_state *st, void *data), void *data,
		int *removed, int (*corrupt)(const char *path, void *data))
{
	struct loop_state *st;
	struct dirent *de;
	DIR *d = opendir(LOOP_STATE_DIR);
	int rc = 0, r;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	st = malloc(sizeof(*st));
	if (!st) {
		closedir(d);
		return -ENOMEM;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		r = loop_state_read(de->d_name, st);
		if (r == -EBADMSG) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR,
				 de->d_name);
			if (corrupt)
				rc = corrupt(path, data);
			continue;
		}
		if (r < 0) {
			clean_orphan_dir(de->d_name);
			continue;
		}
		if (loop_state_is_stale(st)) {
			loop_state_remove(st);
			if (removed)
				(*removed)++;
			continue;
		}
		if (fn)
			rc = fn(st, data);
	}
	free(st);
	closedir(d);
	return rc;
}

LIBLOOP_EXPORT int loop_state_foreach(int (*fn)(const struct loop_state *st, void *data),
				      void *data)
{
	return walk(fn, data, NULL, NULL);
}

LIBLOOP_EXPORT int loop_state_foreach_corrupt(int (*fn)(const char *path, void *data),
					      void *data)
{
	return walk(NULL, data, NULL, fn);
}

LIBLOOP_EXPORT int loop_state_gc(void)
{
	int removed = 0, rc = walk(NULL, NULL, &removed, NULL);

	return rc < 0 ? rc : removed;
}

struct lookup_ctx {
	const char *device;
	struct loop_state *out;
};

static int lookup_cb(const struct loop_state *st, void *data)
{
	struct lookup_ctx *l = data;

	if (strcmp(st->device, l->device))
		return 0;
	*l->out = *st;
	return 1;
}

LIBLOOP_EXPORT int loop_state_lookup(struct loopdev *ld, struct loop_state *st)
{
	struct lookup_ctx l = { loopdev_get_path(ld), st };
	int rc;

	if (!l.device)
		return -EINVAL;
	rc = walk(lookup_cb, &l, NULL, NULL);
	if (rc < 0)
		return rc;
	return rc == 1 ? 0 : -ENOENT;
}
