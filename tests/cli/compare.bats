#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Our losetup beside util-linux 2.41's (Debian trixie) and 2.42's (Debian
# unstable), over the same scenarios on the same devices: stdout, stderr
# and exit status must be util-linux 2.42's. Where 2.41 differs, the test
# checks that it does (losetup.8 lists each difference). The binaries come
# from the chroots tests/vm/host/fetch-kernel builds, run with their own loader
# and libraries; without them the whole file is skipped, never passed.
# Ours runs with the same loader and libraries beside each: the table
# layout is libsmartcols', whose widths with -n changed in 2.41 and 2.42.
# No scenario runs -D: it would detach every device of the host.

load helpers

setup() {
	cli_setup
	ul_need trixie sid
	# libtool's wrapper script cannot run under another loader
	local ours=$top_builddir/losetup/.libs/losetup
	[ -x "$ours" ] || ours=$OUR_LOSETUP
	UL241=$(ul_wrap trixie "$(ul_root trixie)/usr/sbin/losetup")
	UL242=$(ul_wrap sid "$(ul_root sid)/usr/sbin/losetup")
	OUR241=$(ul_wrap trixie "$ours" "$top_builddir/libloop/.libs")
	OUR242=$(ul_wrap sid "$ours" "$top_builddir/libloop/.libs")
	[[ $("$UL241" -V) == "losetup from util-linux 2.41"* ]] || fail "$UL241 is not util-linux 2.41"
	[[ $("$UL242" -V) == "losetup from util-linux 2.42"* ]] || fail "$UL242 is not util-linux 2.42"
	IMG1=$(make_image one.img 1048576)
	IMG2=$(make_image "two with space.img" 2097152)
	DEV1=$(attach "$IMG1")
	DEV2=$(attach -o 4096 --sizelimit 1M -r "$IMG2")
	NOLOOP=/dev/loop98765
	[ ! -e /sys/block/loop98765 ] || fail "$NOLOOP exists"
}
# the devices the test made, detached first, go with util-linux 2.42's
# --remove, so that a bug of ours cannot hide a leak ("losetup $NOLOOP
# FILE" makes one, in util-linux too)
teardown() {
	local made=() d
	[ -z "${UL242:-}" ] || mapfile -t made < <(cat "$TESTDIR/made.devs" 2>/dev/null || true; echo "$NOLOOP")
	common_teardown
	for d in "${made[@]}"; do
		# $UL242 went with $TESTDIR
		if [ -n "$d" ] && [ -e "/sys/block/${d#/dev/}" ]; then
			ul_run sid "$(ul_root sid)/usr/sbin/losetup" --remove "$d"
		fi
	done
}

# both ARGS...: ours as util-linux 2.41's and 2.42's
both() {
	UL_LOSETUP=$UL242 OUR_LOSETUP=$OUR242 run_both "$@"
	UL_LOSETUP=$UL241 OUR_LOSETUP=$OUR241 run_both "$@"
}

# new ARGS...: ours as 2.42's, where 2.41 answers otherwise
new() {
	local out err rc
	UL_LOSETUP=$UL242 OUR_LOSETUP=$OUR242 run_both "$@"
	if out=$("$UL241" "$@" 2> "$TESTDIR/241.err"); then rc=0; else rc=$?; fi
	err=$(sed 's|^[^ ]*/\([^/ ]*\): |\1: |' "$TESTDIR/241.err")
	if [ "$out" = "$BOTH_OUT" ] && [ "$err" = "$BOTH_ERR" ] && [ "$rc" -eq "$BOTH_STATUS" ]; then
		fail "util-linux 2.41 answers as 2.42 does: losetup $*"
	fi
}

# a device of its own beyond the host's, attached and detached again:
# free, and nobody else's
extra_free_device() {
	local n=64
	while [ -e "/sys/block/loop$n" ]; do n=$((n + 1)); done
	track "/dev/loop$n"
	echo "/dev/loop$n" >> "$TESTDIR/made.devs"
	"$OUR_LOSETUP" "/dev/loop$n" "$IMG1"
	"$UL_LOSETUP" -d "/dev/loop$n"
	echo "/dev/loop$n"
}

@test "listings: -a, -l, -n, --raw, -J, one device, -j" {
	both -a
	[[ "$BOTH_OUT" == *"$DEV2: "*"($IMG2), offset 4096, sizelimit 1048576"* ]]
	both
	both -l
	both -l -a
	both -n
	both -l -n
	both --raw
	both -l --raw -n
	both -J
	both -J -a
	both "$DEV2"
	both -l "$DEV2"
	both -J "$DEV1"
	both -j "$IMG2"
	both -j "$IMG2" -o 4096
	both -j "$IMG2" -o 0
	both -l -j "$IMG1"
}

