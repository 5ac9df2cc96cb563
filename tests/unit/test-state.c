// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The engine's state records: values are encoded so that no image path
 * can end its line or fake a key; a record with an unknown, repeated or
 * missing key, or a value that does not decode, is corrupt; and a record
 * proves its daemon only with the same boot id, a live pid whose
 * /proc/PID/exe is cryptoloop-fuse, and a mount in its own directory.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libloop.h"
#include "engine/engine-private.h"
#include "tap.h"

static char buf[3 * 8192 * 3];

static void sample(struct loop_state *st)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->id, sizeof(st->id), "fuse.abcdef");
	snprintf(st->device, sizeof(st->device), "/dev/loop5");
	snprintf(st->image, sizeof(st->image), "/srv/images/disk.img");
	st->image_dev = 65024;
	st->image_ino = 1234567;
	st->offset = 1048576;
	st->sizelimit = 0;
	snprintf(st->cipher, sizeof(st->cipher), "AES128");
	st->key_bits = 128;
	st->key_count = 1;
	st->encrypt_type = 18;
	st->engine = LOOP_ENGINE_FUSE;
	st->read_only = 0;
	st->pid = 4242;
	st->pid_start = 987654;
	snprintf(st->mount, sizeof(st->mount), "%s/fuse.abcdef/mnt", LOOP_STATE_DIR);
	st->fuse_dev = 77;
	st->fuse_ino = 1;
	snprintf(st->boot_id, sizeof(st->boot_id), "0b7d3f4e-1111-2222-3333-444455556666");
}

static int parse_text(const char *text, struct loop_state *st)
{
	memset(st, 0, sizeof(*st));
	return loop_state_parse(st, text, strlen(text));
}

/* The sample's record text with line @key replaced by @line (NULL: dropped). */
static const char *edited(const char *key, const char *line)
{
	static char out[sizeof(buf)];
	struct loop_state st;
	char *p, *nl;
	size_t klen = strlen(key);

	sample(&st);
	loop_state_format(&st, buf, sizeof(buf));
	out[0] = '\0';
	for (p = buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			if (line)
				strcat(strcat(out, line), "\n");
		} else {
			strncat(out, p, (size_t)(nl - p + 1));
		}
	}
	return out;
}

static void test_round_trip(void)
{
	struct loop_state a, b;
	int n, lines = 0;
	char *p;

	sample(&a);
	n = loop_state_format(&a, buf, sizeof(buf));
	ok(n > 0 && (size_t)n == strlen(buf), "a record formats (%d bytes)", n);
	b.id[0] = '\0';
	snprintf(b.id, sizeof(b.id), "fuse.abcdef");
	ok(loop_state_parse(&b, buf, (size_t)n) == 0, "and parses back");
	ok(!memcmp(&a, &b, sizeof(a)), "to the same record");

	/* the audit's path: a newline, then a key of its own */
	snprintf(a.image, sizeof(a.image), "/x/evil\ndevice=bogus%%41=\x01\xff");
	n = loop_state_format(&a, buf, sizeof(buf));
	for (p = buf; (p = strchr(p, '\n')); p++)
		lines++;
	ok(lines == 18, "an image path with a newline stays on its line (%d lines)", lines);
	ok(!strstr(buf, "\ndevice=bogus"), "and fakes no device= line");
	ok(strstr(buf, "image=/x/evil%0Adevice=bogus%2541=%01%FF\n") != NULL,
	   "newline, '%%', control and 8-bit bytes are %%XX");
	memset(&b, 0, sizeof(b));
	snprintf(b.id, sizeof(b.id), "fuse.abcdef");
	ok(loop_state_parse(&b, buf, (size_t)n) == 0 && !strcmp(b.image, a.image) &&
	   !strcmp(b.device, "/dev/loop5"), "and decodes to the same path, device unchanged");

	/* --loop-ref: an optional last line, only when given */
	ok(!strstr(buf, "\nref="), "no reference: no ref= line (records before it parse)");
	sample(&a);
	snprintf(a.ref, sizeof(a.ref), "my ref\n%%");
	n = loop_state_format(&a, buf, sizeof(buf));
	ok(n > 0 && strstr(buf, "\nboot_id=") < strstr(buf, "\nref=my ref%0A%25\n"),
	   "a reference: encoded, after boot_id");
	memset(&b, 0, sizeof(b));
	snprintf(b.id, sizeof(b.id), "fuse.abcdef");
	ok(loop_state_parse(&b, buf, (size_t)n) == 0 && !memcmp(&a, &b, sizeof(a)),
	   "and parses back to the same record");
	is_str(loop_state_get_ref(&b), "my ref\n%", "loop_state_get_ref() reads it");

	/* too long to be a record of ours */
	ok(loop_state_format(&a, buf, 64) == -ENAMETOOLONG, "a small buffer: -ENAMETOOLONG");
}

