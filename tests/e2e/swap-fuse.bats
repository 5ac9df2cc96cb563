#!/usr/bin/env bats
# Swap never goes through the FUSE engine (a deadlock: the kernel swapping
# out waits for a daemon that may need memory). What losetup and the daemon
# catch; swapon(8) itself runs no helper.

load helpers
bats_require_minimum_version 1.5.0

setup() { e2e_setup; }
teardown() { e2e_teardown; }

@test "swap on FUSE: -H random (the swap recipe) is refused unless --force" {
	img=$(image 8M)
	run setsid -w "$LOSETUP" -f --show --engine fuse -e AES128 -H random "$img" < /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"$img: -H random on the FUSE engine refused"*"deadlock"*"--force"* ]]
	assert_clean
}

@test "swap on FUSE: mkswap fails, the daemon refuses the swap signature" {
	img=$(image 8M)
	dev=$(attach -e aes -p 3 "$img")
	run mkswap "$dev"
	[ "$status" -ne 0 ]
	# nothing of a signature reached the image's plaintext
	run ! grep -q SWAPSPACE2 <(dd if="$dev" bs=4096 count=1 iflag=direct status=none)
	# the same write anywhere else is ordinary data
	printf 'SWAPSPACE2' | dd of="$dev" bs=1 seek=20470 conv=notrunc status=none
	sync
	# and a filesystem still works
	mkfs.ext4 -q -F "$dev"
	detach "$dev"
	# swapon on that device: no signature, so nothing to swap on
	assert_clean
}

@test "swap on FUSE: an image whose plaintext is swap is not attached, unless --force" {
	img=$(image 8M)
	# make the plaintext with openssl: cryptoloop "aes" (raw key, 32-bit IV)
	plain="$TESTDIR/plain"
	truncate -s 8M "$plain"
	mkswap -q "$plain" >/dev/null 2>&1 || mkswap "$plain" >/dev/null
	key=$(raw_key_hex "$PASS")
	for s in 0 1 2 3 4 5 6 7; do
		dd if="$plain" bs=512 skip="$s" count=1 status=none |
			openssl enc -e -aes-256-cbc -nopad -K "$key" -iv "$(le_iv "$s" 4)" |
			dd of="$img" bs=512 seek="$s" conv=notrunc status=none
	done
	run "$LOSETUP" -f --show --engine fuse -e aes -p 3 "$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$img: its plaintext is swap"*"--force"* ]]
	assert_clean
	dev=$(attach --force -e aes -p 3 "$img")
	grep -q SWAPSPACE2 <(dd if="$dev" bs=4096 count=1 iflag=direct status=none)
	detach "$dev"
	assert_clean
}
