// SPDX-License-Identifier: GPL-2.0-or-later
/* Selecting the devices of "-j FILE [-o OFFSET]" while walking them all. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "losetup.h"

void file_filter_init(struct file_filter *f, const char *file,
		      uint64_t offset, int match)
{
	memset(f, 0, sizeof(*f));
	f->file = file;
	f->offset = offset;
	f->match = match;
	f->has_st = file && stat(file, &f->st) == 0;
}

bool file_filter_accepts(struct file_filter *f, struct loopdev *ld)
{
	const struct stat *st = f->has_st ? &f->st : NULL;

	const struct loop_state *cs;

	if (!f->file)
		return true;
	/* an encrypted device is associated with its real image */
	cs = crypt_state(ld);
	if (cs) {
		if (f->match & LOOPDEV_MATCH_OFFSET && loop_state_get_offset(cs) != f->offset)
			return false;
		if (f->has_st)
			return loop_state_get_image_dev(cs) == f->st.st_dev &&
			       loop_state_get_image_ino(cs) == f->st.st_ino;
		return !strcmp(loop_state_get_image(cs), f->file);
	}
	if (loopdev_is_backed_by(ld, st, f->file, f->offset, 0, f->match))
		return true;
	/* the kernel records the canonical name; a relative one may match it */
	if (!f->canon) {
		f->canon = realpath(f->file, NULL);
		if (!f->canon)
			f->canon = strdup(f->file);
	}
	return f->canon &&
	       loopdev_is_backed_by(ld, st, f->canon, f->offset, 0, f->match);
}

void file_filter_done(struct file_filter *f)
{
	free(f->canon);
	f->canon = NULL;
}

/* The devices of records that stand on no loop device (dm on a disk). */
struct loopless {
	char **dev;
	size_t n;
};

static int loopless_cb(const struct loop_state *st, void *data)
{
	struct loopless *l = data;
	const char *dev = loop_state_get_device(st);
	char lower[PATH_MAX];
	void *p;

	if (loop_state_resolve(dev, lower, sizeof(lower)) ||
	    strcmp(lower, dev) || loopdev_is_loop_device(dev))
		return 0;
	p = realloc(l->dev, (l->n + 1) * sizeof(*l->dev));
	if (!p)
		return -ENOMEM;
	l->dev = p;
	l->dev[l->n] = strdup(dev);
	if (!l->dev[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

/* Collected first: @fn may detach them, which removes their records. */
static int for_each_loopless_device(struct loopdev *ld, struct file_filter *f,
				    int (*fn)(struct loopdev *ld, void *data), void *data)
{
	struct loopless l = { NULL, 0 };
	size_t i;
	int rc = loop_state_foreach(loopless_cb, &l);

	for (i = 0; rc >= 0 && i < l.n; i++) {
		rc = loopdev_set_device(ld, l.dev[i]);
		if (rc)
			break;
		if (f && !file_filter_accepts(f, ld))
			continue;
		rc = fn(ld, data);
		if (rc)
			break;
	}
	for (i = 0; i < l.n; i++)
		free(l.dev[i]);
	free(l.dev);
	return rc < 0 ? rc : 0;
}

int for_each_used_device(struct loopdev *ld, struct file_filter *f,
			 int (*fn)(struct loopdev *ld, void *data), void *data)
{
	struct loopdev_iter *it;
	int rc;

	rc = loopdev_iter_new(&it, LOOPDEV_KIND_LOOP,
			      LOOPDEV_ITER_USED | LOOPDEV_ITER_ANY_KIND);
	if (rc)
		return rc;
	while (loopdev_iter_next(it, ld) == 0) {
		if (f && !file_filter_accepts(f, ld))
			continue;
		rc = fn(ld, data);
		if (rc)
			break;
	}
	loopdev_iter_free(it);
	if (rc == 0)
		rc = for_each_loopless_device(ld, f, fn, data);
	return rc;
}