static void test_corrupt(void)
{
	static const struct {
		const char *key, *line, *what;
	} cases[] = {
		{ "device", "device=/dev/loop5\ndevice=bogus", "a repeated key" },
		{ "image", "image=/x/evil\ndevice=bogus", "a raw newline faking a key" },
		{ "image", "image=/a\nimage=/b", "a repeated image" },
		{ "fuse_ino", "fuse_ino=1\nflavour=vanilla", "an unknown key" },
		{ "boot_id", NULL, "a missing key" },
		{ "device", "device=", "an empty device" },
		{ "pid", "pid=-1", "a negative pid" },
		{ "pid", "pid=+42", "a signed number" },
		{ "pid", "pid=042", "a leading zero" },
		{ "pid", "pid=4294967296", "a pid past int" },
		{ "offset", "offset=18446744073709551616", "an offset past 64 bits" },
		{ "offset", "offset=12 ", "trailing junk after a number" },
		{ "read_only", "read_only=2", "read_only other than 0/1" },
		{ "engine", "engine=auto", "engine auto" },
		{ "engine", "engine=warp", "an unknown engine" },
		{ "image", "image=/x%4", "a cut escape" },
		{ "image", "image=/x%zz", "a bad escape" },
		{ "image", "image=/x%41", "an escaped printable (two spellings)" },
		{ "image", "image=/x%00y", "an escaped NUL" },
		{ "image", "image=/x\ty", "a raw control byte" },
		{ "cipher", "cipher=0123456789012345678901234567890123456789", "a value too long" },
		{ "mount", "mount", "a line without '='" },
		{ "engine", "engine=FUSE", "an engine not spelled as written" },
		{ "boot_id", "boot_id=x\nref=", "an empty ref (never written)" },
		{ "boot_id", "boot_id=x\nref=a\nref=b", "a repeated ref" },
		{ "fuse_ino", "fuse_ino=1\nref=a", "a ref before the last key" },
		{ "boot_id", "boot_id=x\nref=0123456789012345678901234567890123456789012345678901234567890123",
		  "a ref past the kernel's 63 bytes" },
	};
	struct loop_state st;
	const char *text;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(parse_text(edited(cases[i].key, cases[i].line), &st) == -EBADMSG,
		   "corrupt: %s", cases[i].what);
	/* every key once, but not in the writer's order */
	{
		static char moved[sizeof(buf)];

		snprintf(moved, sizeof(moved), "%sdevice=/dev/loop5\n", edited("device", NULL));
		ok(parse_text(moved, &st) == -EBADMSG, "corrupt: keys out of the writer's order");
	}
	text = edited("boot_id", "boot_id=x");
	ok(loop_state_parse(&st, text, strlen(text) - 1) == -EBADMSG,
	   "corrupt: the last line cut short (no newline)");
	text = edited("boot_id", "boot_id=x");
	memcpy(buf, text, strlen(text) + 1);
	buf[3] = '\0';
	ok(loop_state_parse(&st, buf, strlen(text)) == -EBADMSG, "corrupt: a NUL byte");
	ok(parse_text("", &st) == -EBADMSG, "corrupt: empty");
	ok(parse_text(edited("pid", "pid=0"), &st) == 0, "pid 0 (kmod) is fine");
}

/* A copy of sleep(1) named cryptoloop-fuse in @dir: a process whose
 * /proc/PID/exe looks like the daemon's. Its pid, or -1. */
static pid_t fake_daemon(const char *dir, char *path, size_t size)
{
	char data[65536];
	ssize_t n;
	int in, out, i;
	pid_t pid;

	snprintf(path, size, "%s/cryptoloop-fuse", dir);
	in = open("/bin/sleep", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0700);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, data, sizeof(data))) > 0)
		if (write(out, data, (size_t)n) != n)
			n = -1;
	close(in);
	if (close(out) || n < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		execl(path, "cryptoloop-fuse", "60", (char *)NULL);
		_exit(127);
	}
	/* until the exec shows in /proc/PID/exe */
	for (i = 0; pid > 0 && i < 200 && !loop_pid_is_daemon(pid); i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	return pid;
}

/*
 * Each proof on its own: a record that is right in everything (same
 * boot, a live cryptoloop-fuse with its start time, the mount in its own
 * directory) proves its daemon; wrong in any one thing, it does not.
 * Without the record that proves, a check that was dropped would go
 * unnoticed behind the others.
 */