@test "-O with each of util-linux 2.38's columns, alone, appended, raw and JSON" {
	for col in NAME AUTOCLEAR BACK-FILE BACK-INO BACK-MAJ:MIN MAJ:MIN OFFSET \
		   PARTSCAN RO SIZELIMIT DIO LOG-SEC; do
		both -O "$col"
		both -l -O "+$col"
		[[ "$col" == *MAJ:MIN ]] && continue
		both --raw -O "NAME,$col"
		both -J -O "NAME,$col"
	done
	both -O name,ro,back-file
}

# util-linux 2.40's columns (REF, MAJ, MIN, BACK-MAJ, BACK-MIN), and its
# unpadded MAJ:MIN and BACK-MAJ:MIN in --raw and JSON
@test "-O with each of util-linux 2.40's columns; MAJ:MIN in --raw and JSON" {
	for col in BACK-MAJ BACK-MIN MAJ MIN REF BACK-MAJ:MIN MAJ:MIN; do
		both -O "NAME,$col"
		both --raw -O "NAME,$col"
		both -J -O "NAME,$col"
	done
}

# --output-all: util-linux's columns in its order, then our four, which are
# empty on unencrypted devices; without them the output is util-linux's
no_crypt_columns() {
	sed -E '/^ *"(cipher|keybits|engine|multikey)": /d; s/ CIPHER KEYBITS ENGINE MULTIKEY$//; s/ +$//' |
		awk '{ line[NR] = $0 } END {
			for (i = 1; i <= NR; i++) {
				# the JSON member before the dropped ones ended with a comma
				if (line[i] ~ /^ *"log-sec": .*,$/ && line[i + 1] ~ /^ *}/)
					sub(/,$/, "", line[i])
				print line[i]
			} }'
}

@test "--output-all" {
	# ours adds exactly its four columns, after util-linux's
	"$OUR242" --output-all | head -1 | grep -q ' LOG-SEC CIPHER KEYBITS ENGINE MULTIKEY$'
	"$OUR242" -J --output-all | grep -q '"multikey": null'
	OUR_FILTER=no_crypt_columns both --output-all
	OUR_FILTER=no_crypt_columns both -l --output-all
	OUR_FILTER=no_crypt_columns both --raw --output-all
	OUR_FILTER=no_crypt_columns both -J --output-all
	OUR_FILTER=no_crypt_columns both -n --output-all "$DEV2"
	OUR_FILTER=no_crypt_columns both -J -j "$IMG1" --output-all
}

@test "--loop-ref" {
	dev=$(attach --loop-ref myref "$IMG2")
	both -l -O NAME,REF,BACK-FILE
	[[ "$BOTH_OUT" == *"$dev "*myref* ]]
	both -J -O NAME,REF "$dev"
	both -a
}

@test "--remove: a free device, a busy one, one that does not exist" {
	free=$(extra_free_device)
	run --separate-stderr "$UL242" --remove "$free"
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ]
	[ ! -e "/sys/block/${free#/dev/}" ]
	free=$(extra_free_device)
	run --separate-stderr "$OUR_LOSETUP" --remove "$free"
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ]
	[ ! -e "/sys/block/${free#/dev/}" ]
	new --remove "$DEV1"
	[ "$BOTH_ERR" = "losetup: $DEV1: remove failed: Device or resource busy" ]
	[ -n "$("$UL_LOSETUP" -j "$IMG1")" ]
	new --remove "$NOLOOP"
	[ "$BOTH_ERR" = "losetup: $NOLOOP: remove failed: No such device" ]
	new --remove "$NOLOOP" "$DEV1"
	new --remove /dev/not-a-loop
	new --remove
	new --remove -r "$NOLOOP"
}

@test "-f with a free device node" {
	local l
	local -A bin=([ul-trixie]=$UL241 [our-trixie]=$OUR241 [ul-sid]=$UL242 [our-sid]=$OUR242)
	for l in "${!bin[@]}"; do
		run --separate-stderr "${bin[$l]}" -f
		[ "$status" -eq 0 ] && [ -z "$stderr" ]
		[[ "$output" == /dev/loop* ]]
		echo "$output" > "$TESTDIR/$l.f"
	done
	diff -u "$TESTDIR/ul-sid.f" "$TESTDIR/our-sid.f"
	diff -u "$TESTDIR/ul-trixie.f" "$TESTDIR/our-trixie.f"
}

