/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How losetup (through libloop) hands a key to cryptoloop-fuse: one
 * message on an inherited socket, never argv or the environment. Both
 * ends come from the same build, so the cipher spec travels as the plain
 * struct. Not installed; libloop.so exports both ends to cryptoloop-fuse
 * (LIBLOOP_PRIVATE), so the one copy serves both.
 */
#ifndef LIBLOOP_KEY_HANDOVER_H
#define LIBLOOP_KEY_HANDOVER_H

#include <stdint.h>

#include "libloop-crypto.h"
#include "base/private.h"
#include "uapi/cryptoloop_abi.h"

#define LOOP_KEYMSG_MAGIC	"CLKEY01"
#define LOOP_KEYMSG_MAX_KEYS	CLO_MULTI_KEYS_V3
#define LOOP_KEYMSG_MAX_BYTES	64

struct loop_keymsg_hdr {
	char magic[8];
	uint32_t passthrough;		/* 1: no cipher (benchmark reference) */
	uint32_t key_count;		/* 0 with passthrough, else 1, 64 or 65 */
	uint32_t key_bytes;
	uint32_t pad;
	uint64_t iv_offset;
	struct loop_cipher_spec spec;
};

/*
 * Send the spec and key (NULL for passthrough) on @fd, without SIGPIPE.
 * The key bytes go straight from their locked memory to the socket.
 * Returns 0 or -errno (-EPIPE when the daemon is gone).
 */
LIBLOOP_PRIVATE_EXPORT int loop_keymsg_send(int fd, const struct loop_cipher_spec *spec,
					    const struct loop_key *key, uint64_t iv_offset);

/*
 * Receive a message into @hdr and a new key (*key NULL for passthrough).
 * Returns 0, -EBADMSG for a malformed message, -ENOMEM, -errno.
 */
LIBLOOP_PRIVATE_EXPORT int loop_keymsg_recv(int fd, struct loop_keymsg_hdr *hdr,
					    struct loop_key **key);

#endif