static void test_proof_each(const char *boot)
{
	char dir[] = "test-state.XXXXXX", path[PATH_MAX];
	struct loop_state good, st;
	pid_t pid;

	if (!mkdtemp(dir)) {
		ok(0, "cannot make a directory for the stand-in daemon");
		return;
	}
	pid = fake_daemon(dir, path, sizeof(path));
	ok(pid > 0 && loop_pid_is_daemon(pid), "a stand-in cryptoloop-fuse runs (pid %ld)",
	   (long)pid);
	sample(&good);
	snprintf(good.boot_id, sizeof(good.boot_id), "%s", boot);
	good.pid = pid;
	good.pid_start = pid > 0 ? loop_pid_start(pid) : 0;
	ok(loop_state_proves_daemon(&good), "the right boot, daemon, start time and own mount: "
	   "proven");

	st = good;
	snprintf(st.boot_id, sizeof(st.boot_id), "0b7d3f4e-1111-2222-3333-444455556666");
	ok(!loop_state_proves_daemon(&st), "only the boot id wrong: not proven");
	st = good;
	snprintf(st.mount, sizeof(st.mount), "/mnt");
	ok(!loop_state_proves_daemon(&st), "only the mount outside the record's directory: "
	   "not proven");
	st = good;
	snprintf(st.mount, sizeof(st.mount), "%s/fuse.abcdef/../../mnt", LOOP_STATE_DIR);
	ok(!loop_state_proves_daemon(&st), "only the mount climbing out of it: not proven");
	st = good;
	snprintf(st.id, sizeof(st.id), "fuse.other");
	ok(!loop_state_proves_daemon(&st), "only the mount in another record's directory: "
	   "not proven");
	st = good;
	st.pid_start++;
	ok(!loop_state_proves_daemon(&st), "only the start time wrong (a reused pid): not proven");
	st = good;
	st.engine = LOOP_ENGINE_KMOD;
	ok(!loop_state_proves_daemon(&st), "only the engine not fuse: not proven");

	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	unlink(path);
	rmdir(dir);
}

static void test_proof(void)
{
	struct loop_state st;
	char boot[40];
	FILE *f;

	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	ok(f && fgets(boot, sizeof(boot), f), "boot id readable");
	if (f)
		fclose(f);
	boot[strcspn(boot, "\n")] = '\0';

	/* a live process that is not the daemon: this test, with its real
	 * start time, the right boot and mount */
	sample(&st);
	snprintf(st.boot_id, sizeof(st.boot_id), "%s", boot);
	st.pid = getpid();
	st.pid_start = loop_pid_start(st.pid);
	ok(st.pid_start > 0, "our own start time is known");
	ok(!loop_state_proves_daemon(&st), "a live pid whose exe is not cryptoloop-fuse proves nothing");
	st.pid = 1;
	st.pid_start = loop_pid_start(1);
	ok(!loop_state_proves_daemon(&st), "nor does pid 1");

	sample(&st);
	snprintf(st.boot_id, sizeof(st.boot_id), "%s", boot);
	snprintf(st.mount, sizeof(st.mount), "/mnt");
	ok(!loop_state_proves_daemon(&st), "a mount outside the record's directory proves nothing");
	snprintf(st.mount, sizeof(st.mount), "%s/fuse.abcdef/../../mnt", LOOP_STATE_DIR);
	ok(!loop_state_proves_daemon(&st), "nor one that climbs out of it");
	sample(&st);
	ok(!loop_state_proves_daemon(&st), "another boot's record proves nothing");
	test_proof_each(boot);
}

/* What users of the opaque struct read: each accessor its own field. */
static void test_accessors(void)
{
	struct loop_state *st = NULL;
	struct loop_state a;
	char mnt[64];
	int n;

	ok(loop_state_new(NULL) == -EINVAL, "loop_state_new(NULL): -EINVAL");
	ok(loop_state_new(&st) == 0 && st, "loop_state_new");
	if (!st)
		return;
	is_str(loop_state_get_device(st), "", "a new record is empty");
	sample(&a);
	*st = a;
	is_str(loop_state_get_id(st), "fuse.abcdef", "id");
	is_str(loop_state_get_device(st), "/dev/loop5", "device");
	is_str(loop_state_get_image(st), "/srv/images/disk.img", "image");
	is_u64(loop_state_get_image_dev(st), 65024, "image_dev");
	is_u64(loop_state_get_image_ino(st), 1234567, "image_ino");
	is_u64(loop_state_get_offset(st), 1048576, "offset");
	is_u64(loop_state_get_sizelimit(st), 0, "sizelimit");
	is_str(loop_state_get_cipher(st), "AES128", "cipher");
	is_u64(loop_state_get_key_bits(st), 128, "key_bits");
	is_u64(loop_state_get_key_count(st), 1, "key_count");
	is_u64(loop_state_get_encrypt_type(st), 18, "encrypt_type");
	ok(loop_state_get_engine(st) == LOOP_ENGINE_FUSE, "engine");
	ok(loop_state_is_readonly(st) == 0, "read-write");
	is_u64(loop_state_get_pid(st), 4242, "pid");
	snprintf(mnt, sizeof(mnt), "%s/fuse.abcdef/mnt", LOOP_STATE_DIR);
	is_str(loop_state_get_mount(st), mnt, "mount");
	/* the id is the record's directory, not a line of it */
	a.read_only = 1;
	a.sizelimit = 4096;
	n = loop_state_format(&a, buf, sizeof(buf));
	ok(n > 0 && loop_state_parse(st, buf, (size_t)n) == 0 &&
	   loop_state_is_readonly(st) == 1 && loop_state_get_sizelimit(st) == 4096,
	   "read-only, sizelimit 4096");
	loop_state_free(st);
	loop_state_free(NULL);
}

int main(void)
{
	test_round_trip();
	test_corrupt();
	test_proof();
	test_accessors();
	return tap_done();
}
