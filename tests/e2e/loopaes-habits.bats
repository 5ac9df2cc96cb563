#!/usr/bin/env bats
# What loop-AES users type and look for: the multi-key mode in the device
# line and a column, the key-data warning, -P KEYFILE, -e AES128 -k 256,
# and every engine named in help and errors. On the FUSE engine.
bats_require_minimum_version 1.5.0

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

# keyfile N: N lines of random key material
keyfile() {
	head -c 4096 /dev/urandom | base64 -w 40 | head -n "$1" > "$TESTDIR/keys$1"
	echo "$TESTDIR/keys$1"
}

@test "multi-key-v2/v3 on the device line, in -a, and in the MULTIKEY column (-l, -J)" {
	img=$(image 16M)
	dev=$(attach -e AES128 --cleartext-keyfile "$(keyfile 64)" "$img")
	[[ "$("$LOSETUP" "$dev")" == *", encryption AES128 (type "*"), multi-key-v2" ]]
	[[ "$("$LOSETUP" -a)" == *"($img), encryption AES128 (type "*"), multi-key-v2"* ]]
	[ "$("$LOSETUP" -l -n -O MULTIKEY "$dev" | tr -d ' ')" = multi-key-v2 ]
	detach "$dev"
	dev=$(attach -e AES256 --cleartext-keyfile "$(keyfile 65)" "$img")
	[[ "$("$LOSETUP" "$dev")" == *", multi-key-v3" ]]
	"$LOSETUP" -J -O NAME,MULTIKEY "$dev" | grep -q '"multikey": "multi-key-v3"'
	detach "$dev"
	# one key: nothing, as loop-AES showed nothing
	dev=$(attach -e AES256 -p 3 "$img")
	[[ "$("$LOSETUP" "$dev")" != *multi-key* ]]
	[ -z "$("$LOSETUP" -l -n -O MULTIKEY "$dev" | tr -d ' ')" ]
	"$LOSETUP" -J -O NAME,MULTIKEY "$dev" | grep -q '"multikey": null'
	detach "$dev"
	# the column is documented
	"$LOSETUP" --help | grep -q "MULTIKEY  loop-AES multi-key mode"
}

@test "a key file of neither 1, 64 nor 65 lines gets loop-AES's warning, and is used" {
	img=$(image 16M)
	for n in 10 66; do
		run --separate-stderr "$LOSETUP" -f --show --engine fuse -e AES128 \
			--cleartext-keyfile "$(keyfile $n)" "$img"
		[ "$status" -eq 0 ]
		track "$output"
		[[ "$stderr" == "losetup: Warning: Unknown key data format - using it anyway"* ]]
		detach "$output"
	done
	for n in 1 64 65; do
		run --separate-stderr "$LOSETUP" -f --show --engine fuse -e AES128 \
			--allow-short-passphrase --cleartext-keyfile "$(keyfile $n)" "$img"
		[ "$status" -eq 0 ]
		track "$output"
		[ -z "$stderr" ]
		detach "$output"
	done
}

@test "-P KEYFILE (loop-AES) names --cleartext-keyfile" {
	img=$(image 16M)
	keys=$(keyfile 64)
	run --separate-stderr "$LOSETUP" -e AES128 -P "$keys" /dev/loop7 "$img"
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: -P is --partscan here, as in util-linux; loop-AES's -P KEYFILE is --cleartext-keyfile KEYFILE" ]
	run --separate-stderr "$LOSETUP" -f -e AES128 -P "$keys" "$img"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"--cleartext-keyfile KEYFILE" ]]
	! "$LOSETUP" -a | grep -q "$TESTDIR" || false
}

@test "-e AES128 -k 256 says the two conflict; agreeing ones attach" {
	img=$(image 16M)
	run --separate-stderr "$LOSETUP" -f --engine fuse -e AES128 -k 256 -p 3 "$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: --encryption AES128 and --keybits 256 conflict: AES128 is a 128-bit key (give one of them)" ]
	dev=$(attach -e AES128 -k 128 -p 3 "$img")
	[ "$("$LOSETUP" -l -n -O KEYBITS "$dev" | tr -d ' ')" = 128 ]
	detach "$dev"
}

@test "help and errors name every engine" {
	run "$LOSETUP" --help
	[[ "$output" == *"--engine <name>"*"kmod, xfer, dm, fuse or auto (default)"* ]]
	[[ "$output" == *"ENGINE  encryption engine (kmod, xfer, dm, fuse)"* ]]
	run --separate-stderr "$LOSETUP" -f --engine nosuch -e AES128 -p 3 "$(image 1M)" 3< "$TESTDIR/pass"
	[ "$stderr" = "losetup: nosuch: unknown engine (kmod, xfer, dm, fuse or auto)" ]
}
