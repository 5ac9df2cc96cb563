// SPDX-License-Identifier: LGPL-2.1-or-later
/* The engines' tables by kind. */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>

#include "base/private.h"
#include "engine/engine-private.h"

/* NULL for dm: its table is in a module (module.c), loaded on first use. */
static const struct loop_engine_ops *const engine_ops[] = {
	[LOOP_ENGINE_FUSE] = &loop_engine_fuse_ops,
	[LOOP_ENGINE_KMOD] = &loop_engine_kmod_ops,
	[LOOP_ENGINE_XFER] = &loop_engine_xfer_ops,
	[LOOP_ENGINE_DM] = NULL,
};

static const struct loop_engine_ops *dm_ops;
static pthread_once_t dm_once = PTHREAD_ONCE_INIT;

/* The module stays loaded: its table is used until the process exits. */
static void dm_load(void)
{
	void *handle;

	if (loop_module_open("engine-dm", &handle) == 0)
		dm_ops = dlsym(handle, "loop_engine_dm_ops");
	DBG(ENGINE, "dm", "engine module %s", dm_ops ? "loaded" : "not available");
}

const struct loop_engine_ops *loop_engine_ops_get(enum loop_engine_kind kind)
{
	if (kind == LOOP_ENGINE_DM) {
		pthread_once(&dm_once, dm_load);
		return dm_ops;
	}
	if ((unsigned)kind >= sizeof(engine_ops) / sizeof(engine_ops[0]))
		return NULL;
	return engine_ops[kind];
}
