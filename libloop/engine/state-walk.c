// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The state records walked (foreach, lookup, resolve, gc) and judged
 * against the engines: a record is stale when its device
 * no longer holds what it says (detached behind our back, the daemon or
 * the mapping gone, another boot). Stale records are cleaned up on
 * sight, through the engine that made them.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/private.h"
#include "engine/engine-private.h"

LIBLOOP_EXPORT int loop_state_alive(const struct loop_state *st)
{
	const struct loop_engine_ops *ops = loop_engine_ops_get(st->engine);

	return ops && ops->alive ? ops->alive(st) : 1;
}

int loop_state_is_stale(const struct loop_state *st)
{
	const struct loop_engine_ops *ops = loop_engine_ops_get(st->engine);
	char boot[40];

	if (loop_boot_id(boot, sizeof(boot)) == 0 && strcmp(boot, st->boot_id))
		return 1;
	/* an engine this build lacks: its record is not ours to judge */
	if (!ops)
		return 0;
	return !ops->owns(st);
}

void loop_state_remove(const struct loop_state *st)
{
	const struct loop_engine_ops *ops = loop_engine_ops_get(st->engine);

	if (ops && ops->release)
		ops->release(st);
	loop_state_unlink(st);
}

/* A directory whose attach never finished (the process died midway). */
static void clean_orphan_dir(const char *id)
{
	char dir[PATH_MAX], mnt[PATH_MAX + 8];

	if (!loop_state_dir_is_orphan(id))
		return;
	snprintf(dir, sizeof(dir), "%s/%s", LOOP_STATE_DIR, id);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	loop_fuse_unmount(mnt);
	rmdir(mnt);
	rmdir(dir);
}

struct walk_ctx {
	/* NULL, or 0 for records @fn need not see: those are not judged */
	int (*want)(const struct loop_state *st, void *data);
	int (*fn)(const struct loop_state *st, void *data);
	int (*corrupt)(const char *path, void *data);
	void *data;
	int removed;
	struct loop_state st;
};

static int walk_one(const char *id, void *data)
{
	struct walk_ctx *w = data;
	int rc = loop_state_read(id, &w->st);

	/* a corrupt record proves nothing: it, its device, daemon and mount
	 * are left alone, and the caller hears of it */
	if (rc == -EBADMSG) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s/state", LOOP_STATE_DIR, id);
		return w->corrupt ? w->corrupt(path, w->data) : 0;
	}
	if (rc < 0) {
		clean_orphan_dir(id);
		return 0;
	}
	/* judging a record costs its device's sysfs and the daemon's /proc:
	 * a lookup pays that only for the record it is after */
	if (w->want && !w->want(&w->st, w->data))
		return 0;
	if (loop_state_is_stale(&w->st)) {
		loop_state_remove(&w->st);
		w->removed++;
		return 0;
	}
	return w->fn ? w->fn(&w->st, w->data) : 0;
}

/* Walk the records; with @fn NULL just collect the garbage. */
static int walk_wanted(int (*want)(const struct loop_state *st, void *data),
		       int (*fn)(const struct loop_state *st, void *data), void *data,
		       int *removed, int (*corrupt)(const char *path, void *data))
{
	struct walk_ctx *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -ENOMEM;
	w->want = want;
	w->fn = fn;
	w->corrupt = corrupt;
	w->data = data;
	rc = loop_state_each_id(walk_one, w);
	if (removed)
		*removed = w->removed;
	free(w);
	return rc;
}

static int walk(int (*fn)(const struct loop_state *st, void *data), void *data,
		int *removed, int (*corrupt)(const char *path, void *data))
{
	return walk_wanted(NULL, fn, data, removed, corrupt);
}

LIBLOOP_EXPORT int loop_state_foreach(int (*fn)(const struct loop_state *st, void *data),
				      void *data)
{
	return walk(fn, data, NULL, NULL);
}

LIBLOOP_EXPORT int loop_state_foreach_corrupt(int (*fn)(const char *path, void *data),
					      void *data)
{
	return walk(NULL, data, NULL, fn);
}

LIBLOOP_EXPORT int loop_state_gc(void)
{
	int removed = 0, rc = walk(NULL, NULL, &removed, NULL);

	return rc < 0 ? rc : removed;
}

/* The loop device a record stands on. */
static void record_loop_device(const struct loop_state *st, char *buf, size_t size)
{
	const struct loop_engine_ops *ops = loop_engine_ops_get(st->engine);

	if (ops && ops->loop_device)
		ops->loop_device(st, buf, size);
	else
		snprintf(buf, size, "%s", st->device);
}

struct lookup_ctx {
	const char *device;
	struct loop_state *out;
};

static int lookup_want(const struct loop_state *st, void *data)
{
	struct lookup_ctx *l = data;
	char lower[96];

	if (!strcmp(st->device, l->device))
		return 1;
	record_loop_device(st, lower, sizeof(lower));
	return !strcmp(lower, l->device);
}

static int lookup_cb(const struct loop_state *st, void *data)
{
	struct lookup_ctx *l = data;

	*l->out = *st;
	return 1;
}

LIBLOOP_EXPORT int loop_state_lookup(struct loopdev *ld, struct loop_state *st)
{
	struct lookup_ctx l = { loopdev_get_path(ld), st };
	int rc;

	if (!l.device)
		return -EINVAL;
	rc = walk_wanted(lookup_want, lookup_cb, &l, NULL, NULL);
	DBG(STATE, l.device, "lookup: %s", rc < 0 ? strerror(-rc) :
	    rc == 1 ? st->id : "no record");
	if (rc < 0)
		return rc;
	return rc == 1 ? 0 : -ENOENT;
}

struct resolve_ctx {
	const char *name;
	char real[PATH_MAX];
	char *buf;
	size_t size;
};

static int resolve_cb(const struct loop_state *st, void *data)
{
	struct resolve_ctx *r = data;
	char real[PATH_MAX];

	if (strcmp(st->device, r->name) &&
	    (!realpath(st->device, real) || strcmp(real, r->real)))
		return 0;
	record_loop_device(st, r->buf, r->size);
	return 1;
}

LIBLOOP_EXPORT int loop_state_resolve(const char *name, char *buf, size_t size)
{
	struct resolve_ctx *r;
	int rc;

	if (!name || !buf || !size)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->name = name;
	r->buf = buf;
	r->size = size;
	if (!realpath(name, r->real))
		snprintf(r->real, sizeof(r->real), "%s", name);
	rc = walk(resolve_cb, r, NULL, NULL);
	free(r);
	if (rc < 0)
		return rc;
	return rc == 1 ? 0 : -ENOENT;
}
