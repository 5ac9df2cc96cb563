// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cryptoloop-reencrypt: change the key or the format of an encrypted
 * image in place, crash-safe, resumable.
 *
 *   cryptoloop-reencrypt [OLD KEY OPTIONS] IMAGE --new [NEW KEY OPTIONS]
 *
 * The key options are losetup's: the rows of the one key list
 * (cli-options.h), the same parser (losetup/keyopts.c). Those before
 * --new describe the image as it is, those after it what it becomes.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "journal.h"
#include "keyopts.h"
#include "luks2.h"
#include "cli/cli-options.h"
#include "reencrypt.h"
#include "session.h"

enum {
	OPT_NEW = OPT_OWN,
	OPT_JOURNAL,
	OPT_PROGRESS,
	OPT_VERIFY,
	OPT_GENERATE,
	OPT_LUKS2,
	OPT_HEADER,
	OPT_CIPHER,
	OPT_ITER_TIME,
	OPT_PBKDF,
	OPT_PBKDF_ITERATIONS,
	OPT_PBKDF_MEMORY,
};

/* exit status when interrupted by a signal: run again to resume */
#define EXIT_INTERRUPTED 3

/* the key list's rows marked for reencrypt */
#define REENCRYPT_ROW(code, name, has_arg, arg, help, sec, reencrypt, ...) \
	LOOP_KEY_IF(reencrypt, LOOP_KEY_ROW(code, name, has_arg, arg, help, sec),)

static const struct opt_desc key_rows[] = {
	LOOP_KEY_OPTIONS(REENCRYPT_ROW)
};

static const struct opt_desc own_opts[] = {
	{ "new",      no_argument,       OPT_NEW, NULL, "the key options after this describe the new format", SEC_COMMANDS },
	{ "generate", no_argument,       OPT_GENERATE, NULL, "with --new -K <file>: create a new gpg key file of 65 random keys", SEC_COMMANDS },
	{ "luks2",    no_argument,       OPT_LUKS2, NULL, "after --new: make the image the data of a LUKS2 volume", SEC_COMMANDS },
	{ "header",   required_argument, OPT_HEADER, "<file>", "with --luks2: the LUKS2 header goes to <file>, not into the image", SEC_COMMANDS },
	{ "cipher",   required_argument, OPT_CIPHER, "<spec>", "with --luks2: the cipher (default aes-xts-plain64)", SEC_COMMANDS },
	{ "pbkdf",    required_argument, OPT_PBKDF, "<type>", "with --luks2: pbkdf2, argon2i or argon2id (libcryptsetup's default)", SEC_COMMANDS },
	{ "iter-time", required_argument, OPT_ITER_TIME, "<ms>", "with --luks2: milliseconds of PBKDF for the passphrase", SEC_COMMANDS },
	{ "pbkdf-force-iterations", required_argument, OPT_PBKDF_ITERATIONS, "<num>", "with --luks2: this PBKDF cost, no benchmark", SEC_COMMANDS },
	{ "pbkdf-memory", required_argument, OPT_PBKDF_MEMORY, "<kiB>", "with --luks2: argon2's memory cost", SEC_COMMANDS },
	{ "journal",  required_argument, OPT_JOURNAL, "<file>", "progress journal (default <image>.reencrypt)", SEC_COMMANDS },
	{ "progress", required_argument, OPT_PROGRESS, "<when>", "auto (on a terminal), always or never", SEC_COMMANDS },
	{ "verify",   no_argument,       OPT_VERIFY, NULL, "read back and compare every chunk as it goes", SEC_COMMANDS },
	{ "help",     no_argument,       'h', NULL, "display this help", SEC_HELP },
	{ "version",  no_argument,       'V', NULL, "display version", SEC_HELP },
};

