#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# loop-AES formats through cryptoloop_xfer on 5.10's stock loop.ko: the
# single-key transfer number 16 (AES, 64-bit IV) and the multi-key ioctls
# (64 keys, v2; 65 keys, v3).  Checked against dm-crypt's own "lmk" IV
# code and against openssl, neither of which shares code with the module.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	clx_setup_file 1048576
}

setup() {
	dmesg_mark "mk$BATS_TEST_NUMBER"
}

teardown() {
	clx_teardown "mk$BATS_TEST_NUMBER"
}

hex() {
	od -An -v -tx1 "$1" | tr -d ' \n'
}

# multikey_roundtrip NKEYS OFFSET: write through a multi-key device, check
# the image with dm-crypt aes:64-cbc-lmk, then read it back after a fresh
# attach.
multikey_roundtrip() {
	local n=$1 off=$2 dev ro img=$T/mk$1.img osec=$(($2 / 512))
	head -c $((n * 32)) /dev/urandom >"$T/keys$n"
	head -c 32 "$T/keys$n" >"$T/key0"
	truncate -s 0 "$img"
	truncate -s $((off + 1048576)) "$img"

	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/key0" --offset "$off"
	"$CLCTL" multikey "$dev" "$T/keys$n"
	dd if="$T/plain" of="$dev" bs=65536 conv=fsync status=none
	"$CLCTL" detach "$dev"

	# dm-crypt: 64 keys of 32 bytes, plus the 65th (seed) for v3; the IV
	# sector counts from the start of the file like ours.
	ro=$(free_loop)
	attach --on "$ro" "$img" --ro
	dm_open "clxmk$n" "$ro" aes:64-cbc-lmk "$(hex "$T/keys$n")" \
		"$osec" "$osec" 2048
	cmp "$T/plain" "/dev/mapper/clxmk$n"
	dmsetup remove --noudevsync "clxmk$n"

	# And we read it back ourselves.
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/key0" --offset "$off"
	"$CLCTL" multikey "$dev" "$T/keys$n"
	cmp "$T/plain" <(dd if="$dev" bs=65536 status=none)
}

@test "multi-key v2 (64 keys) matches dm-crypt aes:64-cbc-lmk" {
	multikey_roundtrip 64 8192
}

@test "multi-key v3 (65 keys, seeded IV) matches dm-crypt aes:64-cbc-lmk" {
	multikey_roundtrip 65 0
	# v2 and v3 differ: the 65th key really seeds the IV.
	head -c 2048 "$T/keys65" >"$T/keys64of65"
	dev=$(free_loop)
	attach --on "$dev" "$T/mk65.img" --set-fd --cipher aes --key "$T/key0"
	"$CLCTL" multikey "$dev" "$T/keys64of65"
	run ! cmp -s "$T/plain" <(dd if="$dev" bs=65536 status=none)
}

@test "the switch to multi-key drops what the page cache read with key slot 0" {
	local dev img=$T/cache.img
	head -c 2048 /dev/urandom >"$T/ckeys"
	head -c 32 "$T/ckeys" >"$T/ckey0"
	truncate -s 1048576 "$img"
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/ckey0"
	"$CLCTL" multikey "$dev" "$T/ckeys"
	dd if="$T/plain" of="$dev" bs=65536 conv=fsync status=none
	"$CLCTL" detach "$dev"
	# as after any attach: blkid reads the start through the page cache
	# while only key slot 0 is set. The cache lives as long as someone
	# holds the device open (the last close drops it): fd 7 does.
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/ckey0"
	exec 7<"$dev"
	dd if="$dev" of=/dev/null bs=65536 count=2 status=none
	"$CLCTL" multikey "$dev" "$T/ckeys"
	# read through the same page cache: the 64-key plaintext, no stale page
	run cmp "$T/plain" <(dd if="$dev" bs=65536 status=none)
	exec 7<&-
	[ "$status" -eq 0 ] || { echo "stale pages after the switch: $output" >&2; false; }
}

@test "multi-key setup needs CAP_SYS_ADMIN, a bound cipher with 16-byte blocks" {
	local dev img=$T/p.img
	head -c 2048 /dev/urandom >"$T/keys"
	head -c 32 "$T/keys" >"$T/key0"
	truncate -s 1048576 "$img"
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/key0"
	# loop.c checks no permission for ioctls it passes on: we do.
	run setpriv --bounding-set -sys_admin "$CLCTL" multikey "$dev" "$T/keys"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	# No transfer of ours: the hook is not installed at all.
	"$CLCTL" detach "$dev"
	attach --on "$dev" "$img" --set-fd
	run "$CLCTL" multikey "$dev" "$T/keys"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	# A 64-bit block cipher cannot take the 128-bit MD5 IV.
	if grep -q 'des3_ede' /proc/crypto || modprobe des3_ede 2>/dev/null; then
		"$CLCTL" detach "$dev"
		head -c 24 /dev/urandom >"$T/k3"
		attach --on "$dev" "$img" --set-fd --cipher des3_ede --key "$T/k3"
		run "$CLCTL" multikey "$dev" "$T/keys"
		[ "$status" -ne 0 ]
	fi
}

@test "loop-AES transfer number 16: AES with the 64-bit IV, matches openssl" {
	local dev img=$T/la.img s
	make_key "$T/key"
	truncate -s 1048576 "$img"
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --type 16 --key "$T/key"
	run "$CLCTL" status "$dev"
	[[ "$output" == *"encrypt_type 16"* ]]
	dd if="$T/plain" of="$dev" bs=65536 conv=fsync status=none
	"$CLCTL" detach "$dev"
	for s in 0 1 1000 2047; do
		check_sector "$img" $s "$T/plain" $s plain64 "$s"
	done
}
