#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Byte identity with the project's userspace crypto engine (libloop, what
# the FUSE engine runs), driven through tests/kat/kat-tool: the same
# plaintext, passphrase and offset must give the same image whichever side
# encrypts, and each side must read what the other wrote.
#
# CLX_KAT_TOOL names kat-tool (run-suite finds it in the build tree).
# Without it these tests are reported as skipped, never as passed.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	clx_setup_file 131072
	printf '%s' "a passphrase for 5.10 tests" >"$T/pass"
}

setup() {
	KAT=${CLX_KAT_TOOL:-}
	if [ -z "$KAT" ] || [ ! -x "$KAT" ]; then
		skip "no kat-tool built (CLX_KAT_TOOL unset)"
	fi
	dmesg_mark "en$BATS_TEST_NUMBER"
}

teardown() {
	clx_teardown "en$BATS_TEST_NUMBER"
}

# same_both_ways NAME OFFSET CLCTL_TRANSFER_OPTS...
# libloop's key for NAME and the passphrase, through -X, goes to our
# module as the raw key; then compare images in both directions.
same_both_ways() {
	local name=$1 off=$2 dev img=$T/en.img
	shift 2
	"$KAT" -e "$name" -p 3 -X 3<"$T/pass" | head -n 1 | xxd -r -p >"$T/key"
	[ -s "$T/key" ]
	"$KAT" -e "$name" -p 3 -o "$off" 3<"$T/pass" <"$T/plain" >"$T/lib.bin"

	# libloop wrote it, the kernel reads it.
	{ head -c "$off" /dev/zero; cat "$T/lib.bin"; } >"$img"
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --key "$T/key" --offset "$off" "$@"
	cmp "$T/plain" "$dev"
	"$CLCTL" detach "$dev"

	# The kernel writes it: the same bytes as libloop's.
	truncate -s 0 "$img"
	truncate -s $((off + 131072)) "$img"
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --key "$T/key" --offset "$off" "$@"
	dd if="$T/plain" of="$dev" bs=65536 conv=fsync status=none
	"$CLCTL" detach "$dev"
	cmp "$T/lib.bin" <(tail -c +$((off + 1)) "$img")
}

@test "util-linux 2.12 'aes' and 'twofish' (CRYPTOAPI, le32 IV): identical to libloop's engine" {
	same_both_ways aes 4096 --cipher aes
	same_both_ways twofish 0 --cipher twofish
}

@test "loop-AES AES256 single key (SHA-512, 64-bit IV, type 16): identical to libloop's engine" {
	same_both_ways AES256 8192 --type 16
}

@test "loop-AES twofish256/serpent256/blowfish128 (numbers 3, 7, 4): identical to libloop's engine" {
	same_both_ways twofish256 4096 --type 3
	same_both_ways serpent256 0 --type 7
	same_both_ways blowfish128 4096 --type 4
}