static const struct opt_table tables[] = {
	{ key_rows, sizeof(key_rows) / sizeof(key_rows[0]) },
	{ own_opts, sizeof(own_opts) / sizeof(own_opts[0]) },
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

struct cmdline {
	struct job job;
	const char *journal;
	bool generate;
	bool luks2;
	const char *header;
	const char *cipher;
	struct luks2_pbkdf pbkdf;
};

static void __attribute__((noreturn)) usage(void)
{
	size_t i;

	printf("\nUsage:\n"
	       " %1$s [old key options] <image> --new [new key options]\n"
	       " %1$s [old key options] <image> --new --luks2 [--header <file>] [--cipher <spec>]\n"
	       "\nRe-encrypt an encrypted loop image in place, with a new key or in a new\n"
	       "format. Safe against crashes: run the same command again to resume.\n"
	       "\nOptions:\n", program_invocation_short_name);
	opt_print_section(stdout, &tables[1], 1, SEC_COMMANDS);
	printf("\nKey options (losetup's; before --new for the image as it is, after\n"
	       "--new for what it becomes):\n");
	for (i = 0; i < tables[0].n; i++)
		opt_print_row(stdout, &key_rows[i]);
	printf("\n");
	opt_print_section(stdout, &tables[1], 1, SEC_HELP);
	printf("\nFor more details see cryptoloop-reencrypt(8).\n");
	exit(EXIT_SUCCESS);
}

static void __attribute__((noreturn)) try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", program_invocation_short_name);
	exit(EXIT_FAILURE);
}

/* a count for option @c in @min..@max, or the program ends saying so */
static uint32_t count_or_die(int c, const char *arg, const char *what, unsigned long min,
			     unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		errx(EXIT_FAILURE, "--%s: '%s' is not a number of %s (%lu to %lu)",
		     opt_find(tables, NTABLES, c)->name, arg, what, min, max);
	return (uint32_t)v;
}

static const char *pbkdf_type_or_die(const char *arg)
{
	static const char *const types[] = {
		"pbkdf2", "argon2i", "argon2id",
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(arg, types[i]))
			return types[i];
	errx(EXIT_FAILURE, "--pbkdf: '%s' is not pbkdf2, argon2i or argon2id", arg);
}

/* the options that shape the LUKS2 target; check_luks2_options sees
 * them together */
static void parse_luks2_option(struct cmdline *cl, int c, const char *arg)
{
	switch (c) {
	case OPT_LUKS2:
		cl->luks2 = true;
		break;
	case OPT_HEADER:
		cl->header = arg;
		break;
	case OPT_CIPHER:
		cl->cipher = arg;
		break;
	case OPT_PBKDF:
		cl->pbkdf.type = pbkdf_type_or_die(arg);
		break;
	case OPT_ITER_TIME:
		cl->pbkdf.time_ms = count_or_die(c, arg, "milliseconds", 1, 3600000);
		break;
	case OPT_PBKDF_ITERATIONS:
		cl->pbkdf.iterations = count_or_die(c, arg, "iterations", 1, UINT32_MAX);
		break;
	case OPT_PBKDF_MEMORY:
		/* libcryptsetup's bounds for argon2: 32 KiB to 4 GiB */
		cl->pbkdf.memory_kib = count_or_die(c, arg, "KiB", 32, 4UL * 1024 * 1024);
		break;
	}
}

/* One half of the command line: before --new (@s old) or after it. */
static void parse_half(int argc, char **argv, struct cmdline *cl, struct side *s,
		       bool is_new)
{
	struct option lo[OPT_MAX + 1];
	char so[3 * OPT_MAX + 1];
	int c;

	opt_build_getopt(tables, NTABLES, lo, so);
	optind = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (crypt_opt_parse(&s->k, c, optarg))
			continue;
		switch (c) {
		case 'o':
			s->offset = size_or_die(optarg, "failed to parse offset");
			s->has_offset = true;
			break;
		case OPT_SIZELIMIT:
			s->sizelimit = size_or_die(optarg, "failed to parse size");
			s->has_sizelimit = true;
			break;
		case OPT_NEW:
			errx(EXIT_FAILURE, "--new given twice");
		case OPT_GENERATE:
			if (!is_new)
				errx(EXIT_FAILURE, "--generate belongs after --new");
			cl->generate = true;
			break;
		case OPT_LUKS2:
		case OPT_HEADER:
		case OPT_CIPHER:
		case OPT_PBKDF:
		case OPT_ITER_TIME:
		case OPT_PBKDF_ITERATIONS:
		case OPT_PBKDF_MEMORY:
			if (!is_new)
				errx(EXIT_FAILURE, "--%s belongs after --new",
				     opt_find(tables, NTABLES, c)->name);
			parse_luks2_option(cl, c, optarg);
			break;
		case OPT_JOURNAL:
			cl->journal = optarg;
			break;
		case OPT_PROGRESS:
			if (!strcmp(optarg, "auto"))
				cl->job.progress = PROGRESS_AUTO;
			else if (!strcmp(optarg, "always"))
				cl->job.progress = PROGRESS_ALWAYS;
			else if (!strcmp(optarg, "never"))
				cl->job.progress = PROGRESS_NEVER;
			else
				errx(EXIT_FAILURE, "--progress: '%s' is not auto, always or never", optarg);
			break;
		case OPT_VERIFY:
			cl->job.verify = true;
			break;
		case 'h':
			usage();
		case 'V':
			printf("%s from %s\n", program_invocation_short_name, PACKAGE_STRING);
			exit(EXIT_SUCCESS);
		default:
			try_help();
		}
	}
	if (!is_new) {
		if (optind >= argc) {
			warnx("no image given");
			try_help();
		}
		cl->job.image = argv[optind++];
	}
	if (optind < argc) {
		warnx("unexpected argument '%s'", argv[optind]);
		try_help();
	}
}

