// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * losetup: set up and control loop devices. A drop-in replacement for
 * util-linux 2.42's losetup: the same options, output, messages and exit
 * statuses, so that no script can tell the difference.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "losetup.h"
#include "keyopts.h"
#include "options.h"

struct cmdline {
	enum losetup_action act;
	struct create_opts create;
	struct list_opts list;
	bool list_mode;
	bool showdev;
	bool has_offset;
	bool has_sizelimit;
	bool set_dio;
	bool set_blocksize;
	unsigned long use_dio;
	const char *outarg;
	const char *file;	/* -j FILE */
	struct loop_attach_opts crypt;
	bool list_ciphers;
	bool from_fstab;	/* -F */
	bool swap;		/* --swap */
};

static void __attribute__((noreturn)) usage(void)
{
	FILE *out = stdout;
	const char *me = program_invocation_short_name;
	int i;

	fputs("\nUsage:\n", out);
	fprintf(out, " %1$s [options] [<loopdev>]\n"
		     " %1$s [options] -f | <loopdev> <file>\n", me);
	fputs("\nSet up and control loop devices.\n", out);
	fputs("\nOptions:\n", out);
	opt_print_section(out, &losetup_opts, 1, SEC_COMMANDS);
	fputs("\n", out);
	opt_print_section(out, &losetup_opts, 1, SEC_SETUP);
	fputs("\n", out);
	opt_print_section(out, &losetup_opts, 1, SEC_OUTPUT);
	fputs("\n", out);
	opt_print_section(out, &losetup_opts, 1, SEC_HELP);
	fputs("\nAvailable output columns:\n", out);
	for (i = 0; i < COL_UL_COUNT; i++)
		fprintf(out, " %12s  %s\n", column_infos[i].name, column_infos[i].help);
	/* ours come after all of util-linux's text, which stays as it was */
	fputs("\nEncryption options:\n", out);
	opt_print_section(out, &losetup_opts, 1, SEC_CRYPT);
	fputs(" Swap on a device backed by a file is unsafe without --swap.\n", out);
	fputs("\nEncryption output columns:\n", out);
	for (i = COL_UL_COUNT; i < COL_COUNT; i++)
		fprintf(out, " %12s  %s\n", column_infos[i].name, column_infos[i].help);
	fprintf(out, "\nFor more details see %s.\n", "losetup(8)");
	exit(EXIT_SUCCESS);
}

static void __attribute__((noreturn)) try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n",
		program_invocation_short_name);
	exit(EXIT_FAILURE);
}

/* Every option of the rows has a long name; util-linux falls back to
 * "-%c" only for options without one. */
static void __attribute__((noreturn)) report_exclusive(int first, int second)
{
	const struct opt_desc *a = opt_find(&losetup_opts, 1, first);
	const struct opt_desc *b = opt_find(&losetup_opts, 1, second);

	errx(EXIT_FAILURE, "options --%s and --%s cannot be combined", a->name, b->name);
}

/*
 * Bind @ld to a device named on the command line: the dm engine's
 * mapping means the loop device under it; any other name is taken as it
 * is, even one that does not exist, and the action itself fails on it,
 * as in util-linux 2.40 and later.
 */
static int bind_device(struct loopdev *ld, const char *name)
{
	int rc = loopdev_set_named(ld, name);

	return rc == -ENODEV ? loopdev_set_device(ld, name) : rc;
}

/* ... or die like util-linux; @named: a dm mapping may stand for it */
static void use_device(struct loopdev *ld, const char *name, bool named)
{
	int rc = named ? bind_device(ld, name) : loopdev_set_device(ld, name);

	if (rc) {
		errno = -rc;
		err(EXIT_FAILURE, "%s: failed to use device", name);
	}
}

