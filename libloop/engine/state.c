// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Records of attached encrypted devices: LOOP_STATE_DIR/<id>/state, one
 * "key=value" line per field. The kernel knows only the loop device (on
 * the FUSE file, or under a dm-crypt mapping); these records are how a
 * later shell learns the real image, the cipher and the daemon behind it.
 * This file only reads, writes and removes them; state-walk.c judges them
 * against the engines.
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
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/private.h"
#include "engine/engine-private.h"

/* A directory without a record is an attach in progress for this long. */
#define ORPHAN_GRACE_SEC 60

/* The boot id cannot change under a running process: read it once. */
static char boot_id[64];
static int boot_id_rc;
static pthread_once_t boot_id_once = PTHREAD_ONCE_INIT;

static void boot_id_read(void)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	boot_id_rc = -ENOENT;
	if (!f) {
		boot_id_rc = -errno;
		return;
	}
	if (fgets(boot_id, sizeof(boot_id), f)) {
		boot_id[strcspn(boot_id, "\n")] = '\0';
		boot_id_rc = 0;
	}
	fclose(f);
}

int loop_boot_id(char *buf, size_t size)
{
	pthread_once(&boot_id_once, boot_id_read);
	if (boot_id_rc)
		return boot_id_rc;
	snprintf(buf, size, "%s", boot_id);
	return 0;
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
 * The one optional key, "ref", comes last and only when not empty, so
 * that records written before it existed still parse.
 */
enum rec_field {
	R_DEVICE, R_IMAGE, R_IMAGE_DEV, R_IMAGE_INO, R_OFFSET, R_SIZELIMIT,
	R_CIPHER, R_KEY_BITS, R_KEY_COUNT, R_ENCRYPT_TYPE, R_ENGINE,
	R_READ_ONLY, R_PID, R_PID_START, R_MOUNT, R_FUSE_DEV, R_FUSE_INO,
	R_BOOT_ID, R_REF, R_NFIELDS
};

static const char *const rec_keys[R_NFIELDS] = {
	"device", "image", "image_dev", "image_ino", "offset", "sizelimit",
	"cipher", "key_bits", "key_count", "encrypt_type", "engine",
	"read_only", "pid", "pid_start", "mount", "fuse_dev", "fuse_ino",
	"boot_id", "ref",
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
	if (st->ref[0])
		put_str(&b, R_REF, st->ref);
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
	/* written only when set: an empty one is not the writer's spelling */
	case R_REF: return n ? get_str(st->ref, sizeof(st->ref), val, n) : -EBADMSG;
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
	if (next < R_REF || !st->device[0])
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
	DBG(STATE, st->id, "record for %s (%s, %s): %s", st->device,
	    loop_engine_name(st->engine), st->image, rc ? strerror(-rc) : "written");
	return rc;
}

int loop_state_create(const struct loop_state *st)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%s", LOOP_STATE_DIR, st->id);
	int rc;

	if ((mkdir(LOOP_STATE_DIR, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(dir, 0700) < 0 && errno != EEXIST)) {
		rc = -errno;
		DBG(STATE, st->id, "mkdir %s: %s", dir, strerror(-rc));
		return rc;
	}
	return loop_state_write(st);
}

void loop_state_unlink(const struct loop_state *st)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, st->id);
	DBG(STATE, st->id, "record for %s removed", st->device);
	unlink(path);
	/* the record's own mount point, empty by now unless still mounted */
	snprintf(path, sizeof(path), "%s/%s/mnt", LOOP_STATE_DIR, st->id);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/%s", LOOP_STATE_DIR, st->id);
	rmdir(path);
}

int loop_state_dir_is_orphan(const char *id)
{
	char dir[PATH_MAX], state[PATH_MAX + 8];
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s/%s", LOOP_STATE_DIR, id);
	snprintf(state, sizeof(state), "%s/state", dir);
	return access(state, F_OK) < 0 && stat(dir, &sb) == 0 &&
	       time(NULL) - sb.st_mtime >= ORPHAN_GRACE_SEC;
}

int loop_state_each_id(int (*fn)(const char *id, void *data), void *data)
{
	struct dirent *de;
	DIR *d = opendir(LOOP_STATE_DIR);
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.')
			rc = fn(de->d_name, data);
	}
	closedir(d);
	return rc;
}
