// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/cryptoloop-control: add, remove and find free devices, with the
 * same ioctls as /dev/loop-control so one library drives both.
 */
#include <linux/fs.h>
#include <linux/loop.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "cryptoloop.h"

static long clo_control_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	/* The argument is a device number, never a pointer. */
	switch (cmd) {
	case LOOP_CTL_ADD:
		return clo_add(arg > INT_MAX ? -1 : (int)arg);
	case LOOP_CTL_REMOVE:
		return clo_remove(arg > INT_MAX ? -1 : (int)arg);
	case LOOP_CTL_GET_FREE:
		return clo_get_free();
	}
	return -ENOTTY;
}

static const struct file_operations clo_control_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= clo_control_ioctl,
	.compat_ioctl	= clo_control_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice clo_control_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= CLO_NAME "-control",
	.fops	= &clo_control_fops,
	.mode	= 0600,
};

int clo_control_register(void)
{
	return misc_register(&clo_control_dev);
}

void clo_control_unregister(void)
{
	misc_deregister(&clo_control_dev);
}
