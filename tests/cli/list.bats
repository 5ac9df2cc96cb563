#!/usr/bin/env bats
# Every listing format, compared byte for byte with util-linux's losetup on
# the same devices.

load helpers

setup() {
	cli_setup
	IMG1=$(make_image one.img 1048576)
	IMG2=$(make_image "two with space.img" 2097152)
	DEV1=$(attach "$IMG1")
	DEV2=$(attach -o 4096 --sizelimit 1M -r "$IMG2")
}
teardown() { common_teardown; }

@test "-a" {
	run_both -a
	[[ "$BOTH_OUT" == *"$DEV1: "*"($IMG1)"* ]]
	[[ "$BOTH_OUT" == *"$DEV2: "*"($IMG2), offset 4096, sizelimit 1048576"* ]]
}

@test "no arguments lists like --list --all" {
	run_both
	[[ "$BOTH_OUT" == NAME* ]]
}

@test "-l, -l -a, --list DEVICE" {
	run_both -l
	run_both -l -a
	run_both --list "$DEV2"
	[[ "$BOTH_OUT" == *"$IMG2"* ]]
}

@test "a single device without -l" {
	run_both "$DEV2"
	[ "$BOTH_OUT" = "$DEV2: [$(printf %04d "$(stat -c %d "$IMG2")")]:$(stat -c %i "$IMG2") ($IMG2), offset 4096, sizelimit 1048576" ]
}

@test "-J, -J -a, --json --output-all" {
	run_both -J
	[[ "$BOTH_OUT" == *'"loopdevices"'* ]]
	run_both -J -a
	run_both --json --list --output-all
	run_both -J "$DEV1"
}

@test "-O with every column, alone and appended" {
	for col in NAME AUTOCLEAR BACK-FILE BACK-INO BACK-MAJ:MIN MAJ:MIN OFFSET \
		   PARTSCAN RO SIZELIMIT DIO LOG-SEC; do
		run_both -O "$col"
		run_both -l -O "+$col"
	done
	run_both -O name,ro,back-file
}

@test "-n and --raw, alone and together" {
	run_both -n
	run_both -l -n
	run_both --raw
	run_both -l --raw -n
	run_both --raw --output-all
	run_both -n -O NAME,OFFSET "$DEV2"
}

@test "-j FILE, with and without -o, and -l -j" {
	run_both -j "$IMG2"
	[[ "$BOTH_OUT" == "$DEV2: "* ]]
	run_both -j "$IMG2" -o 4096
	[[ "$BOTH_OUT" == "$DEV2: "* ]]
	run_both -j "$IMG2" -o 0
	[ -z "$BOTH_OUT" ]
	run_both -l -j "$IMG1"
	run_both -J -j "$IMG1" --output-all
}

@test "--help and --version" {
	# util-linux 2.42's text (compare.bats holds it against 2.42's own),
	# not 2.38's: --remove is new, -v is gone
	"$OUR_LOSETUP" --help > "$TESTDIR/our.help"
	grep -q -- '^     --remove <loopdev>...     remove one or more devices$' "$TESTDIR/our.help"
	! grep -q -- '--verbose' "$TESTDIR/our.help" || false
	grep -q '^Encryption options:$' "$TESTDIR/our.help"
	run "$OUR_LOSETUP" -V
	[ "$status" -eq 0 ]
	[[ "$output" == "losetup from cryptoloop "* ]]
}
