// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The key handover between libloop and cryptoloop-fuse: what is sent
 * arrives intact (spec, IV offset, 1 or 65 keys, passthrough), and a
 * malformed or truncated message is refused rather than half used.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/key-handover.h"
#include "tap.h"

static int roundtrip(const struct loop_cipher_spec *spec, const struct loop_key *key,
		     uint64_t ivoff, struct loop_keymsg_hdr *hdr, struct loop_key **got)
{
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -errno;
	rc = loop_keymsg_send(sv[0], spec, key, ivoff);
	close(sv[0]);
	if (rc == 0)
		rc = loop_keymsg_recv(sv[1], hdr, got);
	close(sv[1]);
	return rc;
}

static int raw_recv(const void *buf, size_t len, struct loop_keymsg_hdr *hdr,
		    struct loop_key **got)
{
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -errno;
	if (write(sv[0], buf, len) != (ssize_t)len)
		return -EIO;
	close(sv[0]);
	rc = loop_keymsg_recv(sv[1], hdr, got);
	close(sv[1]);
	return rc;
}

int main(void)
{
	struct loop_cipher_spec spec;
	struct loop_keymsg_hdr hdr;
	struct loop_key *key, *got = NULL;
	unsigned char raw[65 * 32];
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(raw); i++)
		raw[i] = (unsigned char)(i * 7 + 3);

	ok(loop_cipher_spec_parse(&spec, "AES256", 0, 0) == 0, "AES256 parses");
	ok(loop_key_new_raw(&key, 1, 32, raw) == 0, "one 32-byte key");
	rc = roundtrip(&spec, key, 12345, &hdr, &got);
	ok(rc == 0, "one key: sent and received (%d)", rc);
	ok(got && loop_key_count(got) == 1 && loop_key_size(got) == 32 &&
	   !memcmp(loop_key_data(got, 0), raw, 32), "the key arrives intact");
	is_u64(hdr.iv_offset, 12345, "the IV offset arrives");
	is_str(hdr.spec.name, spec.name, "the spec arrives");
	ok(!hdr.passthrough, "not passthrough");
	loop_key_free(got);
	loop_key_free(key);

	ok(loop_key_new_raw(&key, 65, 32, raw) == 0, "65 keys (loop-AES v3)");
	rc = roundtrip(&spec, key, 0, &hdr, &got);
	ok(rc == 0 && got && loop_key_count(got) == 65, "65 keys received");
	ok(got && !memcmp(loop_key_data(got, 64), raw + 64 * 32, 32), "the 65th key intact");
	loop_key_free(got);
	loop_key_free(key);

	rc = roundtrip(NULL, NULL, 0, &hdr, &got);
	ok(rc == 0 && hdr.passthrough && !got, "passthrough: no key");

	/* a truncated message: the header only, with one key announced */
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, LOOP_KEYMSG_MAGIC, sizeof(hdr.magic));
	hdr.key_count = 1;
	hdr.key_bytes = 32;
	hdr.spec = spec;
	ok(raw_recv(&hdr, sizeof(hdr), &hdr, &got) == -EBADMSG && !got,
	   "a message cut short is refused");

	memcpy(hdr.magic, "NOTAKEY", 8);
	ok(raw_recv(&hdr, sizeof(hdr), &hdr, &got) == -EBADMSG, "a bad magic is refused");

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, LOOP_KEYMSG_MAGIC, sizeof(hdr.magic));
	hdr.key_count = 7;
	hdr.key_bytes = 32;
	ok(raw_recv(&hdr, sizeof(hdr), &hdr, &got) == -EBADMSG, "7 keys is no key set");
	hdr.key_count = 1;
	hdr.key_bytes = 4096;
	ok(raw_recv(&hdr, sizeof(hdr), &hdr, &got) == -EBADMSG, "an oversized key is refused");
	ok(raw_recv("short", 5, &hdr, &got) == -EBADMSG, "a partial header is refused");
	return tap_done();
}
