// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * loop_attach() and its option setter, up to the point where a device
 * would be needed: every refusal comes back as -errno with the message
 * losetup prints (and mount.cryptoloop retells), naming the option, and
 * nothing is written to stderr by the library.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libloop.h>
#include "tap.h"
#include "memscan.h"
#include "regscan.h"

static struct loop_attach_opts o;
static struct vec_regs regs;
static struct loop_attach_msg m;

static int attach(void)
{
	struct loopdev *ld;
	char dev[64];
	int rc;

	if (loopdev_new(&ld))
		return -ENOMEM;
	memset(&m, 0, sizeof(m));
	rc = loop_attach(ld, &o, dev, sizeof(dev), &m);
	loopdev_free(ld);
	return rc;
}

static void on_sigusr1(int sig)
{
}

/* The registers read right after the secret's last use hold none of it. */
static void check_regs(struct vec_regs *v, const uint8_t *secret, size_t len)
{
	int reg;

	if (!v->have) {
		ok(1, "# SKIP no AVX here: the vector registers were not read");
		return;
	}
	if (!v->have_avx512)
		printf("# no AVX-512F on this CPU: zmm/ymm16-31 could not be checked, only ymm0-15\n");
	reg = regs_find(v, secret, len, 8);
	ok(reg < 0, "no 8 bytes of the passphrase left in a vector register (%s%d of %d read)",
	   reg < 0 ? "" : v->have_avx512 ? "found in zmm" : "found in ymm",
	   reg < 0 ? v->count : reg, v->count);
	regs_wipe(v);
}

/* The words text[at, at + len) of @msg's ref @i, in @buf. */
static const char *ref_words(const struct loop_attach_msg *msg, unsigned int i, char *buf,
			     size_t size)
{
	snprintf(buf, size, "%.*s", (int)msg->refs[i].len, msg->text + msg->refs[i].at);
	return buf;
}

/* A 1 MiB file from the template @path that starts with a LUKS magic; 0 or -1. */
static int luks_file(char *path)
{
	static const unsigned char magic[] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic) ||
	    ftruncate(fd, 1 << 20) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

