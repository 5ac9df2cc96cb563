// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The key handover message between libloop and cryptoloop-fuse. Compiled
 * once, into libloop.so: the daemon (and tests/unit/test-keymsg) reach
 * both ends through LIBLOOP_PRIVATE.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/private.h"
#include "engine/key-handover.h"
#include "base/secure-mem.h"

LIBLOOP_PRIVATE_EXPORT int loop_keymsg_send(int fd, const struct loop_cipher_spec *spec,
		     const struct loop_key *key, uint64_t iv_offset)
{
	struct loop_keymsg_hdr hdr;
	struct iovec iov[1 + LOOP_KEYMSG_MAX_KEYS];
	struct msghdr msg;
	unsigned int i, n = 0;
	size_t total = sizeof(hdr), done = 0;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, LOOP_KEYMSG_MAGIC, sizeof(hdr.magic));
	if (spec && key) {
		hdr.spec = *spec;
		hdr.key_count = loop_key_count(key);
		hdr.key_bytes = loop_key_size(key);
		hdr.iv_offset = iv_offset;
		if (hdr.key_count > LOOP_KEYMSG_MAX_KEYS ||
		    hdr.key_bytes > LOOP_KEYMSG_MAX_BYTES)
			return -EINVAL;
	} else {
		hdr.passthrough = 1;
	}
	iov[n++] = (struct iovec){ &hdr, sizeof(hdr) };
	for (i = 0; i < hdr.key_count; i++) {
		iov[n++] = (struct iovec){ (void *)loop_key_data(key, i), hdr.key_bytes };
		total += hdr.key_bytes;
	}
	/* the message is a few KiB: it fits the socket buffer in one go */
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = n;
	while (done < total) {
		ssize_t r = sendmsg(fd, &msg, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)r;
		/* advance the iovec past what was sent */
		while (r > 0 && msg.msg_iovlen) {
			if ((size_t)r >= msg.msg_iov->iov_len) {
				r -= (ssize_t)msg.msg_iov->iov_len;
				msg.msg_iov++;
				msg.msg_iovlen--;
			} else {
				msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + r;
				msg.msg_iov->iov_len -= (size_t)r;
				r = 0;
			}
		}
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = read(fd, (char *)buf + done, len - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EBADMSG;
		done += (size_t)r;
	}
	return 0;
}

LIBLOOP_PRIVATE_EXPORT int loop_keymsg_recv(int fd, struct loop_keymsg_hdr *hdr, struct loop_key **key)
{
	size_t len;
	void *data;
	int rc;

	*key = NULL;
	rc = read_full(fd, hdr, sizeof(*hdr));
	if (rc)
		return rc;
	if (memcmp(hdr->magic, LOOP_KEYMSG_MAGIC, sizeof(hdr->magic)))
		return -EBADMSG;
	if (hdr->passthrough)
		return hdr->key_count ? -EBADMSG : 0;
	if ((hdr->key_count != 1 && hdr->key_count != CLO_MULTI_KEYS &&
	     hdr->key_count != CLO_MULTI_KEYS_V3) ||
	    !hdr->key_bytes || hdr->key_bytes > LOOP_KEYMSG_MAX_BYTES)
		return -EBADMSG;
	len = (size_t)hdr->key_count * hdr->key_bytes;
	/* locked and never dumped while the bytes pass through */
	data = loop_secure_alloc(len);
	if (!data)
		return -ENOMEM;
	rc = read_full(fd, data, len);
	if (rc == 0)
		rc = loop_key_new_raw(key, hdr->key_count, hdr->key_bytes, data);
	loop_secure_free(data, len);
	return rc;
}