static void parse_options(int argc, char **argv, struct cmdline *cl, struct loopdev *ld)
{
	struct option longopts[OPT_MAX + 1];
	char shortopts[3 * OPT_MAX + 1];
	int excl_st[8] = { 0 };
	int c, g;

	opt_build_getopt(&losetup_opts, 1, longopts, shortopts);
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		g = excl_check(c, opt_excl, excl_st);
		if (g)
			report_exclusive(excl_st[g - 1], c);

		switch (c) {
		case 'a':
			cl->act = A_SHOW;
			break;
		case 'b':
			cl->set_blocksize = true;
			cl->create.blocksize = size_or_die(optarg, "failed to parse logical block size");
			break;
		case 'c':
			cl->act = A_SET_CAPACITY;
			break;
		case 'r':
			cl->create.lo_flags |= LO_FLAGS_READ_ONLY;
			break;
		case 'd':
			cl->act = A_DELETE;
			break;
		case OPT_REMOVE:
			cl->act = A_REMOVE;
			break;
		case 'D':
			cl->act = A_DELETE_ALL;
			break;
		case 'f':
			cl->act = A_FIND_FREE;
			break;
		case 'J':
			cl->list.json = true;
			break;
		case 'j':
			cl->act = A_SHOW;
			cl->file = optarg;
			break;
		case 'l':
			cl->list_mode = true;
			break;
		case 'L':
			cl->create.nooverlap = true;
			break;
		case 'n':
			cl->list.no_headings = true;
			break;
		case OPT_RAW:
			cl->list.raw = true;
			break;
		case 'o':
			cl->create.offset = size_or_die(optarg, "failed to parse offset");
			cl->has_offset = true;
			break;
		case 'O':
			cl->outarg = optarg;
			cl->list_mode = true;
			break;
		case OPT_OUTPUT_ALL:
			/* util-linux 2.40: a table, even with -a or alone */
			columns_set_all(&cl->list);
			cl->list_mode = true;
			break;
		case OPT_REF:
			/* like util-linux, ignored when nothing is set up */
			cl->create.refname = optarg;
			break;
		case 'P':
			cl->create.lo_flags |= LO_FLAGS_PARTSCAN;
			break;
		case OPT_SHOW:
			cl->showdev = true;
			break;
		case OPT_SWAP:
			cl->swap = true;
			break;
		case OPT_DIO:
			cl->use_dio = 1;
			cl->set_dio = true;
			if (optarg) {
				if (!strcmp(optarg, "on"))
					cl->use_dio = 1;
				else if (!strcmp(optarg, "off"))
					cl->use_dio = 0;
				else
					errx(EXIT_FAILURE, "unsupported argument: %s", optarg);
			}
			if (cl->use_dio)
				cl->create.lo_flags |= LO_FLAGS_DIRECT_IO;
			break;
		case 'v':
			/* 2.41's no-op, gone from 2.42 */
			break;
		case OPT_SIZELIMIT:
			cl->create.sizelimit = size_or_die(optarg, "failed to parse size");
			cl->has_sizelimit = true;
			break;
		case 'F':
			cl->from_fstab = true;
			break;
		case OPT_LIST_CIPHERS:
			cl->list_ciphers = true;
			break;
		case 'h':
			usage();
		case 'V':
			printf("%s from %s\n", program_invocation_short_name, PACKAGE_STRING);
			exit(EXIT_SUCCESS);
		default:
			if (!crypt_opt_parse(&cl->crypt, c, optarg))
				try_help();
		}
	}
}

