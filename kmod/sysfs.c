// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/block/cryptoloopN/loop/: present while the device is bound.
 *
 * The directory and the attributes it shares with loop keep loop's names
 * (backing_file, offset, sizelimit, autoclear, partscan, dio), so a
 * library reads /sys/block/loopN/loop/ and ours the same way.  Added:
 * cipher (as GET_STATUS64 reports it, e.g. "aes-cbc-plain"), key_size
 * (bytes) and multi_key (0, 64 or 65).  There is no key attribute.
 * swap (0 or 1, writable by root) pins a backing file and sends I/O to
 * its blocks directly, see extents.c.
 */
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "cryptoloop.h"

static struct clo_device *clo_from_dev(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

/*
 * Run @show on a bound device under its lock; an attribute read racing
 * with detach sees ENXIO rather than a half torn-down device.
 */
static ssize_t clo_attr_show(struct device *dev, char *buf,
			     ssize_t (*show)(struct clo_device *, char *))
{
	struct clo_device *lo = clo_from_dev(dev);
	ssize_t ret;

	ret = clo_lock_bound(lo);
	if (ret)
		return ret;
	ret = show(lo, buf);
	mutex_unlock(&lo->lock);
	return ret;
}

static ssize_t clo_show_backing_file(struct clo_device *lo, char *buf)
{
	char *p = file_path(lo->backing, buf, PAGE_SIZE - 1);
	size_t len;

	if (IS_ERR(p))
		return PTR_ERR(p);
	len = strlen(p);
	memmove(buf, p, len);
	buf[len++] = '\n';
	return len;
}

static ssize_t clo_show_offset(struct clo_device *lo, char *buf)
{
	return sysfs_emit(buf, "%llu\n", (unsigned long long)lo->offset);
}

static ssize_t clo_show_sizelimit(struct clo_device *lo, char *buf)
{
	return sysfs_emit(buf, "%llu\n", (unsigned long long)lo->sizelimit);
}

static ssize_t clo_show_autoclear(struct clo_device *lo, char *buf)
{
	return sysfs_emit(buf, "%d\n", !!(lo->flags & LO_FLAGS_AUTOCLEAR));
}

static ssize_t clo_show_partscan(struct clo_device *lo, char *buf)
{
	return sysfs_emit(buf, "%d\n", !!(lo->flags & LO_FLAGS_PARTSCAN));
}

static ssize_t clo_show_dio(struct clo_device *lo, char *buf)
{
	return sysfs_emit(buf, "%d\n", !!(lo->flags & LO_FLAGS_DIRECT_IO));
}

static ssize_t clo_show_cipher(struct clo_device *lo, char *buf)
{
	char spec[LO_NAME_SIZE] = "";

	if (lo->crypt)
		clo_crypt_spec(lo->crypt, spec, sizeof(spec));
	return sysfs_emit(buf, "%s\n", spec);
}

static ssize_t clo_show_key_size(struct clo_device *lo, char *buf)
{
	return sysfs_emit(buf, "%u\n", lo->crypt ? lo->crypt->key_size : 0);
}

static ssize_t clo_show_multi_key(struct clo_device *lo, char *buf)
{
	unsigned int n = 0;

	if (lo->crypt && lo->crypt->ntfms > 1)
		n = lo->crypt->lmk_v3 ? CLO_MULTI_KEYS_V3 : CLO_MULTI_KEYS;
	return sysfs_emit(buf, "%u\n", n);
}

static ssize_t clo_show_swap(struct clo_device *lo, char *buf)
{
	return sysfs_emit(buf, "%d\n", !!lo->extents);
}

static ssize_t swap_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct clo_device *lo = clo_from_dev(dev);
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	err = clo_lock_bound(lo);
	if (err)
		return err;
	err = clo_extents_set(lo, on);
	mutex_unlock(&lo->lock);
	return err ? err : count;
}

#define CLO_ATTR_RO(_name)						\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return clo_attr_show(dev, buf, clo_show_##_name);		\
}									\
static DEVICE_ATTR_RO(_name)

CLO_ATTR_RO(backing_file);
CLO_ATTR_RO(offset);
CLO_ATTR_RO(sizelimit);
CLO_ATTR_RO(autoclear);
CLO_ATTR_RO(partscan);
CLO_ATTR_RO(dio);
CLO_ATTR_RO(cipher);
CLO_ATTR_RO(key_size);
CLO_ATTR_RO(multi_key);

static ssize_t swap_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return clo_attr_show(dev, buf, clo_show_swap);
}
static DEVICE_ATTR_RW(swap);

static struct attribute *clo_attrs[] = {
	&dev_attr_backing_file.attr,
	&dev_attr_offset.attr,
	&dev_attr_sizelimit.attr,
	&dev_attr_autoclear.attr,
	&dev_attr_partscan.attr,
	&dev_attr_dio.attr,
	&dev_attr_cipher.attr,
	&dev_attr_key_size.attr,
	&dev_attr_multi_key.attr,
	&dev_attr_swap.attr,
	NULL,
};

static const struct attribute_group clo_attr_group = {
	.name	= "loop",
	.attrs	= clo_attrs,
};

/* Called with lo->lock held: creating does not wait for readers. */
int clo_sysfs_add(struct clo_device *lo)
{
	int err;

	err = sysfs_create_group(&disk_to_dev(lo->disk)->kobj,
				 &clo_attr_group);
	lo->sysfs_ready = !err;
	return err;
}

/* Called without lo->lock: removal waits for readers, who take it. */
void clo_sysfs_remove(struct clo_device *lo)
{
	if (!lo->sysfs_ready)
		return;
	sysfs_remove_group(&disk_to_dev(lo->disk)->kobj, &clo_attr_group);
	lo->sysfs_ready = false;
}
