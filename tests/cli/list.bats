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
teardown() {
	# the nodes a test removed come back before anything is detached
	local dev mm
	while read -r dev mm; do
		[ -e "$dev" ] || mknod -m 600 "$dev" b $mm
	done < <(cat "$TESTDIR/lost" 2>/dev/null)
	common_teardown
}

# lose DEV: remove DEV's node (the kernel keeps the device); teardown
# makes it again
lose() {
	echo "$1 $(stat -L -c '%Hr %Lr' "$1")" >> "$TESTDIR/lost"
	rm "$1"
}

# util-linux 2.42's columns, in its order (its --output-all), and ours
UL_ALL=NAME,AUTOCLEAR,BACK-FILE,BACK-INO,BACK-MAJ:MIN,BACK-MAJ,BACK-MIN,MAJ:MIN,MAJ,MIN,OFFSET,PARTSCAN,REF,RO,SIZELIMIT,DIO,LOG-SEC
OUR_COLS=CIPHER,KEYBITS,ENGINE,MULTIKEY

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

@test "-J, -J -a" {
	run_both -J
	[[ "$BOTH_OUT" == *'"loopdevices"'* ]]
	run_both -J -a
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
	ul_newer sid
	UL_LOSETUP=$UL_NEWER run_both -J -j "$IMG1" -O "$UL_ALL"
}

@test "the columns util-linux 2.40 added: REF, MAJ, MIN, BACK-MAJ, BACK-MIN" {
	local ul42 majmin bmajmin col
	ul_newer sid
	ul42=$UL_NEWER
	majmin=$(stat -L -c '%Hr:%Lr' "$DEV2") bmajmin=$(stat -c '%Hd:%Ld' "$IMG2")
	# --raw and --json print device numbers unpadded (util-linux 2.40)
	run "$OUR_LOSETUP" -n --raw -O MAJ:MIN,MAJ,MIN,BACK-MAJ:MIN,BACK-MAJ,BACK-MIN "$DEV2"
	[ "$status" -eq 0 ]
	[ "$output" = "$majmin ${majmin%:*} ${majmin#*:} $bmajmin ${bmajmin%:*} ${bmajmin#*:}" ]
	run "$OUR_LOSETUP" -J -O MAJ:MIN,MAJ,BACK-MAJ "$DEV2"
	[[ "$output" == *"\"maj:min\": \"$majmin\","* ]]
	[[ "$output" == *"\"maj\": ${majmin%:*},"* ]]
	[[ "$output" == *"\"back-maj\": \"${bmajmin%:*}\""* ]]
	# without --loop-ref, REF is the backing file's path
	run "$OUR_LOSETUP" -n -O REF "$DEV2"
	[ "$output" = "$IMG2" ]
	for col in ${UL_ALL//,/ }; do
		UL_LOSETUP=$ul42 run_both -O "$col"
		UL_LOSETUP=$ul42 run_both --raw -O "$col"
		UL_LOSETUP=$ul42 run_both -J -O "$col"
	done
	UL_LOSETUP=$ul42 run_both -l -O "+REF,MAJ,MIN"
	UL_LOSETUP=$ul42 run_both -O ref,back-maj,back-min "$DEV1"
}

@test "--loop-ref: the reference util-linux 2.40 stores in lo_file_name" {
	local ul42 dev long
	ul_newer sid
	ul42=$UL_NEWER
	dev=$(attach --loop-ref my-ref "$IMG1")
	run "$OUR_LOSETUP" -n -O REF,BACK-FILE "$dev"
	[ "$output" = "my-ref $IMG1" ]
	UL_LOSETUP=$ul42 run_both -J -O NAME,REF,BACK-FILE
	# the -a line shows the backing file, never the reference
	UL_LOSETUP=$ul42 run_both -a
	[[ "$BOTH_OUT" == *"$dev: "*"($IMG1)"* ]]
	# the kernel's field is 64 bytes: a longer reference is cut to 63
	long=$(printf 'r%.0s' $(seq 70))
	dev=$(attach --loop-ref "$long" "$IMG1")
	run "$OUR_LOSETUP" -n -O REF "$dev"
	[ "$output" = "${long:0:63}" ]
	# "" is the default: the file's path
	dev=$(attach --loop-ref "" "$IMG1")
	run "$ul42" -n -O REF "$dev"
	[ "$output" = "$IMG1" ]
	# util-linux sets it the same way: both read back the same
	dev=$("$ul42" -f --show --loop-ref "ul ref" "$IMG1")
	track "$dev"
	UL_LOSETUP=$ul42 run_both --raw -O NAME,REF "$dev"
	[ "$BOTH_OUT" = $'NAME REF\n'"$dev ul\\x20ref" ]
	# ignored where nothing is set up, as in util-linux
	UL_LOSETUP=$ul42 run_both --loop-ref x -l -O NAME,REF "$dev"
}

@test "--output-all: util-linux 2.42's columns in its order, then ours, and it lists" {
	local ul42
	ul_newer sid
	ul42=$UL_NEWER
	run "$OUR_LOSETUP" --raw --output-all "$DEV1"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "${UL_ALL//,/ } ${OUR_COLS//,/ }" ]
	run "$ul42" --raw --output-all "$DEV1"
	[ "${lines[0]}" = "${UL_ALL//,/ }" ]
	# ours is -O util-linux's then ours; util-linux's is -O util-linux's
	for args in "" "--raw" "-J" "-n"; do
		diff -u <("$OUR_LOSETUP" $args -O "$UL_ALL,$OUR_COLS" "$DEV2") \
			<("$OUR_LOSETUP" $args --output-all "$DEV2")
		diff -u <("$ul42" $args -O "$UL_ALL" "$DEV2") \
			<("$ul42" $args --output-all "$DEV2")
		# -n: sid's libsmartcols sizes columns without their headers,
		# the host's (which ours links) with them; not losetup's doing
		[ "$args" = -n ] || UL_LOSETUP=$ul42 run_both $args -O "$UL_ALL" "$DEV2"
	done
	UL_LOSETUP=$ul42 run_both --json --list -O "$UL_ALL"
	# it implies --list (util-linux 2.40): alone, and over -a
	run "$OUR_LOSETUP" --output-all
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "NAME "*" LOG-SEC CIPHER KEYBITS ENGINE MULTIKEY" ]]
	[[ "$output" == *"$DEV1 "* ]]
	run "$OUR_LOSETUP" -a --output-all
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "NAME "* ]]
	run "$OUR_LOSETUP" -n --raw --output-all -O NAME "$DEV1"
	[ "$output" = "$DEV1" ]
}