static void parse_cmdline(int argc, char **argv, struct cmdline *cl)
{
	int i, split = -1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			usage();
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("%s from %s\n", program_invocation_short_name, PACKAGE_STRING);
			exit(EXIT_SUCCESS);
		}
		if (split < 0 && !strcmp(argv[i], "--new"))
			split = i;
	}
	if (split < 0) {
		warnx("--new is missing: the options after it describe the new format");
		try_help();
	}
	parse_half(split, argv, cl, &cl->job.old, false);
	/* argv[split] ("--new") stands in for argv[0] */
	parse_half(argc - split, argv + split, cl, &cl->job.new, true);
}

/*
 * --luks2 without --header: the data moves up behind the header, in
 * chunks no longer than the move so that none overwrites its own old data.
 */
static void luks2_inplace_setup(struct job *job)
{
	uint64_t shift;

	job->new_off = luks2_inplace_offset(job->data_off);
	shift = job->new_off - job->data_off;
	if (shift && job->chunk > shift)
		job->chunk = (uint32_t)shift;
	if (asprintf(&job->side_header, "%s.luks2-header", job->journal_path) < 0)
		err(EXIT_FAILURE, "cannot allocate memory");
	if (session_exists(job))
		return;
	if (luks2_has_magic(job->img_fd))
		errx(EXIT_FAILURE, "%s: a LUKS volume already; nothing was written", job->image);
	/* left by a run stopped before its journal existed, which never
	 * wrote to the image: made again */
	if (unlink(job->side_header) < 0 && errno != ENOENT)
		err(EXIT_FAILURE, "%s: cannot remove", job->side_header);
}