int main(void)
{
	char img[] = "/tmp/test-attach.XXXXXX";
	int fd, p[2], err[2], saved, rc;
	char buf[256], why[400];
	ssize_t n;

	fd = mkstemp(img);
	if (fd < 0 || ftruncate(fd, 1 << 20) < 0)
		return 1;
	close(fd);
	/* whatever the library would print lands here */
	if (pipe2(err, O_NONBLOCK) < 0)
		return 1;
	saved = dup(2);
	dup2(err[1], 2);
	signal(SIGUSR1, on_sigusr1);

	loop_attach_opts_init(&o);
	ok(!loop_attach_requested(&o), "empty options ask for nothing");
	ok(o.pass_fd == -1 && o.loinit == -1, "no -p fd, the IV offset from the offset");
	rc = loop_attach_opt_set(&o, "keybits", "12x", &m);
	ok(rc == -EINVAL, "a malformed number is refused (%d)", rc);
	is_str(m.text, "invalid key size: '12x'", "the message names the value");
	is_str(m.option, "--keybits", "and the option");
	/* no wrap into the field, no sign behind blanks */
	rc = loop_attach_opt_set(&o, "keybits", "4294967424", &m);
	ok(rc == -ERANGE && o.keybits == 0, "-k past 32 bits is refused, not 128 (%d, %u)", rc,
	   o.keybits);
	is_str(m.text, "invalid key size: '4294967424': Numerical result out of range",
	       "as util-linux says it");
	rc = loop_attach_opt_set(&o, "pass-fd", " -1", &m);
	ok(rc == -EINVAL && o.pass_fd == -1, "-p ' -1' is refused (%d, %d)", rc, o.pass_fd);
	is_str(m.text, "invalid passphrase file descriptor: ' -1'", "naming the value");
	ok(loop_attach_opt_set(&o, "pass-fd", "+3", &m) == -EINVAL, "a plus sign is refused");
	ok(loop_attach_opt_set(&o, "pass-fd", "2147483648", &m) == -ERANGE && o.pass_fd == -1,
	   "-p past INT_MAX is refused");
	ok(loop_attach_opt_set(&o, "loinit", "9223372036854775808", &m) == -ERANGE &&
	   o.loinit == -1, "-I past INT64_MAX is refused");
	ok(loop_attach_opt_set(&o, "pass-fd", " 3", &m) == 0 && o.pass_fd == 3,
	   "leading blanks before digits are fine, as in util-linux");
	o.pass_fd = -1;
	ok(loop_attach_opt_set(&o, "itercountk", "99999999", &m) == -ERANGE,
	   "-C over the maximum is refused");
	ok(strstr(m.text, "too many iterations") != NULL, "saying so: %s", m.text);
	ok(loop_attach_opt_set(&o, "show", NULL, &m) == 1, "not a key option: 1");
	ok(loop_attach_opt_set(&o, "pseed", "salt", &m) == 0 && o.loopaes,
	   "a loop-AES-only option marks loop-AES semantics");

	/* refusals before any secret is read */
	loop_attach_opts_init(&o);
	o.image = img;
	o.keybits = 128;
	rc = attach();
	ok(rc == -EINVAL, "key options without -e are refused (%d)", rc);
	is_str(m.text, "encryption options need --encryption (-e)", "with losetup's message");
	loop_attach_opt_set(&o, "encryption", "AES256", &m);
	rc = attach();
	ok(rc == -EINVAL && strstr(m.text, "conflict"), "AES256 with -k 128 conflicts: %s",
	   m.text);
	o.keybits = 0;
	loop_attach_opt_set(&o, "engine", "warp", &m);
	rc = attach();
	is_str(m.text, "warp: unknown engine (kmod, xfer, dm, fuse or auto)",
	       "an unknown engine is named");
	o.engine = NULL;
	o.offset = 100;
	rc = attach();
	ok(rc == -EINVAL && strstr(m.text, "multiple of 512"), "an odd offset: %s", m.text);
	o.offset = 0;
	o.encryption = "none";
	ok(attach() == 1, "-e none: 1, the caller attaches a plain device");
	o.encryption = "AES256";
	o.image = "/nonexistent/image";
	rc = attach();
	ok(rc == -ENOENT, "a missing image: -ENOENT (%d)", rc);
	is_str(m.text, "/nonexistent/image: No such file or directory", "naming it");

	/* the secret: an empty -p fd never means a zero key */
	o.image = img;
	if (pipe(p) < 0)
		return 1;
	close(p[1]);
	o.pass_fd = p[0];
	rc = attach();
	snprintf(buf, sizeof(buf), "fd %d: empty passphrase (--allow-empty-passphrase "
		 "accepts it)", p[0]);
	ok(rc < 0, "an empty passphrase fd is refused (%d)", rc);
	is_str(m.text, buf, "with the fd named");
	is_str(m.option, "--pass-fd", "and the option");
	close(p[0]);
	o.pass_fd = 99;
	rc = attach();
	ok(rc == -EBADF, "a closed fd: -EBADF (%d)", rc);
	is_str(m.text, "cannot read the passphrase from fd 99: Bad file descriptor",
	       "as err(3) would say it");
	/* -H random takes no passphrase */
	o.phash = "random";
	o.pass_fd = 0;
	rc = attach();
	ok(rc == -EINVAL && strstr(m.text, "-H random makes its own keys"), "-H random -p: %s",
	   m.text);

	/* a passphrase read and a key derived, then a refusal (--direct-io
	 * on FUSE, wherever this runs): both are wiped. Bare "aes" is
	 * util-linux 2.12's raw key, the passphrase itself, so one scan
	 * looks for both; the passphrase exists here only XOR-masked. */
	if (MEMSCAN_UNDER_ASAN) {
		ok(1, "# SKIP memory scan under AddressSanitizer");
		ok(1, "# SKIP memory scan under AddressSanitizer");
	} else {
		static const char masked[] = "\x2e\x3f\x29\x2e\x7a\x2a\x3b\x29\x29\x7a\x6b\x68\x69";
		char secret[sizeof(masked)];
		size_t i, len = sizeof(masked) - 1;

		for (i = 0; i < len; i++)
			secret[i] = (char)(masked[i] ^ 0x5a);
		secret[len] = '\n';
		if (pipe(p) < 0 || write(p[1], secret, len + 1) != (ssize_t)len + 1)
			return 1;
		close(p[1]);
		explicit_bzero(secret, sizeof(secret));
		loop_attach_opts_init(&o);
		o.image = img;
		o.encryption = "aes";
		o.engine = "fuse";
		o.lo_flags = LO_FLAGS_DIRECT_IO;
		o.pass_fd = p[0];
		rc = attach();
		regs_read(&regs);
		/* what a signal arriving now (or a lazy binding) would do: the
		 * kernel saves every vector register on the stack below us */
		raise(SIGUSR1);
		close(p[0]);
		ok(rc == -EOPNOTSUPP && strstr(m.text, "--direct-io"),
		   "refused after the key was made: %s", m.text);
		for (i = 0; i < len; i++)
			secret[i] = (char)(masked[i] ^ 0x5a);
		check_regs(&regs, (const uint8_t *)secret, len);
		ok(!memory_contains((const uint8_t *)secret, len),
		   "no copy of the passphrase or key left in memory");
		explicit_bzero(secret, sizeof(secret));
	}

	/* the secret's own calls, read and derive, then a signal at once:
	 * what they left in the vector registers would now be in the
	 * signal frame below us (as in glibc's lazy-binding trampoline) */
	{
		static const char masked[] = "\x2e\x3f\x29\x2e\x7a\x2a\x3b\x29\x29\x7a\x6b\x68\x69";
		static char secret[sizeof(masked)];
		struct loop_cipher_spec spec;
		struct loop_pass *pass = NULL;
		struct loop_key *key = NULL;
		size_t i, len = sizeof(masked) - 1;
		int mem = open("/proc/self/mem", O_RDONLY), below;

		for (i = 0; i < len; i++)
			secret[i] = (char)(masked[i] ^ 0x5a);
		secret[len] = '\n';
		if (mem < 0 || pipe(p) < 0 || write(p[1], secret, len + 1) != (ssize_t)len + 1)
			return 1;
		close(p[1]);
		explicit_bzero(secret, sizeof(secret));
		loop_attach_opts_init(&o);
		o.encryption = "aes";
		o.pass_fd = p[0];
		rc = loop_attach_spec(&o, &spec, &m);
		if (!rc)
			rc = loop_attach_read_secret(&o, &spec, "Password: ", false, NULL, &pass, &m);
		if (!rc)
			rc = loop_attach_derive(&o, &spec, pass, &key, &m);
		loop_key_free(key);
		loop_pass_free(pass);
		regs_read(&regs);
		raise(SIGUSR1);
		for (i = 0; i < len; i++)
			secret[i] = (char)(masked[i] ^ 0x5a);
		below = stack_below_contains(mem, (const uint8_t *)secret, len, 64 * 1024);
		close(mem);
		close(p[0]);
		ok(rc == 0, "passphrase read and key derived (%d)", rc);
		check_regs(&regs, (const uint8_t *)secret, len);
		ok(!below, "no copy of the passphrase or key on the stack below (after a signal)");
		explicit_bzero(secret, sizeof(secret));
	}

	/* -e luks: refusals by option name and the header check, before
	 * any secret is read; then the same passphrase chain */
	loop_attach_opts_init(&o);
	ok(loop_attach_opt_set(&o, "header", "/nonexistent/hdr", &m) == 0 &&
	   !strcmp(o.header, "/nonexistent/hdr") && loop_attach_requested(&o),
	   "header is a key option set by its long name");
	o.header = NULL;
	o.image = img;
	o.encryption = "luks";
	o.keybits = 256;
	rc = attach();
	snprintf(buf, sizeof(buf), "%s: --keybits (-k) does not apply to LUKS (its header "
		 "says where the data is and how it is encrypted)", img);
	ok(rc == -EINVAL, "-e luks -k: refused (%d)", rc);
	is_str(m.text, buf, "in losetup's words");
	is_str(m.option, "--keybits", "naming the option");
	o.keybits = 0;
	o.block_size = 4096;
	rc = attach();
	ok(rc == -EINVAL && strstr(m.text, ": --sector-size (-b) does not apply to LUKS"),
	   "-e luks -b 4096: %s", m.text);
	o.block_size = 0;
	o.engine = "kmod";
	rc = attach();
	snprintf(buf, sizeof(buf), "%s: LUKS opens through the dm engine only, not "
		 "--engine kmod", img);
	is_str(m.text, buf, "-e luks on another engine is refused");
	o.engine = "dm";
	rc = attach();
	snprintf(buf, sizeof(buf), "%s: no LUKS header (a detached one is given with "
		 "--header)", img);
	ok(rc == -EINVAL, "-e luks on a plain image: refused (%d)", rc);
	is_str(m.text, buf, "saying it has no LUKS header");
	o.header = "/nonexistent/hdr";
	rc = attach();
	ok(rc == -ENOENT, "a missing --header: -ENOENT (%d)", rc);
	is_str(m.text, "/nonexistent/hdr: No such file or directory", "naming it");
	is_str(m.option, "--header", "and the option");
	o.encryption = "aes";
	o.engine = NULL;
	rc = attach();
	ok(rc == -EINVAL, "--header with -e aes: refused (%d)", rc);
	is_str(m.text, "--header: a detached header is for -e luks only", "for -e luks only");
	o.encryption = "none";
	ok(attach() == -EINVAL, "and with -e none");
	{
		char luks[] = "/tmp/test-attach-luks.XXXXXX";

		if (luks_file(luks))
			return 1;
		o.header = NULL;
		o.image = luks;
		o.encryption = "aes";
		rc = attach();
		snprintf(buf, sizeof(buf), "%s: has a LUKS header: open it with -e luks, not "
			 "-e aes (--force reads it as aes anyway)", luks);
		ok(rc == -EINVAL, "-e aes on a LUKS image: refused (%d)", rc);
		is_str(m.text, buf, "pointing at -e luks");
		/* the options it names, as data for a caller with other words */
		ok(m.nrefs == 3, "it names three options (%u)", m.nrefs);
		is_str(m.refs[0].option, "encryption", "first -e");
		is_str(ref_words(&m, 0, buf, sizeof(buf)), "-e luks", "in losetup's words");
		is_str(ref_words(&m, 0, buf, sizeof(buf)) + (m.refs[0].arg - m.refs[0].at),
		       "luks", "with its argument");
		is_str(ref_words(&m, 1, buf, sizeof(buf)), "-e aes", "then the one given");
		is_str(m.refs[2].option, "force", "then --force");
		ok(m.refs[2].arg == m.refs[2].at + m.refs[2].len, "which has no argument");
		ok(m.refs[2].aside_len && !strcmp(m.text + m.refs[2].aside_at,
						  " (--force reads it as aes anyway)"),
		   "in an aside that only offers it");
		ok(!m.refs[0].aside_len && !m.refs[1].aside_len, "the -e are in no aside");
		{
			/* the bytes that mark options in a format are a file
			 * name's own bytes when the name brings them */
			char marked[] = "/tmp/test-attach-\001\002\003\004\005\006.XXXXXX";

			if (luks_file(marked))
				return 1;
			o.image = marked;
			rc = attach();
			snprintf(buf, sizeof(buf), "%s: has a LUKS header: open it with -e luks, "
				 "not -e aes (--force reads it as aes anyway)", marked);
			is_str(m.text, buf, "a file name with the bytes 1 to 6 is named whole");
			ok(m.nrefs == 3 && !strcmp(m.refs[0].option, "encryption") &&
			   !strcmp(m.refs[2].option, "force"), "and the same three options are named");
			unlink(marked);
			o.image = luks;
		}
		o.encryption = "none";
		ok(attach() == 1, "-e none attaches a LUKS image as it is");
		o.encryption = "aes";
		o.force = true;
		o.pass_fd = 99;
		rc = attach();
		ok(rc == -EBADF, "--force reads it as aes: on to the passphrase (%d)", rc);
		o.force = false;
		/* the passphrase for LUKS comes through the same chain */
		if (pipe(p) < 0)
			return 1;
		close(p[1]);
		o.pass_fd = p[0];
		o.encryption = "LUKS2";
		rc = attach();
		snprintf(buf, sizeof(buf), "fd %d: empty passphrase (--allow-empty-passphrase "
			 "accepts it)", p[0]);
		close(p[0]);
		ok(rc == -ENODATA, "-e LUKS2 with an empty passphrase fd: refused (%d)", rc);
		is_str(m.text, buf, "as for the loop formats");
		unlink(luks);
	}

	/* the kernel's refusals of the module, as finit_module(2) gives them */
	ok(loop_kmod_refusal(-EKEYREJECTED, why, sizeof(why)) == 1,
	   "EKEYREJECTED from the module load is the signature refusal");
	ok(strstr(why, "Key was rejected by service") &&
	   strstr(why, "mokutil --import /var/lib/dkms/mok.pub") && strstr(why, "MokManager"),
	   "its text names the kernel's reason and the enrolment step: %s", why);
	ok(!loop_kmod_refusal(-ENOENT, buf, sizeof(buf)) &&
	   !loop_kmod_refusal(-ENOEXEC, buf, sizeof(buf)) &&
	   !loop_kmod_refusal(0, buf, sizeof(buf)),
	   "no module, a bad module or a load are not signature refusals");
	if (geteuid())
		ok(!loop_kmod_refusal(-EPERM, buf, sizeof(buf)),
		   "EPERM for a user is the missing capability, not a signature refusal");

	dup2(saved, 2);
	n = read(err[0], buf, sizeof(buf));
	ok(n <= 0, "libloop printed nothing (%zd bytes)", n);
	unlink(img);
	return tap_done();
}
