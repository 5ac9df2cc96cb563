#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Error paths: the exact message and exit status util-linux gives. Where
# util-linux 2.38 (the host's, compared with run_both) and 2.42 differ,
# ours says what 2.42 says; compare.bats checks those against 2.41's and
# 2.42's own binaries.

load helpers

setup() { cli_setup; }
teardown() { common_teardown; }

@test "missing backing file" {
	run_both -f "$TESTDIR/no-such-file.img"
	[ "$BOTH_STATUS" -eq 1 ]
	[ "$BOTH_ERR" = "losetup: $TESTDIR/no-such-file.img: failed to set up loop device: No such file or directory" ]
}

@test "bad size suffixes" {
	img=$(make_image a.img 65536)
	for arg in 1Q -1 abc 1.5 10XiB 99999999999999999999; do
		run_both -f -o "$arg" "$img"
		[ "$BOTH_STATUS" -eq 1 ]
		run_both -f --sizelimit "$arg" "$img"
		run_both -f -b "$arg" "$img"
	done
	[[ "$BOTH_ERR" == "losetup: failed to parse logical block size: '99999999999999999999'"* ]]
}

@test "busy device" {
	img=$(make_image a.img 65536)
	other=$(make_image b.img 65536)
	dev=$(attach "$img")
	run_both "$dev" "$other"
	[ "$BOTH_STATUS" -eq 1 ]
	[ "$BOTH_ERR" = "losetup: $other: failed to set up loop device: Device or resource busy" ]
	[ "$(sysattr "$dev" loop/backing_file)" = "$img" ]
}

# 2.40 and later leave the name to the action: no "failed to use device"
@test "nonexistent or non-loop devices" {
	run --separate-stderr "$OUR_LOSETUP" -d /dev/loop-no-such
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: /dev/loop-no-such: detach failed: No such file or directory" ]
	run --separate-stderr "$OUR_LOSETUP" -c /dev/null
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: /dev/null: set capacity failed: Inappropriate ioctl for device" ]
	run --separate-stderr "$OUR_LOSETUP" -l /dev/zero
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n/dev/zero '* ]]
	run --separate-stderr "$OUR_LOSETUP" --direct-io=on /dev/no-such-loop
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: /dev/no-such-loop: set direct io failed: No such file or directory" ]
}

@test "detaching a free device" {
	dev=$("$UL_LOSETUP" -f)
	run_both -d "$dev"
	[ "$BOTH_STATUS" -eq 1 ]
	[ "$BOTH_ERR" = "losetup: $dev: detach failed: No such device or address" ]
	run_both "$dev"
	# util-linux reports the missing sysfs backing_file attribute
	[ "$BOTH_ERR" = "losetup: $dev: No such file or directory" ]
}

# 2.42's messages where 2.38's differ
@test "usage errors of util-linux 2.42" {
	run --separate-stderr "$OUR_LOSETUP" -a -d /dev/loop0
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: options --all and --detach cannot be combined" ]
	run --separate-stderr "$OUR_LOSETUP" -J --raw
	[ "$stderr" = "losetup: options --json and --raw cannot be combined" ]
	run --separate-stderr "$OUR_LOSETUP" -c /dev/loop0 -O NAME
	[ "$stderr" = "losetup: options --set-capacity and --output cannot be combined" ]
	run --separate-stderr "$OUR_LOSETUP" --direct-io=maybe
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: unsupported argument: maybe" ]
	run --separate-stderr "$OUR_LOSETUP" -d
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: no loop device specified" ]
	run --separate-stderr "$OUR_LOSETUP" --remove -l /dev/loop0
	[ "$stderr" = "losetup: options --remove and --list cannot be combined" ]
	# the device was not opened: the file failed first
	run --separate-stderr "$OUR_LOSETUP" /dev/loop0 "$TESTDIR/no-such.img" extra-ignored-arg
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: /dev/loop0: failed to set up loop device: No such file or directory" ]
}

@test "-v is still accepted, as a no-op" {
	run_both -v -a
	run_both --verbose -l
}

@test "usage errors" {
	run_both --no-such-option
	[ "$BOTH_STATUS" -eq 1 ]
	run_both -O NOPE
	[ "$BOTH_ERR" = "losetup: unknown column: NOPE" ]
	run_both -O NAME,
	run_both -r
	run_both --show -a
	run_both -o 1 -a
	run_both -f a b
	run_both -P /dev/loop0
}