@test "each pair of mutually exclusive options" {
	local -A arg=([a]=-a [c]=-c [d]=-d [f]=-f [j]="-j $IMG1" [l]=-l
		      [O]="-O NAME" [R]=--remove [J]=-J [r]=--raw)
	local row x y
	# util-linux 2.42's rows without -D, which no test may run
	for row in acdfjR cdflR OcdfR Jr; do
		for ((i = 0; i < ${#row}; i++)); do
			for ((k = 0; k < ${#row}; k++)); do
				x=${row:i:1} y=${row:k:1}
				[ "$x" != "$y" ] || continue
				# shellcheck disable=SC2086 # the option and its argument
				new ${arg[$x]} ${arg[$y]} "$NOLOOP"
				[[ "$BOTH_ERR" == "losetup: options --"*" and --"*" cannot be combined" ]]
			done
		done
	done
	new -a -d "$NOLOOP"
	[ "$BOTH_ERR" = "losetup: options --all and --detach cannot be combined" ]
	new -O NAME -c "$NOLOOP"
	[ "$BOTH_ERR" = "losetup: options --output and --set-capacity cannot be combined" ]
}

@test "-c, -d and --remove take the first operand, anywhere" {
	new -d
	[ "$BOTH_ERR" = "losetup: no loop device specified" ]
	new -c
	new "$NOLOOP" -d
	[ "$BOTH_ERR" = "losetup: $NOLOOP: detach failed: No such file or directory" ]
	new --detach="$NOLOOP"
	new -d"$NOLOOP"
	both -d "$NOLOOP"
	both -c "$NOLOOP"
	[ "$BOTH_ERR" = "losetup: $NOLOOP: set capacity failed: No such file or directory" ]
	both -d "$NOLOOP" "$NOLOOP"
}

@test "devices named but not there, or not loop devices" {
	both "$NOLOOP"
	[ "$BOTH_ERR" = "losetup: $NOLOOP: No such file or directory" ]
	both -l "$NOLOOP"
	[ "$BOTH_STATUS" -eq 0 ]
	both -c /dev/null
	both -d /dev/null
	both -l /dev/zero
	both --direct-io=on "$NOLOOP"
	free=$(extra_free_device)
	both -d "$free"
	both "$free"
}

@test "error messages and exit statuses" {
	both -f "$TESTDIR/no-such-file.img"
	both "$DEV1" "$IMG2"
	[ "$BOTH_ERR" = "losetup: $IMG2: failed to set up loop device: Device or resource busy" ]
	both "$NOLOOP" "$TESTDIR/no-such-file.img" extra-ignored-arg
	[ "$BOTH_ERR" = "losetup: $NOLOOP: failed to set up loop device: No such file or directory" ]
	for a in 1Q -1 abc 99999999999999999999; do
		both -f -o "$a" "$IMG1"
		both -f --sizelimit "$a" "$IMG1"
		both -f -b "$a" "$IMG1"
	done
	both --no-such-option
	both -O NOPE
	both -O NAME,
	both -r
	both --show -a
	both -o 1 -a
	both -f a b
	both -P "$NOLOOP"
	new --direct-io=maybe
	[ "$BOTH_ERR" = "losetup: unsupported argument: maybe" ]
}

@test "the sector-boundary warnings" {
	odd="$TESTDIR/odd.img" small="$TESTDIR/small.img"
	head -c 1000 /dev/zero > "$odd"
	head -c 100 /dev/zero > "$small"
	local -A bin=([ul-trixie]=$UL241 [ul-sid]=$UL242 [our-sid]=$OUR242)
	for f in "$odd" "$small"; do
		for l in "${!bin[@]}"; do
			run --separate-stderr "${bin[$l]}" -f --show "$f"
			track "$output"
			[ "$status" -eq 0 ]
			"$UL_LOSETUP" -d "$output"
			echo "$stderr" > "$TESTDIR/$l.warn"
		done
		diff -u "$TESTDIR/ul-sid.warn" "$TESTDIR/our-sid.warn"
		diff -u "$TESTDIR/ul-trixie.warn" "$TESTDIR/our-sid.warn"
	done
}

@test "--help: util-linux 2.42's text, then ours" {
	"$UL242" --help > "$TESTDIR/ul.help"
	"$OUR_LOSETUP" --help | sed '/^Encryption options:$/,/^$/d; /^Encryption output columns/,/^$/d' > "$TESTDIR/our.help"
	diff -u "$TESTDIR/ul.help" "$TESTDIR/our.help"
	"$OUR_LOSETUP" --help | grep -q '^Encryption options:$'
	! "$OUR_LOSETUP" --help | grep -q -- --verbose || false
}

@test "-v is kept as a no-op, unlike 2.42" {
	run --separate-stderr "$UL242" -v -a
	[ "$status" -eq 1 ]
	UL_LOSETUP=$UL241 OUR_LOSETUP=$OUR241 run_both -v -a
	UL_LOSETUP=$UL241 OUR_LOSETUP=$OUR241 run_both --verbose -l
}