/* Work out the action from what remains on the command line. */
static void resolve_action(int argc, char **argv, struct cmdline *cl, struct loopdev *ld)
{
	if (cl->list_ciphers) {
		cl->act = A_LIST_CIPHERS;
		return;
	}
	if (cl->from_fstab) {
		if (optind + 1 != argc)
			errx(EXIT_FAILURE, "-F takes exactly one loop device");
#ifdef HAVE_LIBMOUNT
		setup_from_fstab(argv[optind], argc, argv);
#else
		errx(EXIT_FAILURE, "-F needs libmount, which this losetup was built without");
#endif
	}
	if (argc == 1) {
		cl->act = A_SHOW;
		cl->list_mode = true;
	}
	if (!cl->act && argc == 2 && (cl->list.raw || cl->list.json)) {
		cl->act = A_SHOW;
		cl->list_mode = true;
	}
	if (cl->list_mode && !cl->list.ncolumns)
		columns_set_default(&cl->list);

	/* loop-AES's "-P KEYFILE": here -P is util-linux's partscan, and the
	 * key file is left over as one argument too many */
	if ((cl->create.lo_flags & LO_FLAGS_PARTSCAN) && loop_attach_requested(&cl->crypt) &&
	    argc - optind == (cl->act == A_FIND_FREE ? 2 : cl->act ? -1 : 3))
		errx(EXIT_FAILURE, "-P is --partscan here, as in util-linux; loop-AES's "
		     "-P KEYFILE is --cleartext-keyfile KEYFILE");
	if (cl->act == A_FIND_FREE && optind < argc) {
		cl->act = A_CREATE;
		cl->create.file = argv[optind++];
		if (optind < argc)
			errx(EXIT_FAILURE, "unexpected arguments");
	}
	if (cl->list_mode && !cl->act && optind == argc)
		cl->act = A_SHOW;

	/* the device is the first operand, wherever the option is */
	if (cl->act == A_SET_CAPACITY || cl->act == A_DELETE || cl->act == A_REMOVE) {
		if (optind >= argc)
			errx(EXIT_FAILURE, "no loop device specified");
		use_device(ld, argv[optind++], true);
	}
	if (!cl->act && optind + 1 == argc) {
		if (cl->set_dio) {
			cl->act = A_SET_DIRECT_IO;
			cl->create.lo_flags &= ~LO_FLAGS_DIRECT_IO;
		} else if (cl->set_blocksize) {
			cl->act = A_SET_BLOCKSIZE;
		} else {
			cl->act = A_SHOW_ONE;
		}
		use_device(ld, argv[optind++], true);
	}
	if (!cl->act) {
		cl->act = A_CREATE;
		if (optind >= argc)
			errx(EXIT_FAILURE, "no loop device specified");
		/* the device may not exist yet: it is created on demand */
		use_device(ld, argv[optind++], false);
		if (optind >= argc)
			errx(EXIT_FAILURE, "no file specified");
		cl->create.file = argv[optind++];
	}

	if (cl->act != A_CREATE &&
	    (cl->create.sizelimit || cl->create.lo_flags || cl->showdev))
		errx(EXIT_FAILURE, "the options %s are allowed during loop device setup only",
		     "--{sizelimit,partscan,read-only,show}");
	if (cl->act != A_CREATE && cl->swap)
		errx(EXIT_FAILURE, "the option --swap is allowed during loop device setup only");
	if (cl->swap)
		swap_refuse_early(cl->crypt.encryption, cl->create.file);
	/* -c unlocks a LUKS2 mapping again: its volume key is in no table */
	if (cl->act == A_SET_CAPACITY && !crypt_unlock_only(&cl->crypt))
		errx(EXIT_FAILURE, "of the encryption options, -c takes only --pass-fd, "
		     "--allow-empty-passphrase, --cleartext-keyfile and --header (for a "
		     "LUKS mapping)");
	if (cl->act != A_CREATE && cl->act != A_SET_CAPACITY &&
	    loop_attach_requested(&cl->crypt))
		errx(EXIT_FAILURE, "the encryption options are allowed during loop device setup only");
	if (cl->has_offset && cl->act != A_CREATE && (cl->act != A_SHOW || !cl->file))
		errx(EXIT_FAILURE, "the option --offset is not allowed in this context");
	if (cl->outarg && columns_parse(&cl->list, cl->outarg) < 0)
		exit(EXIT_FAILURE);
}

static int detach_one(struct loopdev *ld)
{
	if (!detach_device(ld))
		return 0;
	warn_lost(ld);
	return -1;
}

static int detach_cb(struct loopdev *ld, void *data)
{
	*(int *)data += detach_one(ld);
	return 0;
}

/* LOOP_CTL_REMOVE: the device goes away altogether (util-linux 2.42) */
static int remove_one(struct loopdev *ld)
{
	int rc = loopdev_ctl_remove(ld);

	if (rc) {
		errno = -rc;
		warn("%s: remove failed", loopdev_get_path(ld));
	}
	return rc ? -1 : 0;
}

/* Run @fn on the bound device, then on each remaining operand; every
 * device is tried, and any failure fails the command. */
static int for_each_operand(struct loopdev *ld, int argc, char **argv,
			    int (*fn)(struct loopdev *ld))
{
	int res = fn(ld);

	for (; optind < argc; optind++) {
		int rc = bind_device(ld, argv[optind]);

		if (rc) {
			errno = -rc;
			warn("%s: failed to use device", argv[optind]);
		}
		res += fn(ld);
	}
	return res;
}

static int find_free(struct loopdev *ld)
{
	int rc = loopdev_find_free(ld, LOOPDEV_KIND_LOOP);

	if (rc) {
		errno = -rc;
		warn("cannot find an unused loop device");
		return rc;
	}
	printf("%s\n", device_name(ld));
	return 0;
}

