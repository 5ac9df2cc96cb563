#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# "losetup -e luks" on the host: the options a LUKS header decides are
# refused by name, a LUKS image is not read as a loop format, a missing
# header is named, and without dm-crypt (this project's build machines)
# the dm engine's absence is. Nothing is attached by any of them, and no
# passphrase is asked for. Opening volumes needs dm-crypt: the VM does it
# (tests/vm/suites/luks-open.bats).

load helpers

setup() {
	e2e_setup
	command -v cryptsetup > /dev/null || skip "needs cryptsetup"
	LUKS=$(image 20M luks)
	# cryptsetup, the independent tool, writes the header; a cheap keyslot
	printf '%s' "$PASS" | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 --key-file - "$LUKS"
}
teardown() { e2e_teardown; }

@test "-e luks: loop-format options are refused by name, before any passphrase" {
	local opt name
	while IFS='|' read -r opt name; do
		# shellcheck disable=SC2086
		run "$LOSETUP" -e luks $opt -f --show "$LUKS"
		[ "$status" -eq 1 ]
		[ "$output" = "losetup: $LUKS: $name does not apply to LUKS (its header says where the data is and how it is encrypted)" ] ||
			fail "$opt: $output"
	done <<-EOT
	-k 256|--keybits (-k)
	-H sha512|--phash (-H)
	-K $TESTDIR/x|--gpgkey (-K)
	-G $TESTDIR|--gpghome (-G)
	-S seed|--pseed (-S)
	-C 10|--itercountk (-C)
	-I 8|--loinit (-I)
	-o 1M|--offset (-o)
	--sizelimit 4M|--sizelimit
	-b 4096|--sector-size (-b)
	EOT
	run "$LOSETUP" -e luks --engine fuse -f --show "$LUKS"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $LUKS: LUKS opens through the dm engine only, not --engine fuse" ]
	assert_clean
}

@test "--swap with -e luks on an image file: refused before any passphrase, nothing attached" {
	# a passphrase fd that would hang a read: the refusal comes first
	run timeout 20 "$LOSETUP" -e luks --swap -p 3 -f --show "$LUKS" 3< <(sleep 30)
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $LUKS: --swap does not apply to LUKS in a file: LUKS opens through the dm engine, and only the kmod engine pins a file for swap (a LUKS volume on a block device needs no --swap)" ]
	run timeout 20 "$LOSETUP" -e LUKS2 --swap -p 3 -f "$LUKS" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--swap does not apply to LUKS in a file"* ]]
	assert_clean
}

@test "a LUKS image is not read as a loop format; --header is for -e luks" {
	run "$LOSETUP" -e aes -p 3 -f --show "$LUKS" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $LUKS: has a LUKS header: open it with -e luks, not -e aes (--force reads it as aes anyway)" ]
	run "$LOSETUP" -e AES256 --header "$LUKS" -p 3 -f --show "$(image 4M other)" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: --header: a detached header is for -e luks only" ]
	assert_clean
}

@test "-e luks without a LUKS header, or with --header that is none" {
	img=$(image 4M plain)
	run "$LOSETUP" -e luks -p 3 -f --show "$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $img: no LUKS header (a detached one is given with --header)" ]
	run "$LOSETUP" -e luks2 --header "$img" -p 3 -f --show "$LUKS" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $img: no LUKS header" ]
	run "$LOSETUP" -e luks --header "$TESTDIR/missing" -p 3 -f --show "$LUKS" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $TESTDIR/missing: No such file or directory" ]
	assert_clean
}

@test "-e luks where dm-crypt is missing: says so, nothing attached" {
	if [ -e /sys/module/dm_crypt ] ||
	   grep -qs '/dm-crypt.ko' "/lib/modules/$(uname -r)/modules.dep" \
		"/lib/modules/$(uname -r)/modules.builtin"; then
		skip "dm-crypt is usable here: tests/vm/suites/luks-open.bats opens volumes"
	fi
	run "$LOSETUP" -e luks -p 3 -f --show "$LUKS" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" != *"lacks"* ]] || skip "built without the dm engine"
	if [ -e /dev/mapper/control ]; then
		[ "$output" = "losetup: $LUKS: LUKS opens through the dm engine, and device-mapper has no dm-crypt target here" ]
	else
		[ "$output" = "losetup: $LUKS: LUKS opens through the dm engine, and there is no device-mapper here (/dev/mapper/control is missing)" ]
	fi
	assert_clean
}
