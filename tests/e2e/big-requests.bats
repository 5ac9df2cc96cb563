#!/usr/bin/env bats
# Requests of a megabyte through the FUSE engine: the daemon splits a big
# request between two threads (fuse/io.c) and decrypts reads straight from
# the mapped image (fuse/map.c). Each half must still use its own sectors'
# IVs and keys. Multi-key v3 (65 keys, key = sector & 63, MD5 IV of the
# plaintext) with an offset of 7 sectors and requests starting at odd
# sectors puts the split point off every key and alignment boundary.
# The oracle is aespipe, which encrypts and decrypts on its own.

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

OFF=3584	# 7 sectors: the device's sector 0 is IV sector 7
AT=1536		# requests start 3 sectors into the device

keys65() {
	head -c 4096 /dev/urandom | base64 -w 40 | head -n 65 > "$TESTDIR/keys65"
	PASSFILE="$TESTDIR/keys65"
}

# aespipe_decrypt IMAGE: what aespipe decrypts of IMAGE past the offset
# (IV sector 7 at the device's sector 0), in $TESTDIR/aespipe.out
aespipe_decrypt() {
	dd if="$1" bs=512 skip=7 status=none |
		aespipe -d -e aes256 -O 7 -p 3 3< "$PASSFILE" > "$TESTDIR/aespipe.out" ||
		fail "aespipe failed"
}

@test "1 MiB direct writes at an odd sector, multi-key v3, -o 7 sectors: aespipe decrypts them" {
	[ "$E2E_ENGINE" = fuse ] || skip "the FUSE engine's request path"
	keys65
	img=$(image 8M)
	head -c 3M /dev/urandom > "$TESTDIR/plain"
	dev=$(attach -e AES256 -o "$OFF" -p 3 "$img")
	dd if="$TESTDIR/plain" of="$dev" bs=1M seek="$AT" oflag=direct,seek_bytes status=none
	detach "$dev"
	aespipe_decrypt "$img"
	cmp "$TESTDIR/plain" <(dd if="$TESTDIR/aespipe.out" bs=512 skip=3 count=6144 status=none) ||
		fail "aespipe decrypts our 1 MiB writes to something else"
}

@test "1 MiB direct reads at an odd sector of an image aespipe wrote, multi-key v3, -o 7 sectors" {
	[ "$E2E_ENGINE" = fuse ] || skip "the FUSE engine's request path"
	keys65
	head -c 6M /dev/urandom > "$TESTDIR/plain"
	{
		head -c "$OFF" /dev/urandom
		aespipe -e aes256 -O 7 -p 3 3< "$PASSFILE" < "$TESTDIR/plain" ||
			fail "aespipe failed"
	} > "$TESTDIR/image"
	dev=$(attach -e AES256 -o "$OFF" -p 3 "$TESTDIR/image")
	cmp <(dd if="$TESTDIR/plain" bs=512 skip=3 count=8192 status=none) \
	    <(dd if="$dev" bs=1M skip="$AT" count=4 iflag=direct,skip_bytes status=none) ||
		fail "1 MiB reads differ from aespipe's plaintext"
	# and the whole device, aligned
	cmp "$TESTDIR/plain" <(device_bytes "$dev")
	detach "$dev"
}

