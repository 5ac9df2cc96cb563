// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoloop: module setup and the index of devices.
 *
 * A standalone block driver that speaks the loop ioctl ABI and encrypts
 * each 512-byte sector, byte compatible with the kernel's old cryptoloop
 * transfer (removed in 5.16) and with loop-AES's formats.  It coexists
 * with the kernel's own loop driver.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/xarray.h>

#include "cryptoloop.h"

static unsigned int nr_devices = 4;
module_param(nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices, "Devices created at load time (default 4)");

static unsigned int max_devices;
module_param(max_devices, uint, 0444);
MODULE_PARM_DESC(max_devices,
		 "Highest number of devices, 0 for no limit (default 0)");

/* Serialises the index and state changes that walk other devices. */
DEFINE_MUTEX(clo_ctl_mutex);
static DEFINE_XARRAY_ALLOC(clo_index);

/**
 * clo_add() - create a device
 * @index: the wanted number, or -1 for the lowest free one
 *
 * Return: the new device's number, -EEXIST if @index is taken, -ENOSPC
 * beyond max_devices, or another negative errno.
 */
int clo_add(int index)
{
	struct xa_limit limit = xa_limit_31b;
	struct clo_device *lo;
	u32 id;
	int err;

	if (max_devices)
		limit.max = min_t(u32, max_devices - 1, INT_MAX);
	if (index >= 0) {
		if (max_devices && index >= max_devices)
			return -ENOSPC;
		limit = XA_LIMIT(index, index);
	}
	err = mutex_lock_killable(&clo_ctl_mutex);
	if (err)
		return err;
	/*
	 * Reserve the number first (a NULL entry): the device is not
	 * findable until it is stored below.
	 */
	err = xa_alloc(&clo_index, &id, NULL, limit, GFP_KERNEL);
	mutex_unlock(&clo_ctl_mutex);
	if (err == -EBUSY)
		err = index >= 0 ? -EEXIST : -ENOSPC;
	if (err)
		return err;

	lo = clo_device_alloc(id);
	mutex_lock(&clo_ctl_mutex);
	if (IS_ERR(lo)) {
		xa_erase(&clo_index, id);
		mutex_unlock(&clo_ctl_mutex);
		return PTR_ERR(lo);
	}
	lo->visible = true;
	/* The slot is reserved: storing into it allocates nothing. */
	xa_store(&clo_index, id, lo, GFP_KERNEL);
	mutex_unlock(&clo_ctl_mutex);
	return id;
}

/**
 * clo_remove() - delete an unbound, unopened device
 * @index: its number
 *
 * Return: 0, -ENODEV if there is no such device, -EBUSY if it is bound or
 * open.
 */
int clo_remove(int index)
{
	struct clo_device *lo;
	int err;

	if (index < 0)
		return -EINVAL;
	err = mutex_lock_killable(&clo_ctl_mutex);
	if (err)
		return err;
	lo = xa_load(&clo_index, index);
	if (!lo || !lo->visible) {
		mutex_unlock(&clo_ctl_mutex);
		return -ENODEV;
	}
	/* Hide it so no one finds it while we look at it unlocked. */
	lo->visible = false;
	mutex_unlock(&clo_ctl_mutex);

	mutex_lock(&lo->lock);
	if (lo->state != CLO_UNBOUND || disk_openers(lo->disk) > 0) {
		mutex_unlock(&lo->lock);
		mutex_lock(&clo_ctl_mutex);
		lo->visible = true;
		mutex_unlock(&clo_ctl_mutex);
		return -EBUSY;
	}
	lo->state = CLO_DELETING;
	mutex_unlock(&lo->lock);

	/* del_gendisk() takes the open_mutex: no locks of ours held. */
	clo_device_free(lo);
	mutex_lock(&clo_ctl_mutex);
	xa_erase(&clo_index, index);
	mutex_unlock(&clo_ctl_mutex);
	return 0;
}

/**
 * clo_get_free() - find an unbound device, creating one if none is free
 *
 * Return: its number or a negative errno.
 */
int clo_get_free(void)
{
	struct clo_device *lo;
	unsigned long id;
	int err;

	err = mutex_lock_killable(&clo_ctl_mutex);
	if (err)
		return err;
	/* Reserved numbers read as NULL and are skipped. */
	xa_for_each(&clo_index, id, lo) {
		/* A stale state only means we create a device: harmless. */
		if (lo->visible && data_race(lo->state) == CLO_UNBOUND) {
			mutex_unlock(&clo_ctl_mutex);
			return id;
		}
	}
	mutex_unlock(&clo_ctl_mutex);
	return clo_add(-1);
}

static void clo_remove_all(void)
{
	struct clo_device *lo;
	unsigned long id;

	/*
	 * Only reached from module exit: bound devices hold a module
	 * reference and open ones hold one through clo_fops.owner, so every
	 * device is unbound and closed here.
	 */
	xa_for_each(&clo_index, id, lo)
		clo_device_free(lo);
	xa_destroy(&clo_index);
}

static int __init clo_init(void)
{
	unsigned int i;
	int err;

	if (max_devices && nr_devices > max_devices)
		nr_devices = max_devices;

	err = clo_major_register();
	if (err)
		return err;
	err = clo_control_register();
	if (err)
		goto unregister_major;
	for (i = 0; i < nr_devices; i++) {
		err = clo_add(i);
		if (err < 0)
			goto remove_devices;
	}
	pr_info("loaded, %u devices\n", nr_devices);
	return 0;

remove_devices:
	clo_control_unregister();
	clo_remove_all();
unregister_major:
	clo_major_unregister();
	return err;
}

static void __exit clo_exit(void)
{
	/* No new devices can appear once the control device is gone. */
	clo_control_unregister();
	clo_remove_all();
	clo_major_unregister();
}

module_init(clo_init);
module_exit(clo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Encrypted loop block devices (cryptoloop and loop-AES formats)");
MODULE_AUTHOR("The cryptoloop project");
MODULE_VERSION(CLO_VERSION);
MODULE_SOFTDEP("pre: cbc aes");
