/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * The numbers the kernel modules (kmod/, kmod/legacy/) and userspace
 * (libloop, losetup) must agree on, defined here only.  They are
 * loop-AES's: its multi-key ioctls, the lo_flags bits that report them and
 * its lo_encrypt_type cipher numbers.  Plain constants, no types, so the
 * kernel and userspace include this header alike (the kernel module trees
 * carry a copy in format/).
 */
#ifndef _UAPI_CRYPTOLOOP_ABI_H
#define _UAPI_CRYPTOLOOP_ABI_H

/*
 * loop-AES's multi-key ioctls (its loop.h).  The argument points to 64
 * (v2) or 65 (v3) key slots of 32 bytes each; the key length is the one
 * given earlier with LOOP_SET_STATUS64.  Of the 65th slot only the first
 * 16 bytes are read: they seed the MD5 IV.  The sector number picks the
 * key by its low bits, so the key count must be a power of two.
 */
#define CLO_MULTI_KEY_SETUP	0x4C4D
#define CLO_MULTI_KEY_SETUP_V3	0x4C4E
#define CLO_MULTI_KEYS		64
#define CLO_MULTI_KEYS_V3	(CLO_MULTI_KEYS + 1)
#define CLO_KEY_SLOT		32
#define CLO_LMK_SEED_BYTES	16

/* Bytes a multi-key ioctl reads from its argument. */
#define CLO_MULTI_KEY_BYTES(v3) \
	(CLO_MULTI_KEYS * CLO_KEY_SLOT + ((v3) ? CLO_LMK_SEED_BYTES : 0))

/* loop-AES reports multi-key mode in lo_flags; cryptoloop.ko does too. */
#define CLO_FLAGS_MULTI_KEY	0x100000
#define CLO_FLAGS_MULTI_KEY_V3	0x080000

/*
 * loop-AES's own cipher numbers (its loop_func_table "number"s), used by
 * its losetup for lo_encrypt_type: plain64 IV, key size in bits or bytes.
 * Twofish and blowfish share their numbers with <linux/loop.h>'s
 * LO_CRYPT_FISH2 and LO_CRYPT_BLOW; a cipher named in lo_crypt_name
 * travels as LO_CRYPT_CRYPTOAPI.
 */
#define CLO_CRYPT_LOOPAES_TWOFISH	3
#define CLO_CRYPT_LOOPAES_BLOWFISH	4
#define CLO_CRYPT_LOOPAES_SERPENT	7
#define CLO_CRYPT_LOOPAES_AES		16

#endif /* _UAPI_CRYPTOLOOP_ABI_H */
