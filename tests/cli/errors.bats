#!/usr/bin/env bats
# Error paths: the exact message and exit status util-linux gives.

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

@test "nonexistent or non-loop devices" {
	run_both -d /dev/loop-no-such
	[ "$BOTH_ERR" = "losetup: /dev/loop-no-such: failed to use device: No such device" ]
	run_both -c /dev/null
	[ "$BOTH_STATUS" -eq 1 ]
	run_both -l /dev/zero
	run_both --direct-io=on /dev/no-such-loop
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

@test "usage errors" {
	run_both -a -d /dev/loop0
	[ "$BOTH_ERR" = "losetup: mutually exclusive arguments: --detach-all --all --set-capacity --detach --find --associated" ]
	run_both -J --raw
	run_both --no-such-option
	[ "$BOTH_STATUS" -eq 1 ]
	run_both -O NOPE
	[ "$BOTH_ERR" = "losetup: unknown column: NOPE" ]
	run_both -O NAME,
	run_both -r
	run_both --show -a
	run_both -o 1 -a
	run_both --direct-io=maybe
	run_both -f a b
	run_both -P /dev/loop0
	# util-linux ignores a third argument; the image is missing, so
	# nothing is attached whichever device is free
	run_both /dev/loop0 "$TESTDIR/no-such.img" extra-ignored-arg
	[ "$BOTH_STATUS" -eq 1 ]
	[ "$BOTH_ERR" = "losetup: $TESTDIR/no-such.img: failed to set up loop device: No such file or directory" ]
}