static void open_image(struct cmdline *cl)
{
	struct job *job = &cl->job;
	char who[PATH_MAX + 64];
	struct stat st, opened;
	uint64_t total;
	int rc;

	if (stat(job->image, &st) < 0)
		err(EXIT_FAILURE, "%s", job->image);
	job->is_blockdev = S_ISBLK(st.st_mode);
	if (job->is_blockdev && cl->luks2 && !cl->header)
		errx(EXIT_FAILURE, "%s: a block device cannot grow to make room for the "
		     "LUKS2 header; give --header <file> (nothing was written)", job->image);
	if (!job->is_blockdev && !S_ISREG(st.st_mode))
		errx(EXIT_FAILURE, "%s: not a regular file or a block device", job->image);
	/* O_EXCL on a block device: the kernel refuses it while mounted or held */
	job->img_fd = open(job->image, O_RDWR | O_CLOEXEC | (job->is_blockdev ? O_EXCL : 0));
	if (job->img_fd < 0 && errno == EBUSY)
		errx(EXIT_FAILURE, "%s: in use (mounted or held by another device); "
		     "nothing was written", job->image);
	if (job->img_fd < 0)
		err(EXIT_FAILURE, "%s: cannot open for writing", job->image);
	/* what was opened must be what was checked: the name is opened
	 * again, and a file renamed or linked there meanwhile would be
	 * rewritten under the checks of another */
	if (fstat(job->img_fd, &opened) < 0)
		err(EXIT_FAILURE, "%s", job->image);
	if (opened.st_dev != st.st_dev || opened.st_ino != st.st_ino ||
	    (opened.st_mode & S_IFMT) != (st.st_mode & S_IFMT))
		errx(EXIT_FAILURE, "%s: replaced by another file while it was checked; "
		     "nothing was written", job->image);

	rc = image_in_use(job->image, job->img_fd, who, sizeof(who));
	if (rc == -EBUSY)
		errx(EXIT_FAILURE, "%s: in use by %s; detach it first (nothing was written)",
		     job->image, who);

	if (job->new.has_offset && job->new.offset != job->old.offset)
		errx(EXIT_FAILURE, "%s: the new offset must be the old one (%llu); the data "
		     "does not move", job->image, (unsigned long long)job->old.offset);
	if (job->new.has_sizelimit && job->new.sizelimit != job->old.sizelimit)
		errx(EXIT_FAILURE, "%s: the new --sizelimit must be the old one", job->image);
	job->new.offset = job->old.offset;
	job->new.sizelimit = job->old.sizelimit;

	rc = image_data_range(job, &total);
	if (rc == -EINVAL && job->old.offset % LOOP_SECTOR_SIZE)
		errx(EXIT_FAILURE, "%s: the offset %llu is not a multiple of 512", job->image,
		     (unsigned long long)job->old.offset);
	if (rc == -EINVAL)
		errx(EXIT_FAILURE, "%s: misaligned: the data after the offset is %llu bytes, "
		     "not a whole number of 512-byte sectors; nothing was written", job->image,
		     (unsigned long long)(job->old.sizelimit && job->old.sizelimit <
					  total - job->old.offset ?
					  job->old.sizelimit : total - job->old.offset));
	if (rc == -ERANGE)
		errx(EXIT_FAILURE, "%s: too small: no whole 512-byte sector after the offset "
		     "(%llu bytes in all); nothing was written", job->image,
		     (unsigned long long)total);
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "%s: cannot get its size", job->image);
	}
	job->chunk = chunk_size_for(job->data_len);
	job->size = total;
	job->new_off = job->data_off;

	if (cl->journal) {
		job->journal_path = strdup(cl->journal);
	} else if (job->is_blockdev) {
		errx(EXIT_FAILURE, "%s: a block device needs --journal <file> "
		     "(on another device)", job->image);
	} else if (asprintf(&job->journal_path, "%s.reencrypt", job->image) < 0) {
		job->journal_path = NULL;
	}
	if (!job->journal_path)
		err(EXIT_FAILURE, "cannot allocate memory");
	if (cl->luks2 && !cl->header)
		luks2_inplace_setup(job);
}

/* Enter at a New prompt would make an unprotected key file or a LUKS2
 * keyslot anyone opens; refused as losetup refuses it. */
static void refuse_empty(const struct side *s, struct loop_pass *pass, const char *what)
{
	size_t len = 0;

	if (s->k.allow_empty)
		return;
	if (loop_pass_count(pass) && loop_pass_line(pass, 0, &len) && len)
		return;
	loop_pass_free(pass);
	errx(EXIT_FAILURE, "%s: empty passphrase (--allow-empty-passphrase accepts it)",
	     what);
}

/* --new -K FILE --generate: make the key file (unless resuming with it) */
static struct loop_pass *generated_keys(struct cmdline *cl, bool resuming)
{
	struct side *s = &cl->job.new;
	struct loop_pass *gpgpass = NULL, *pass = NULL;
	int rc;

	if (!s->k.gpgkey)
		errx(EXIT_FAILURE, "--generate needs --new -K <file>");
	if (access(s->k.gpgkey, F_OK) == 0 && !resuming)
		errx(EXIT_FAILURE, "%s: exists; --generate never replaces a key file",
		     s->k.gpgkey);
	if (s->k.pass_fd >= 0)
		rc = loop_pass_read_fd(&gpgpass, s->k.pass_fd, LOOP_PASS_ONE_LINE);
	else
		rc = loop_pass_read_tty(&gpgpass, resuming ? "Key file password: " :
					"New key file password: ", !resuming);
	if (rc == -EKEYREJECTED)
		errx(EXIT_FAILURE, "the passphrases do not match");
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "cannot read the passphrase for %s", s->k.gpgkey);
	}
	if (!resuming)
		refuse_empty(s, gpgpass, s->k.gpgkey);
	if (!resuming) {
		rc = genkey_write(s->k.gpgkey, s->k.gpghome, gpgpass);
		if (rc) {
			loop_pass_free(gpgpass);
			errno = -rc;
			err(EXIT_FAILURE, "%s: cannot create the key file with gpg", s->k.gpgkey);
		}
	}
	rc = loop_pass_from_gpg(&pass, s->k.gpgkey, s->k.gpghome, NULL, gpgpass);
	loop_pass_free(gpgpass);
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "%s: cannot read the key file back", s->k.gpgkey);
	}
	return pass;
}