@test "the daemon takes the narrow paths its caller is told to (xmm AES, 8-lane MD5): 1 MiB and 4 KiB requests, aespipe agrees" {
	[ "$E2E_ENGINE" = fuse ] || skip "the FUSE engine's request path"
	keys65
	img=$(image 8M)
	head -c 3M /dev/urandom > "$TESTDIR/plain"
	dev=$(LIBLOOP_CRYPTO_AES_WIDTH=128 LIBLOOP_CRYPTO_MD5_LANES=8 attach -e AES256 -o "$OFF" -p 3 "$img")
	pid=$(our_daemons)
	[ -n "$pid" ] || fail "no daemon"
	env=$(tr '\0' '\n' < "/proc/$pid/environ")
	grep -qx LIBLOOP_CRYPTO_AES_WIDTH=128 <<<"$env" || fail "daemon environment: $env"
	grep -qx LIBLOOP_CRYPTO_MD5_LANES=8 <<<"$env" || fail "daemon environment: $env"
	dd if="$TESTDIR/plain" of="$dev" bs=1M seek="$AT" oflag=direct,seek_bytes status=none
	# 4 KiB at an odd sector: 8 sectors, fewer than a 16-sector batch
	dd if="$TESTDIR/plain" of="$dev" bs=4k count=1 seek=$((AT + 3 * 1048576 + 512)) \
		oflag=direct,seek_bytes status=none
	cmp <(dd if="$TESTDIR/plain" bs=1M count=3 status=none) \
	    <(dd if="$dev" bs=1M skip="$AT" count=3 iflag=direct,skip_bytes status=none) ||
		fail "the daemon reads back something else"
	detach "$dev"
	aespipe_decrypt "$img"
	cmp "$TESTDIR/plain" <(dd if="$TESTDIR/aespipe.out" bs=512 skip=3 count=6144 status=none) ||
		fail "aespipe decrypts our 1 MiB writes to something else"
	cmp <(head -c 4096 "$TESTDIR/plain") \
	    <(dd if="$TESTDIR/aespipe.out" bs=512 skip=$((3 + 6144 + 1)) count=8 status=none) ||
		fail "aespipe decrypts our 4 KiB write to something else"
}

@test "a read of mapped pages the image lost (truncated behind our back) fails with EIO, and the daemon lives on" {
	[ "$E2E_ENGINE" = fuse ] || skip "the FUSE engine's request path"
	img=$(image 8M)
	dev=$(attach -e AES256 -p 3 "$img")
	head -c 1M /dev/urandom > "$TESTDIR/plain"
	dd if="$TESTDIR/plain" of="$dev" bs=1M oflag=direct status=none
	# no "losetup -c": the daemon still serves 8M over a 2M file
	truncate -s 2M "$img"
	run dd if="$dev" of=/dev/null bs=1M skip=6 count=1 iflag=direct status=none
	[ "$status" -ne 0 ]
	[[ "$output" == *"Input/output error"* ]]
	cmp "$TESTDIR/plain" <(dd if="$dev" bs=1M count=1 iflag=direct status=none)
	detach "$dev"
}

@test "1 MiB direct reads and writes on the libgcrypt back end (copied from the mapping, then decrypted): aespipe agrees" {
	[ "$E2E_ENGINE" = fuse ] || skip "the FUSE engine's request path"
	keys65
	head -c 4M /dev/urandom > "$TESTDIR/plain"
	{
		head -c "$OFF" /dev/urandom
		aespipe -e aes256 -O 7 -p 3 3< "$PASSFILE" < "$TESTDIR/plain" ||
			fail "aespipe failed"
	} > "$TESTDIR/image"
	dev=$(LIBLOOP_CRYPTO_NO_AESNI=1 attach -e AES256 -o "$OFF" -p 3 "$TESTDIR/image")
	cmp <(dd if="$TESTDIR/plain" bs=512 skip=3 count=4096 status=none) \
	    <(dd if="$dev" bs=1M skip="$AT" count=2 iflag=direct,skip_bytes status=none) ||
		fail "1 MiB reads differ from aespipe's plaintext"
	head -c 2M /dev/urandom > "$TESTDIR/new"
	dd if="$TESTDIR/new" of="$dev" bs=1M seek="$AT" oflag=direct,seek_bytes status=none
	detach "$dev"
	aespipe_decrypt "$TESTDIR/image"
	cmp "$TESTDIR/new" <(dd if="$TESTDIR/aespipe.out" bs=512 skip=3 count=4096 status=none) ||
		fail "aespipe decrypts our 1 MiB writes to something else"
}
