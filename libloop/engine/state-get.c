// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct loop_state is opaque to libloop's users, so that a record can
 * gain fields without breaking them: they allocate it here and read it
 * through these accessors (as libmount does with struct libmnt_fs).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/private.h"
#include "engine/engine-private.h"

LIBLOOP_EXPORT int loop_state_new(struct loop_state **st)
{
	if (!st)
		return -EINVAL;
	*st = calloc(1, sizeof(**st));
	return *st ? 0 : -ENOMEM;
}

LIBLOOP_EXPORT void loop_state_free(struct loop_state *st)
{
	free(st);
}

LIBLOOP_EXPORT const char *loop_state_get_id(const struct loop_state *st)
{
	return st->id;
}

LIBLOOP_EXPORT const char *loop_state_get_device(const struct loop_state *st)
{
	return st->device;
}

LIBLOOP_EXPORT const char *loop_state_get_image(const struct loop_state *st)
{
	return st->image;
}

LIBLOOP_EXPORT const char *loop_state_get_ref(const struct loop_state *st)
{
	return st->ref;
}

LIBLOOP_EXPORT dev_t loop_state_get_image_dev(const struct loop_state *st)
{
	return st->image_dev;
}

LIBLOOP_EXPORT ino_t loop_state_get_image_ino(const struct loop_state *st)
{
	return st->image_ino;
}

LIBLOOP_EXPORT uint64_t loop_state_get_offset(const struct loop_state *st)
{
	return st->offset;
}

LIBLOOP_EXPORT uint64_t loop_state_get_sizelimit(const struct loop_state *st)
{
	return st->sizelimit;
}

LIBLOOP_EXPORT const char *loop_state_get_cipher(const struct loop_state *st)
{
	return st->cipher;
}

LIBLOOP_EXPORT unsigned int loop_state_get_key_bits(const struct loop_state *st)
{
	return st->key_bits;
}

LIBLOOP_EXPORT unsigned int loop_state_get_key_count(const struct loop_state *st)
{
	return st->key_count;
}

LIBLOOP_EXPORT int loop_state_get_encrypt_type(const struct loop_state *st)
{
	return st->encrypt_type;
}

LIBLOOP_EXPORT enum loop_engine_kind loop_state_get_engine(const struct loop_state *st)
{
	return st->engine;
}

LIBLOOP_EXPORT int loop_state_is_readonly(const struct loop_state *st)
{
	return st->read_only ? 1 : 0;
}

LIBLOOP_EXPORT pid_t loop_state_get_pid(const struct loop_state *st)
{
	return st->pid;
}

LIBLOOP_EXPORT const char *loop_state_get_mount(const struct loop_state *st)
{
	return st->mount;
}
