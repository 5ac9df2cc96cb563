#!/usr/bin/env bats
# losetup -c on an encrypted device follows the image (grown or shrunk),
# within --offset and --sizelimit; --direct-io is refused where it would
# change nothing; the key options -c takes (for a LUKS mapping) are refused
# elsewhere. On the FUSE engine; tests/vm covers kmod and dm.
bats_require_minimum_version 1.5.0

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

size_of() { blockdev --getsize64 "$1"; }

@test "-c after growing the image: the device grows, old and new data survive" {
	img=$(image 16M)
	dev=$(attach -e AES256 -p 3 "$img")
	head -c 1M /dev/urandom > "$TESTDIR/a"
	head -c 1M /dev/urandom > "$TESTDIR/b"
	dd if="$TESTDIR/a" of="$dev" bs=1M oflag=direct status=none
	[ "$(size_of "$dev")" -eq $((16 << 20)) ]
	truncate -s 32M "$img"
	"$LOSETUP" -c "$dev"
	[ "$(size_of "$dev")" -eq $((32 << 20)) ]
	# the new part is usable: write its last MiB
	dd if="$TESTDIR/b" of="$dev" bs=1M seek=31 oflag=direct status=none
	detach "$dev"
	dev=$(attach -e AES256 -p 3 "$img")
	cmp "$TESTDIR/a" <(dd if="$dev" bs=1M count=1 iflag=direct status=none)
	cmp "$TESTDIR/b" <(dd if="$dev" bs=1M skip=31 count=1 iflag=direct status=none)
	detach "$dev"
}

@test "-c after shrinking the image: the device shrinks, what is left is intact" {
	img=$(image 32M)
	dev=$(attach -e AES128 -p 3 "$img")
	head -c 4M /dev/urandom > "$TESTDIR/a"
	dd if="$TESTDIR/a" of="$dev" bs=1M oflag=direct status=none
	truncate -s 8M "$img"
	"$LOSETUP" -c "$dev"
	[ "$(size_of "$dev")" -eq $((8 << 20)) ]
	cmp "$TESTDIR/a" <(dd if="$dev" bs=1M count=4 iflag=direct status=none)
	run dd if=/dev/zero of="$dev" bs=1M seek=8 count=1 oflag=direct status=none
	[ "$status" -ne 0 ]
	detach "$dev"
}

@test "-c keeps to --offset and --sizelimit" {
	img=$(image 16M)
	dev=$(attach -e AES256 -o 1M -p 3 "$img")
	[ "$(size_of "$dev")" -eq $((15 << 20)) ]
	truncate -s 32M "$img"
	"$LOSETUP" -c "$dev"
	[ "$(size_of "$dev")" -eq $((31 << 20)) ]
	detach "$dev"
	dev=$(attach -e AES256 --sizelimit 8M -p 3 "$img")
	truncate -s 64M "$img"
	"$LOSETUP" -c "$dev"
	[ "$(size_of "$dev")" -eq $((8 << 20)) ]
	detach "$dev"
}

@test "--direct-io on the fuse engine is refused, never ignored" {
	[ "$E2E_ENGINE" = fuse ] || skip "about the fuse engine (kmod honours --direct-io)"
	img=$(image 16M)
	run --separate-stderr "$LOSETUP" -f --show --engine fuse --direct-io=on -e AES256 -p 3 \
		"$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: $img: --direct-io is not supported by the fuse engine (its daemon reads and writes the image itself, buffered); use --engine kmod, xfer or dm" ]
	! "$LOSETUP" -a | grep -q "$TESTDIR" || false
	# off is what the daemon does: accepted, and shown as such
	dev=$(attach --direct-io=off -e AES256 -p 3 "$img")
	[ "$("$LOSETUP" -l -n -O DIO "$dev" | tr -d ' ')" = 0 ]
	for v in on off; do
		run --separate-stderr "$LOSETUP" --direct-io=$v "$dev"
		[ "$status" -eq 1 ]
		[ "$stderr" = "losetup: $dev: --direct-io is not supported by the fuse engine (its daemon reads and writes the image itself, buffered)" ]
	done
	detach "$dev"
}

@test "-c takes the LUKS unlock options only, and those only for a LUKS mapping" {
	img=$(image 8M)
	dev=$(attach -e AES256 -p 3 "$img")
	truncate -s 12M "$img"
	run "$LOSETUP" -c "$dev" -p 3 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $dev: --pass-fd with -c is for a LUKS mapping of the dm engine, which this is not" ]
	run "$LOSETUP" -c "$dev" --header "$img"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $dev: --header with -c is for a LUKS mapping of the dm engine, which this is not" ]
	run "$LOSETUP" -c "$dev" -e AES256
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: of the encryption options, -c takes only --pass-fd, --allow-empty-passphrase, --cleartext-keyfile and --header (for a LUKS mapping)" ]
	[ "$(size_of "$dev")" -eq $((8 << 20)) ]
	"$LOSETUP" -c "$dev"
	[ "$(size_of "$dev")" -eq $((12 << 20)) ]
	detach "$dev"
}