/* --luks2: the new passphrase opens (or gets) the header's keyslot */
static void luks2_keys(struct cmdline *cl)
{
	struct job *job = &cl->job;
	struct side *s = &job->new;
	struct loop_pass *pass = NULL;
	bool resuming = session_exists(job);
	const char *header;
	int rc;

	if (s->k.encryption || s->k.gpgkey || s->k.cleartext || s->k.phash || s->k.seed)
		errx(EXIT_FAILURE, "--luks2 takes only -p or -T for its passphrase; "
		     "the cipher is --cipher");
	if (s->k.pass_fd >= 0)
		rc = loop_pass_read_fd(&pass, s->k.pass_fd, LOOP_PASS_ONE_LINE);
	else
		rc = loop_pass_read_tty(&pass, "New LUKS2 password: ", !resuming);
	if (rc == -EKEYREJECTED)
		errx(EXIT_FAILURE, "the passphrases do not match");
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "cannot read the LUKS2 passphrase");
	}
	if (!resuming)
		refuse_empty(s, pass, "the LUKS2 keyslot");
	/* a resume with another --header (or none) is told so here, before
	 * libcryptsetup would fail on it with a message of its own */
	job->header = cl->header;
	if (resuming)
		session_check_header(job, cl->header);
	/* in the image: made aside; once copied in, the image holds it */
	header = cl->header;
	if (!header)
		header = resuming && access(job->side_header, F_OK) ? job->image :
			 job->side_header;
	job->luks2 = luks2_open(header, job->image, cl->cipher, job->new_off, &cl->pbkdf, pass,
				resuming, &s->key, s->spec.name, sizeof(s->spec.name));
	loop_pass_free(pass);
	s->iv_offset = 0;
}

static void make_keys(struct cmdline *cl)
{
	struct job *job = &cl->job;
	struct side *sides[2] = { &job->old, &job->new };
	struct loop_pass *pass;
	int i, rc;

	for (i = 0; i < 2; i++) {
		struct side *s = sides[i];

		if (i == 1 && cl->luks2) {
			luks2_keys(cl);
			continue;
		}
		if (!s->k.encryption)
			errx(EXIT_FAILURE, "the %s format needs -e <cipher>%s", i ? "new" : "old",
			     i ? " after --new" : "");
		crypt_parse_spec(&s->k, &s->spec);
		/* keys that exist only in memory: an image re-encrypted to
		 * them could never be read again, and no image was made
		 * with them (they were gone at its detach) */
		if (loop_attach_random_key(&s->k))
			errx(EXIT_FAILURE, "-H random: the %s format has keys nobody can "
			     "give again", i ? "new" : "old");
		if (i == 1 && cl->generate)
			pass = generated_keys(cl, session_exists(job));
		else
			pass = crypt_read_secret(&s->k, &s->spec, i ? "New password: " :
						 "Old password: ", i == 1);
		s->key = crypt_derive(&s->k, &s->spec, pass);
		loop_pass_free(pass);
		s->iv_offset = loop_crypt_iv_offset(s->offset, s->k.loinit);
		rc = loop_crypt_new(&s->crypt, &s->spec, s->key, s->iv_offset);
		if (rc) {
			errno = -rc;
			err(EXIT_FAILURE, "%s: cannot set up the %s cipher", s->spec.name,
			    i ? "new" : "old");
		}
	}
}

static void check_luks2_options(struct cmdline *cl)
{
	const struct luks2_pbkdf *p = &cl->pbkdf;

	if (!cl->luks2 && (cl->header || cl->cipher || p->type || p->time_ms ||
			   p->iterations || p->memory_kib))
		errx(EXIT_FAILURE, "--header, --cipher, --pbkdf, --iter-time, "
		     "--pbkdf-force-iterations and --pbkdf-memory go with --luks2");
	if (p->time_ms && p->iterations)
		errx(EXIT_FAILURE, "--iter-time and --pbkdf-force-iterations cannot go "
		     "together: forced iterations skip the benchmark that --iter-time steers");
	if (p->memory_kib && p->type && !strcmp(p->type, "pbkdf2"))
		errx(EXIT_FAILURE, "--pbkdf-memory is argon2's cost: pbkdf2 uses no memory");
	if (cl->luks2 && luks2_pbkdf_check(p) < 0)
		errx(EXIT_FAILURE, "libcryptsetup refuses this key derivation "
		     "(--pbkdf, --pbkdf-force-iterations, --pbkdf-memory); nothing was written");
	if (cl->luks2 && cl->generate)
		errx(EXIT_FAILURE, "--generate makes loop-AES key files, not LUKS2 keys");
	if (cl->luks2 && cl->job.old.has_sizelimit)
		errx(EXIT_FAILURE, "--luks2: the data runs to the end of the image, so "
		     "--sizelimit cannot be used");
}