@test "a lost device (its node gone): \"(lost)\" and util-linux 2.40's hint" {
	local ul42 img dev mm ul_f
	ul_newer sid
	ul42=$UL_NEWER
	img=$(make_image lost.img 1048576)
	dev=$(attach "$img")
	mm=$(stat -L -c '%Hr:%Lr' "$dev")
	lose "$dev"
	# the -a line, the table row and --raw: compared with util-linux 2.42
	diff -u <("$ul42" -a | grep "^$dev ") <("$OUR_LOSETUP" -a | grep "^$dev ")
	[ "$("$OUR_LOSETUP" -a | grep "^$dev ")" = "$dev (lost): []: ($img)" ]
	diff -u <("$ul42" -l | grep "^$dev ") <("$OUR_LOSETUP" -l | grep "^$dev ")
	run "$OUR_LOSETUP" -n --raw -O NAME,MAJ:MIN,BACK-FILE
	[[ "$output" == *"$dev\\x20(lost) $mm $img"* ]]
	diff -u <("$ul42" -n --raw -O NAME,MAJ:MIN,BACK-FILE | grep "^$dev") \
		<("$OUR_LOSETUP" -n --raw -O NAME,MAJ:MIN,BACK-FILE | grep "^$dev")

	# free and lost: setting it up fails, and says how to get it back
	mknod -m 600 "$dev" b ${mm/:/ }
	"$UL_LOSETUP" -d "$dev"
	lose "$dev"
	UL_LOSETUP=$ul42 run_both "$dev" "$img"
	[ "$BOTH_STATUS" -eq 1 ]
	[ "$BOTH_ERR" = "losetup: $dev: failed to set up loop device: No such file or directory
losetup: device node $dev ($mm) is lost. You may use mknod(1) to recover it." ]
	# -f finds the first free device, which may be this one
	run "$ul42" -f
	ul_f=$output
	run "$OUR_LOSETUP" -f
	[ "$status" -eq 0 ]
	[ "$output" = "$ul_f" ]
	[[ "$output" != "$dev"* ]] || [ "$output" = "$dev (lost)" ]
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
