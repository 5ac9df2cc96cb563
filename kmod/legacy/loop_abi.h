/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loop transfer ABI of drivers/block/loop.h, for kernels 5.4 to 5.15.
 */
#ifndef CLX_LOOP_ABI_H
#define CLX_LOOP_ABI_H

#include <linux/fs.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/version.h>
#include <uapi/linux/loop.h>

#if KERNEL_VERSION(5, 16, 0) <= LINUX_VERSION_CODE
#error "Linux 5.16 removed the loop transfer hooks: use kmod/ (cryptoloop.ko)"
#elif KERNEL_VERSION(5, 4, 0) > LINUX_VERSION_CODE
#error "cryptoloop_xfer declares the loop.c ABI of 5.4 to 5.15 only"
#endif

/*
 * drivers/block/loop.h is not installed with the kernel headers, so we
 * declare the part of its ABI we use, copied member by member from the
 * loop.h of Debian's 5.10.262 source.  Upstream's changes to struct
 * loop_device between 5.4 and 5.15 (kthread worker, then workqueue and
 * lo_mutex) all touch members after key_data; only 5.10 is tested.
 * loop.c allocates struct loop_device and we only follow pointers to it,
 * so the members after key_data are deliberately left out.
 */
struct loop_device;

typedef int (*clx_transfer_fn)(struct loop_device *lo, int cmd,
			       struct page *raw_page, unsigned int raw_off,
			       struct page *loop_page, unsigned int loop_off,
			       int size, sector_t real_block);

struct loop_device {
	int lo_number;
	atomic_t lo_refcnt;
	loff_t lo_offset;
	loff_t lo_sizelimit;
	int lo_flags;
	clx_transfer_fn transfer;
	char lo_file_name[LO_NAME_SIZE];
	char lo_crypt_name[LO_NAME_SIZE];
	char lo_encrypt_key[LO_KEY_SIZE];
	int lo_encrypt_key_size;
	struct loop_func_table *lo_encryption;
	__u32 lo_init[2];
	kuid_t lo_key_owner;
	int (*ioctl)(struct loop_device *lo, int cmd, unsigned long arg);
	struct file *lo_backing_file;
	struct block_device *lo_device;
	void *key_data;
	/* ... loop.c's private members follow */
};

struct loop_func_table {
	int number;
	clx_transfer_fn transfer;
	int (*init)(struct loop_device *lo, const struct loop_info64 *info);
	int (*release)(struct loop_device *lo);
	int (*ioctl)(struct loop_device *lo, int cmd, unsigned long arg);
	struct module *owner;
};

int loop_register_transfer(struct loop_func_table *funcs);
int loop_unregister_transfer(int number);

#endif /* CLX_LOOP_ABI_H */