/* Report a failed device ioctl as "DEVICE: WHAT failed: ERROR"; returns rc. */
static int report(int rc, const char *what, struct loopdev *ld)
{
	if (rc) {
		errno = -rc;
		warn("%s: %s failed", loopdev_get_path(ld), what);
	}
	return rc;
}

static int run(struct cmdline *cl, struct loopdev *ld, int argc, char **argv)
{
	struct file_filter filter;
	char shown[96];
	int res = 0;

	switch (cl->act) {
	case A_LIST_CIPHERS:
		res = list_ciphers();
		break;
	case A_CREATE:
		if (loop_attach_requested(&cl->crypt)) {
			res = create_encrypted(ld, &cl->create, &cl->crypt, shown, sizeof(shown));
		} else {
			res = create_loop(ld, &cl->create);
			snprintf(shown, sizeof(shown), "%s", loopdev_get_path(ld));
		}
		if (res == 0 && cl->swap)
			res = pin_for_swap(shown, cl->create.file);
		if (res == 0) {
			if (cl->showdev)
				printf("%s\n", shown);
			warn_size(cl->create.file, cl->create.sizelimit,
				  cl->create.offset, cl->has_offset);
		}
		break;
	case A_DELETE:
		res = for_each_operand(ld, argc, argv, detach_one);
		break;
	case A_REMOVE:
		res = for_each_operand(ld, argc, argv, remove_one);
		break;
	case A_DELETE_ALL:
		loopdev_set_device(ld, NULL);
		for_each_used_device(ld, NULL, detach_cb, &res);
		break;
	case A_FIND_FREE:
		res = find_free(ld);
		break;
	case A_SHOW:
		/* dead daemons and other boots leave records: drop them first */
		crypt_gc();
		file_filter_init(&filter, cl->file, cl->create.offset,
				 cl->has_offset ? LOOPDEV_MATCH_OFFSET : 0);
		loopdev_set_device(ld, NULL);
		if (cl->list_mode)
			res = show_table(ld, &cl->list, cl->file ? &filter : NULL);
		else
			res = show_all_lines(cl->file ? &filter : NULL);
		file_filter_done(&filter);
		break;
	case A_SHOW_ONE:
		if (cl->list_mode)
			res = show_table(ld, &cl->list, NULL);
		else
			res = print_device_line(ld);
		if (res)
			warn("%s", loopdev_get_path(ld));
		break;
	case A_SET_CAPACITY:
		res = resize_device(ld, &cl->crypt);
		break;
	case A_SET_DIRECT_IO:
		if (crypt_state(ld) && loop_state_get_engine(crypt_state(ld)) == LOOP_ENGINE_FUSE) {
			/* the loop device's flag would only change the hop to the
			 * daemon, never how the image is read: refuse, do not pretend */
			warnx("%s: --direct-io is not supported by the fuse engine "
			      "(its daemon reads and writes the image itself, buffered)",
			      crypt_device_name(ld));
			res = -EOPNOTSUPP;
			break;
		}
		res = report(loopdev_set_direct_io(ld, (int)cl->use_dio),
			     "set direct io", ld);
		break;
	case A_SET_BLOCKSIZE:
		res = report(loopdev_set_block_size(ld, (uint32_t)cl->create.blocksize),
			     "set logical block size", ld);
		break;
	default:
		warnx("bad usage");
		try_help();
	}
	return res;
}

int main(int argc, char **argv)
{
	struct cmdline cl = { 0 };
	struct loopdev *ld;
	int res;

	loop_attach_opts_init(&cl.crypt);
	setlocale(LC_ALL, "");
	if (loopdev_new(&ld))
		err(EXIT_FAILURE, "failed to initialize loopcxt");

	parse_options(argc, argv, &cl, ld);
	resolve_action(argc, argv, &cl, ld);
	res = run(&cl, ld, argc, argv);
	/* as util-linux: a failure on a device whose node is gone says so */
	if (res && (cl.act == A_SET_CAPACITY || cl.act == A_CREATE ||
		    cl.act == A_SET_DIRECT_IO || cl.act == A_SET_BLOCKSIZE))
		warn_lost(ld);

	loopdev_free(ld);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return EXIT_FAILURE;
		err(EXIT_FAILURE, "write error");
	}
	return res ? EXIT_FAILURE : EXIT_SUCCESS;
}
