/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared state of the losetup command. */
#ifndef LOSETUP_H
#define LOSETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "libloop.h"
#include "cli/size.h"

/* What the command line asks for. */
enum losetup_action {
	A_NONE = 0,
	A_CREATE,		/* attach a file to a device */
	A_DELETE,		/* detach devices */
	A_DELETE_ALL,
	A_REMOVE,		/* LOOP_CTL_REMOVE */
	A_SHOW,			/* list devices (all, or those of a file) */
	A_SHOW_ONE,
	A_FIND_FREE,
	A_SET_CAPACITY,
	A_SET_DIRECT_IO,
	A_SET_BLOCKSIZE,
	A_LIST_CIPHERS,
};

/* Output columns, in the order of the column table. */
enum losetup_column {
	COL_NAME = 0,
	COL_AUTOCLR,
	COL_BACK_FILE,
	COL_BACK_INO,
	COL_BACK_MAJMIN,
	COL_BACK_MAJ,
	COL_BACK_MIN,
	COL_MAJMIN,
	COL_MAJ,
	COL_MIN,
	COL_OFFSET,
	COL_PARTSCAN,
	COL_REF,
	COL_RO,
	COL_SIZELIMIT,
	COL_DIO,
	COL_LOGSEC,
	COL_UL_COUNT,		/* util-linux's columns end here */
	COL_CIPHER = COL_UL_COUNT,
	COL_KEYBITS,
	COL_ENGINE,
	COL_MULTIKEY,
	COL_COUNT
};

struct column_info {
	const char *name;
	double whint;
	int flags;		/* SCOLS_FL_* */
	const char *help;
	int json_type;		/* SCOLS_JSON_*; 0 is a string */
};

extern const struct column_info column_infos[COL_COUNT];

/* The list output's settings. */
struct list_opts {
	int columns[COL_COUNT * 2];
	size_t ncolumns;
	bool no_headings;
	bool raw;
	bool json;
};

/* filter.c: which devices "-j FILE [-o OFFSET]" selects */
struct file_filter {
	const char *file;
	char *canon;
	struct stat st;
	bool has_st;
	uint64_t offset;
	int match;		/* LOOPDEV_MATCH_* */
};
void file_filter_init(struct file_filter *f, const char *file,
		      uint64_t offset, int match);
bool file_filter_accepts(struct file_filter *f, struct loopdev *ld);
void file_filter_done(struct file_filter *f);
/* Call @fn for each attached device that @f accepts (all when NULL). */
int for_each_used_device(struct loopdev *ld, struct file_filter *f,
			 int (*fn)(struct loopdev *ld, void *data), void *data);

/* columns.c */
int column_name_to_id(const char *name, size_t len);
int columns_parse(struct list_opts *lo, const char *arg);
void columns_set_default(struct list_opts *lo);
void columns_set_all(struct list_opts *lo);

/* table.c: print the --list table; @ld bound means one device only */
int show_table(struct loopdev *ld, const struct list_opts *lo,
	       struct file_filter *f);

/* lost.c: the device's path, with util-linux's " (lost)" when its node
 * is gone (static storage) */
const char *device_name(struct loopdev *ld);
/* util-linux's hint about a lost device, when @ld is one */
void warn_lost(struct loopdev *ld);

/* list.c: the classic "-a" line format */
int print_device_line(struct loopdev *ld);
int show_all_lines(struct file_filter *f);

/* create.c */
struct create_opts {
	const char *file;
	uint64_t offset;
	uint64_t sizelimit;
	uint64_t blocksize;
	uint32_t lo_flags;
	bool nooverlap;
	const char *refname;	/* --loop-ref; NULL: the file's path */
};
int create_loop(struct loopdev *ld, const struct create_opts *c);

/* crypt.c: "losetup -e": attaching with the key options (libloop-attach.h) */
/* @shown receives the device to use (a dm mapping, for the dm engine) */
int create_encrypted(struct loopdev *ld, const struct create_opts *c,
		     const struct loop_attach_opts *k, char *shown, size_t size);
int list_ciphers(void);
/* -e NAME opens a LUKS volume (luks, luks1, luks2) */
bool crypt_is_luks(const char *name);
/* fstab.c: re-run with the options of the fstab line with loop=@device */
void setup_from_fstab(const char *device, int argc, char **argv)
	__attribute__((noreturn));
/* Remove records of encrypted devices that are gone (before listing). */
void crypt_gc(void);
/* The record of an encrypted device, or NULL (static storage). */
const struct loop_state *crypt_state(struct loopdev *ld);
/* loop-AES's name of the device's key mode: "multi-key-v2" (64 keys),
 * "multi-key-v3" (65), or NULL for a single key. */
const char *crypt_multikey_name(const struct loop_state *cs);
/* The name to show for @ld: a dm mapping on it, else its own path. */
const char *crypt_device_name(struct loopdev *ld);
/* -c: the loop device and whatever an engine put on it, a LUKS2 mapping
 * unlocked again with @k's -p, --cleartext-keyfile and --header; prints
 * the message. Returns -errno. */
int resize_device(struct loopdev *ld, const struct loop_attach_opts *k);
/* true when @k holds no key option but those -c takes for a LUKS2
 * mapping (-p, --cleartext-keyfile, --header, --allow-empty-passphrase) */
bool crypt_unlock_only(const struct loop_attach_opts *k);
/* Detach, tearing down an encrypted device's engine; util-linux's message. */
int detach_device(struct loopdev *ld);

/* swap.c: --swap on the device just set up; detaches it on failure */
int pin_for_swap(const char *device, const char *file);
/* exits with a message when --swap cannot work for -e @encryption on @file */
void swap_refuse_early(const char *encryption, const char *file);
void warn_size(const char *file, uint64_t sizelimit, uint64_t offset, bool has_offset);

/* excl.c: util-linux style mutually exclusive option groups */
#define EXCL_GROUP_MAX 16
typedef int excl_group_t[EXCL_GROUP_MAX];
/*
 * Record option @c; returns 0, or the index + 1 of the group whose other
 * member was already seen (the caller reports it).
 */
int excl_check(int c, const excl_group_t *groups, int *status);

#endif