/* --luks2 without --header: room for the moved data, before the first write */
static void grow_or_die(struct job *job, struct journal *j)
{
	int rc = luks2_inplace_grow(job);

	if (!rc)
		return;
	if (!j->done && !j->inflight) {
		/* nothing was written: leave no journal that would hold the
		 * next run to this attempt */
		journal_close(j);
		unlink(job->journal_path);
		unlink(job->side_header);
	}
	errno = -rc;
	if (rc == -ENOSPC)
		errx(EXIT_FAILURE, "%s: no space to grow by %llu bytes for the LUKS2 header; "
		     "nothing was written", job->image,
		     (unsigned long long)(job->new_off - job->data_off));
	err(EXIT_FAILURE, "%s: cannot grow for the LUKS2 header", job->image);
}

static void finish_or_die(struct job *job)
{
	int rc;

	if (!job->side_header)
		return;
	rc = luks2_inplace_finish(job);
	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "%s: cannot put the LUKS2 header in place; run the same "
		    "command again", job->image);
	}
}

static void on_signal(int sig)
{
	reencrypt_stop = sig;
}

int main(int argc, char **argv)
{
	struct cmdline cl;
	struct journal j;
	struct sigaction sa;
	int rc;

	/* no core dump, no ptrace by the same user, /proc/PID/mem root's only:
	 * the process holds both formats' keys and plaintext */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		err(EXIT_FAILURE, "cannot make the process undumpable");
	/* libloop's cipher handles in libgcrypt's secure memory: set up by
	 * libloop before this program's first libgcrypt call */
	if (loop_crypt_init())
		errx(EXIT_FAILURE, "libgcrypt is missing or older than 1.8.0");
	memset(&cl, 0, sizeof(cl));
	loop_attach_opts_init(&cl.job.old.k);
	loop_attach_opts_init(&cl.job.new.k);
	cl.job.img_fd = -1;
	cl.job.img_dfd = -1;
	parse_cmdline(argc, argv, &cl);
	check_luks2_options(&cl);
	open_image(&cl);
	make_keys(&cl);

	switch (session_open(&cl.job, &j)) {
	case SESSION_COMPLETE:
		/* a crash after the journal said done: the header goes in now */
		finish_or_die(&cl.job);
		fprintf(stderr, "%s: already re-encrypted; the journal %s records it "
			"(remove it before another conversion)\n", cl.job.image,
			cl.job.journal_path);
		return EXIT_SUCCESS;
	case SESSION_RESUMED:
		if (cl.job.progress != PROGRESS_NEVER && isatty(STDERR_FILENO))
			fprintf(stderr, "%s: resuming at %llu of %llu bytes\n", cl.job.image,
				(unsigned long long)j.done, (unsigned long long)cl.job.data_len);
		break;
	case SESSION_STARTED:
		break;
	}
	if (cl.job.side_header)
		grow_or_die(&cl.job, &j);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	rc = convert_run(&cl.job, &j);
	journal_close(&j);
	luks2_close(cl.job.luks2);
	loop_crypt_free(cl.job.old.crypt);
	loop_crypt_free(cl.job.new.crypt);
	loop_key_free(cl.job.old.key);
	loop_key_free(cl.job.new.key);
	if (rc == -EINTR) {
		fprintf(stderr, "%s: interrupted; run the same command again to resume\n",
			cl.job.image);
		return EXIT_INTERRUPTED;
	}
	if (rc)
		return EXIT_FAILURE;
	finish_or_die(&cl.job);
	if (isatty(STDERR_FILENO) && cl.job.progress != PROGRESS_NEVER)
		fprintf(stderr, "%s: done; the journal %s now records that (remove it)\n",
			cl.job.image, cl.job.journal_path);
	close(cl.job.img_fd);
	free(cl.job.journal_path);
	free(cl.job.side_header);
	return EXIT_SUCCESS;
}
