#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The project's losetup on 5.10 with cryptoloop_xfer loaded: `losetup -e
# aes -p 0` must attach a stock /dev/loopN with our transfer, and the
# filesystem on it must survive a remount.  The image is checked against
# openssl, so it is the util-linux 2.12 cryptoloop format.
#
# CLX_LOSETUP names the binary (run-suite sets it to the build tree's
# losetup).  A losetup without -e or without the engine for the stock
# loop driver ("xfer", see doc/engines.md) gets these tests reported as
# skipped, never as passed.  With auto engine choice, the
# test insists on the stock /dev/loopN carrying our transfer (type 18,
# one module reference), so a FUSE fallback fails it.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	clx_load
	T=$BATS_FILE_TMPDIR
	export T
}

setup() {
	LOSETUP=${CLX_LOSETUP:-}
	if [ -z "$LOSETUP" ] || [ ! -x "$LOSETUP" ]; then
		skip "no project losetup built (CLX_LOSETUP unset)"
	fi
	if ! "$LOSETUP" --help 2>&1 | grep -q -- '--encryption'; then
		skip "project losetup has no -e/--encryption yet"
	fi
	# The engine for stock /dev/loopN + cryptoloop_xfer (doc/engines.md).
	if ! "$LOSETUP" --help 2>&1 | grep -- '--engine' | grep -qw xfer; then
		skip "project losetup has no xfer engine (stock loop + cryptoloop_xfer) yet"
	fi
	dmesg_mark "lo$BATS_TEST_NUMBER"
}

teardown() {
	# our losetup set the devices up: it takes them down
	TL_DETACH=("$LOSETUP" -d)
	clx_teardown "lo$BATS_TEST_NUMBER"
}

@test "losetup -e aes -p 0: stock /dev/loopN, ext4 survives remount, image is cryptoloop" {
	local pass="a passphrase for 5.10" dev img=$T/l.img mnt=$T/mnt off=4096
	head -c $off /dev/zero >"$img"
	truncate -s $((off + 16 * 1048576)) "$img"
	mkdir -p "$mnt"
	dev=$(echo "$pass" | "$LOSETUP" -f --show -e aes -p 0 -o $off "$img")
	track "$dev"
	[[ "$dev" == /dev/loop[0-9]* ]]
	run "$CLCTL" status "$dev"
	[[ "$output" == *"encrypt_type 18"* ]]
	# The listing shows the cipher (loop.c reports lo_crypt_name).
	run "$LOSETUP" -l -n -O NAME,CIPHER "$dev"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$dev"*aes* ]]
	[ "$(mod_refs $MODNAME)" = 1 ]
	mkfs.ext4 -q -F "$dev"
	mount "$dev" "$mnt"
	track_mount "$mnt"
	echo "survives" >"$mnt/f"
	umount "$mnt"
	"$LOSETUP" -d "$dev"

	dev=$(echo "$pass" | "$LOSETUP" -f --show -e aes -p 0 -o $off "$img")
	track "$dev"
	mount "$dev" "$mnt"
	track_mount "$mnt"
	[ "$(cat "$mnt/f")" = survives ]
	umount "$mnt"
	"$LOSETUP" -d "$dev"

	# util-linux 2.12 key: the passphrase, NUL padded to 32 bytes (AES-256).
	KEYHEX=$(printf '%s' "$pass" | od -An -v -tx1 | tr -d ' \n')
	while [ ${#KEYHEX} -lt 64 ]; do KEYHEX+=00; done
	# The ext4 superblock starts at byte 1024 of the device: IV sector
	# off/512 + 2.  openssl alone, with that key, must find its magic.
	local magic
	set_iv plain $((off / 512 + 2))
	magic=$(dd if="$img" bs=512 skip=$((off / 512 + 2)) count=1 status=none |
		openssl enc -d -aes-256-cbc -nopad -K "$KEYHEX" \
			-iv "$IV" |
		od -An -tx1 -j 56 -N 2 | tr -d ' \n')
	[ "$magic" = 53ef ]
}
