/*
 * key.c - struct loop_key: 1, 64 or 65 cipher keys in locked memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <string.h>

#include "crypto/crypto-internal.h"

struct loop_key {
	size_t alloc_size;
	unsigned int count;
	unsigned int key_bytes;
	uint8_t data[];
};

int loop_key_alloc(struct loop_key **key, unsigned int count, unsigned int key_bytes)
{
	struct loop_key *k;
	size_t size;

	if (!key)
		return -EINVAL;
	*key = NULL;
	if ((count != 1 && count != CLO_MULTI_KEYS && count != CLO_MULTI_KEYS_V3) ||
	    !key_bytes || key_bytes > 64)
		return -EINVAL;
	size = sizeof(*k) + (size_t)count * key_bytes;
	k = loop_secure_alloc(size);
	if (!k)
		return -ENOMEM;
	k->alloc_size = size;
	k->count = count;
	k->key_bytes = key_bytes;
	*key = k;
	return 0;
}

uint8_t *loop_key_data_mut(struct loop_key *key, unsigned int i)
{
	return key->data + (size_t)i * key->key_bytes;
}

LIBLOOP_EXPORT int loop_key_new_raw(struct loop_key **key, unsigned int count,
		     unsigned int key_bytes, const void *data)
{
	int r;

	if (!data)
		return -EINVAL;
	r = loop_key_alloc(key, count, key_bytes);
	if (r < 0)
		return r;
	memcpy((*key)->data, data, (size_t)count * key_bytes);
	return 0;
}

LIBLOOP_EXPORT unsigned int loop_key_count(const struct loop_key *key)
{
	return key ? key->count : 0;
}

LIBLOOP_EXPORT unsigned int loop_key_size(const struct loop_key *key)
{
	return key ? key->key_bytes : 0;
}

LIBLOOP_EXPORT const uint8_t *loop_key_data(const struct loop_key *key, unsigned int i)
{
	if (!key || i >= key->count)
		return NULL;
	return key->data + (size_t)i * key->key_bytes;
}

LIBLOOP_EXPORT void loop_key_free(struct loop_key *key)
{
	if (key)
		loop_secure_free(key, key->alloc_size);
}
