#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# losetup's dm engine in the guest, on the stock kernel's dm-crypt: every
# format gives the same plaintext through dm, kmod and fuse, and aespipe or
# openssl confirms it (the tests tagged "full" are left out of tools/check
# for time; those tagged "core" also run on the other kernels, through
# tests/vm/host/dm-kernel); listing, resize, read-only; mappings straight on a
# partition and on a device-mapper device; attach/detach cycles
# (DM_CYCLES, 100 by default); failure paths that leave nothing behind.
# Run by tests/vm/guest/guest-dm (which sets top_builddir and DM_CYCLES, and
# keeps the order: the first tests need a kernel where neither our module
# nor dm_crypt is loaded yet).

load ../../e2e/helpers

setup() {
	e2e_setup
	KO=${CLVM_KO:?run inside tests/vm/host/run}
}

teardown() {
	local m
	# mappings of ours left by a failing test, then the usual teardown
	for m in $(dmsetup ls 2>/dev/null | awk '/^cryptoloop-/ { print $1 }'); do
		dmsetup table "$m" 2>/dev/null | grep -q . && dmsetup remove "$m" 2>/dev/null || true
	done
	! dmsetup info clgrow >/dev/null 2>&1 || dmsetup remove clgrow
	e2e_teardown
}

# blockdevs: a 64 MiB RAM disk with two partitions, P1 (31 MiB from
# sector 2048) and P2 (the last 32 MiB), for the mappings the dm engine
# puts straight on a block device. The MBR is written by hand: the guest
# has no partitioning tool.
blockdevs() {
	[ -b /dev/ram0 ] || modprobe brd rd_nr=1 rd_size=65536 max_part=4
	python3 - /dev/ram0 <<'EOF'
import struct, sys
def entry(start, count):
    return struct.pack('<B3sB3sII', 0, bytes(3), 0x83, bytes(3), start, count)
mbr = bytes(446) + entry(2048, 63488) + entry(65536, 65536) + bytes(32) + b'\x55\xaa'
with open(sys.argv[1], 'r+b') as f:
    f.write(mbr)
EOF
	blockdev --rereadpt /dev/ram0
	P1=/dev/ram0p1 P2=/dev/ram0p2
	[ -b "$P1" ] && [ -b "$P2" ]
}

# nothing of the dm engine is left: no mapping, no loop device on one of
# our images, no record
dm_clean() {
	[ -z "$(dmsetup ls 2>/dev/null | grep '^cryptoloop-')" ] ||
		fail "mapping left: $(dmsetup ls)"
	! "$UL_LOSETUP" -a | grep -F "$TESTDIR" || fail "loop device left"
	! ls "$STATE_DIR" 2>/dev/null | grep -q '^dm\.' || fail "record left: $(ls "$STATE_DIR")"
}

# keyfile N: N loop-AES key lines of 40 characters
keyfile() {
	python3 -c '
import base64, os, sys
for _ in range(int(sys.argv[1])):
    print(base64.b64encode(os.urandom(30)).decode())' "$1" > "$TESTDIR/keys$1"
	echo "$TESTDIR/keys$1"
}

@test "dm-crypt missing: --engine dm says so, auto falls back, nothing left" {
	[ ! -e /sys/module/dm_crypt ] || skip "dm_crypt already loaded in this boot"
	img=$(image 4M)
	# a kernel without dm_crypt: hide the module tree in a private namespace
	run unshare -m sh -c 'mount -t tmpfs none /lib/modules/$(uname -r) &&
		exec "$0" --engine dm -e aes -p 3 -f --show "$1" 3<"$2"' \
		"$LOSETUP" "$img" "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"engine dm: device-mapper has no dm-crypt target here"* ]]
	run unshare -m sh -c 'mount -t tmpfs none /dev/mapper &&
		exec "$0" --engine dm -e aes -p 3 -f --show "$1" 3<"$2"' \
		"$LOSETUP" "$img" "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"engine dm: no device-mapper here"* ]]
	# auto passes dm by for fuse where dm-crypt is missing
	dev=$(unshare -m sh -c 'mount -t tmpfs none /lib/modules/$(uname -r) &&
		exec "$0" -e aes -p 3 -f --show "$1" 3<"$2"' "$LOSETUP" "$img" "$TESTDIR/pass")
	track "$dev"
	"$LOSETUP" -l -n -O ENGINE "$dev" | grep -qx ' *fuse *'
	detach "$dev"
	[ ! -e /sys/module/dm_crypt ]
	dm_clean
}

# bats test_tags=core
@test "done when: AES128 -K key.gpg through dm-crypt with no module of ours; aespipe decrypts; -d leaves nothing" {
	[ ! -e /sys/module/cryptoloop ] || skip "our module is loaded in this boot"
	img=$(image 8M)
	keys=$(keyfile 65)
	export GNUPGHOME="$TESTDIR/gnupg"
	mkdir -m 700 "$GNUPGHOME"
	echo "gpg passphrase for the key file" > "$TESTDIR/gpgpass"
	gpg --batch --no-options --quiet --pinentry-mode loopback --passphrase-fd 3 \
	    --symmetric --cipher-algo AES256 -o "$TESTDIR/key.gpg" "$keys" 3< "$TESTDIR/gpgpass"
	dev=$("$LOSETUP" -e AES128 -K "$TESTDIR/key.gpg" -G "$GNUPGHOME" -p 3 -f --show "$img" \
	      3< "$TESTDIR/gpgpass")
	track "$dev"
	[[ "$dev" == /dev/mapper/cryptoloop-loop* ]]
	[ ! -e /sys/module/cryptoloop ]
	dmsetup table "${dev#/dev/mapper/}" | grep -q ' crypt aes:64-cbc-lmk '
	head -c 8M /dev/urandom > "$TESTDIR/plain"
	dd if="$TESTDIR/plain" of="$dev" bs=1M oflag=direct status=none
	aespipe -d -e aes128 -K "$TESTDIR/key.gpg" -G "$GNUPGHOME" -p 3 < "$img" \
		3< "$TESTDIR/gpgpass" | cmp - "$TESTDIR/plain"
	"$LOSETUP" -d "$dev"
	dm_clean
}

# same_everywhere IMG ARGS...: write random data through dm, then read it
# back through kmod and fuse; $TESTDIR/plain holds it (and the caller
# checks the image against it with openssl or aespipe)
same_everywhere() {
	local img=$1 e dev
	shift
	head -c "$(( $(stat -c %s "$img") - ${OFF:-0} ))" /dev/urandom > "$TESTDIR/plain"
	dev=$(attach --engine dm "$@" "$img")
	[[ "$dev" == /dev/mapper/cryptoloop-loop* ]] || fail "dm gave $dev"
	dd if="$TESTDIR/plain" of="$dev" bs=64k oflag=direct status=none
	detach "$dev"
	for e in kmod fuse; do
		# QEMU's TCG advertises VAES but gets the upper half of a ymm
		# VAESENC/VAESDEC wrong; libloop checks that before it uses VAES
		# (libloop/crypto/aesni-cbc.c), so the guest's fuse daemon runs
		# its AES-NI path here, not libgcrypt.
		dev=$(attach --engine "$e" "$@" "$img")
		cmp <(device_bytes "$dev") "$TESTDIR/plain" ||
			fail "$e reads other plaintext than dm wrote ($*)"
		detach "$dev"
	done
	dm_clean
}

@test "cryptoloop, plain64, loop-AES single and multi-key: dm, kmod and fuse read the same; openssl/aespipe confirm" {
	[ -e /sys/module/cryptoloop ] || insmod "$KO"
	img=$(image 2M)
	# util-linux 2.12 cryptoloop: AES-256, raw key, 32-bit IV; openssl
	same_everywhere "$img" -e aes -p 3
	openssl_check "$img" "$TESTDIR/plain" "$(raw_key_hex "$PASS")" 4 0 0 1 7 4095
	# with an offset: the IV counts sectors from the start of the file
	OFF=$((1 << 20)) same_everywhere "$img" -e aes -p 3 -o 1M
	openssl_check "$img" "$TESTDIR/plain" "$(raw_key_hex "$PASS")" 4 2048 0 1 2047
	# plain64
	same_everywhere "$img" -e aes-cbc-plain64 -p 3
	openssl_check "$img" "$TESTDIR/plain" "$(raw_key_hex "$PASS")" 8 0 0 3 4095
	# loop-AES single key
	same_everywhere "$img" -e AES128 -p 3
	aespipe -d -e aes128 -p 3 < "$img" 3< "$TESTDIR/pass" | cmp - "$TESTDIR/plain"
	# multi-key v3 with an offset
	keys=$(keyfile 65)
	OFF=$((1 << 20)) same_everywhere "$img" -e AES256 --cleartext-keyfile "$keys" -o 1M
	tail -c +$(( (1 << 20) + 1 )) "$img" | aespipe -d -e aes256 -O 2048 -p 3 3< "$keys" |
		cmp - "$TESTDIR/plain"
}

# bats test_tags=full
@test "the rest of the matrix: AES192/256 with -o, -I, -S, -C; twofish, serpent, blowfish; multi-key v2" {
	[ -e /sys/module/cryptoloop ] || insmod "$KO"
	img=$(image 2M)
	OFF=$((1 << 20)) same_everywhere "$img" -e AES256 -p 3 -o 1M
	tail -c +$(( (1 << 20) + 1 )) "$img" | aespipe -d -e aes256 -O 2048 -p 3 3< "$TESTDIR/pass" |
		cmp - "$TESTDIR/plain"
	same_everywhere "$img" -e AES192 -p 3 -I 4096 -S salt -C 1
	aespipe -d -e aes192 -O 4096 -S salt -C 1 -p 3 < "$img" 3< "$TESTDIR/pass" |
		cmp - "$TESTDIR/plain"
	# other ciphers (their dm-crypt equivalence is kmod.bats' business)
	same_everywhere "$img" -e twofish -p 3
	same_everywhere "$img" -e serpent128 -p 3
	same_everywhere "$img" -e blowfish -p 3
	keys=$(keyfile 64)
	same_everywhere "$img" -e AES128 --cleartext-keyfile "$keys"
	aespipe -d -e aes128 -p 3 < "$img" 3< "$keys" | cmp - "$TESTDIR/plain"
}

@test "listing: -a, -l, -J, -j show the mapping, real image, range, cipher, ENGINE=dm; -r is read-only" {
	img=$(image 16M)
	dev=$(attach --engine dm -e AES256 -p 3 -o 1M --sizelimit 8M -r "$img")
	[ "$(blockdev --getsize64 "$dev")" -eq $((8 << 20)) ]
	[ "$(blockdev --getro "$dev")" = 1 ]
	run dd if=/dev/zero of="$dev" bs=4k count=1 oflag=direct status=none
	[ "$status" -ne 0 ]
	run "$LOSETUP" -l -n -O NAME,BACK-FILE,OFFSET,SIZELIMIT,CIPHER,KEYBITS,ENGINE
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "$dev $img 1048576 8388608 AES256 256 dm" ]
	run "$LOSETUP" -a
	[ "$output" = "$dev: [$(printf %04d "$(stat -c %d "$img")")]:$(stat -c %i "$img") ($img), offset 1048576, sizelimit 8388608, encryption AES256 (type 16)" ]
	run "$LOSETUP" -j "$img" -J -O NAME,ENGINE,CIPHER
	[ "$status" -eq 0 ]
	[[ "$(echo $output)" == *"\"name\": \"$dev\", \"engine\": \"dm\", \"cipher\": \"AES256\""* ]]
	run "$LOSETUP" -j "$img" -o 1M
	[[ "$output" == "$dev: "* ]]
	# the loop device underneath is the same device to -d
	lower=$("$UL_LOSETUP" -j "$img" | cut -d: -f1)
	[[ "$lower" == /dev/loop* ]]
	[ "$dev" = "/dev/mapper/cryptoloop-${lower#/dev/}" ]
	"$LOSETUP" -d "$lower"
	dm_clean
}

# bats test_tags=core
@test "a partition gets the mapping straight on it: no loop device; -o, --sizelimit, -I, -r, a second range, listing, -d" {
	blockdevs
	loops=$("$UL_LOSETUP" -a | wc -l)
	# util-linux 2.12 cryptoloop, 1 MiB in, 8 MiB long
	dev=$(attach --engine dm -e aes -p 3 -o 1M --sizelimit 8M "$P1")
	[ "$dev" = /dev/mapper/cryptoloop-ram0p1 ]
	[ "$("$UL_LOSETUP" -a | wc -l)" -eq "$loops" ]
	dmsetup deps -o devname cryptoloop-ram0p1 | grep -q '(ram0p1)$'
	[ "$(blockdev --getsize64 "$dev")" -eq $((8 << 20)) ]
	head -c 8M /dev/urandom > "$TESTDIR/plain"
	dd if="$TESTDIR/plain" of="$dev" bs=1M oflag=direct status=none
	# the IV counts the partition's sectors, offset included
	openssl_check "$P1" "$TESTDIR/plain" "$(raw_key_hex "$PASS")" 4 2048 0 1 16383
	run "$LOSETUP" -j "$P1" -l -n -O NAME,BACK-FILE,OFFSET,SIZELIMIT,KEYBITS,ENGINE,RO,AUTOCLEAR
	[ "$(echo $output)" = "$dev $P1 1048576 8388608 256 dm 0 0" ]
	# a second range of the same partition: loop-AES, IV from the data start
	dev2=$(attach --engine dm -e AES128 -p 3 -o 9M -I 0 "$P1")
	[ "$dev2" = /dev/mapper/cryptoloop-ram0p1.1 ]
	[ "$(blockdev --getsize64 "$dev2")" -eq $((22 << 20)) ]
	head -c 4M /dev/urandom > "$TESTDIR/plain2"
	dd if="$TESTDIR/plain2" of="$dev2" bs=1M oflag=direct status=none
	dd if="$P1" bs=1M skip=9 count=4 iflag=direct status=none |
		aespipe -d -e aes128 -O 0 -p 3 3< "$TESTDIR/pass" | cmp - "$TESTDIR/plain2"
	run "$LOSETUP" -a
	[ "${#lines[@]}" -eq $((loops + 2)) ]
	[[ "$output" == *"$dev: ["*"]:"*" ($P1), offset 1048576, sizelimit 8388608, encryption aes (type 18)"* ]]
	[[ "$output" == *"$dev2: ["*"]:"*" ($P1), offset 9437184, encryption AES128 (type 16)"* ]]
	run "$LOSETUP" -j "$P1" -o 9M -J -O NAME,ENGINE
	[[ "$(echo $output)" == *"\"name\": \"$dev2\", \"engine\": \"dm\""* ]]
	[[ "$output" != *"\"$dev\""* ]]
	"$LOSETUP" -d "$dev2"
	[ ! -e "$dev2" ]
	# read-only: the same data, no writes
	dev2=$(attach --engine dm -e AES128 -p 3 -o 9M -I 0 -r "$P1")
	[ "$(blockdev --getro "$dev2")" = 1 ]
	[ "$("$LOSETUP" -l -n -O RO "$dev2" | tr -d ' ')" = 1 ]
	cmp -n $((4 << 20)) <(device_bytes "$dev2") "$TESTDIR/plain2"
	run dd if=/dev/zero of="$dev2" bs=4k count=1 oflag=direct status=none
	[ "$status" -ne 0 ]
	# in use: the overlapping range is refused
	run "$LOSETUP" --engine dm -e aes -p 3 -f --show "$P1" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$P1: the image is already in use"* ]]
	"$LOSETUP" -d "$dev" "$dev2"
	dm_clean
	[ "$("$UL_LOSETUP" -a | wc -l)" -eq "$loops" ]
}

# bats test_tags=core
@test "the loop device under a mapping of ours is not a block device to map again" {
	img=$(image 8M)
	dev=$(attach --engine dm -e aes -p 3 "$img")
	lower=/dev/${dev#/dev/mapper/cryptoloop-}
	[[ "$lower" == /dev/loop* ]]
	head -c 4M /dev/urandom > "$TESTDIR/plain"
	dd if="$TESTDIR/plain" of="$dev" bs=1M oflag=direct status=none
	# its mapping is named as a direct one on that block device would be
	# (cryptoloop-loopN), but no record of a mapping straight on it says
	# so: a second read-write mapping with another key is refused
	printf 'another passphrase of twenty chars\n' > "$TESTDIR/other"
	run "$LOSETUP" -f --show --engine dm -e aes -p 3 "$lower" 3< "$TESTDIR/other"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $lower: failed to set up loop device: Device or resource busy" ]
	[ "$(dmsetup ls | grep -c '^cryptoloop-')" -eq 1 ]
	! ls "$STATE_DIR" | grep -q "^dm\.cryptoloop-" || false
	cmp -n $((4 << 20)) <(device_bytes "$dev") "$TESTDIR/plain"
	detach "$dev"
	dm_clean
}

# bats test_tags=core
@test "-c on a mapping straight on a device-mapper device (an LV's case), multi-key" {
	blockdevs
	dmsetup create clgrow --table "0 8192 linear $P2 0"
	dmsetup mknodes clgrow	# no udev in the guest
	kname=$(dmsetup info -c --noheadings -o blkdevname clgrow)
	[[ "$kname" == dm-* ]]
	keys=$(keyfile 64)
	dev=$(attach --engine dm -e AES128 --cleartext-keyfile "$keys" /dev/mapper/clgrow)
	[ "$dev" = "/dev/mapper/cryptoloop-$kname" ]
	dmsetup table "${dev#/dev/mapper/}" | grep -q ' aes:64-cbc-lmk '
	[ "$(blockdev --getsize64 "$dev")" -eq $((4 << 20)) ]
	dmsetup reload clgrow --table "0 12288 linear $P2 0"
	dmsetup resume clgrow
	"$LOSETUP" -c "$dev"
	[ "$(blockdev --getsize64 "$dev")" -eq $((6 << 20)) ]
	head -c 6M /dev/urandom > "$TESTDIR/plain"
	dd if="$TESTDIR/plain" of="$dev" bs=1M oflag=direct status=none
	aespipe -d -e aes128 -p 3 < /dev/mapper/clgrow 3< "$keys" | cmp - "$TESTDIR/plain"
	"$LOSETUP" -d "$dev"
	dm_clean
	dmsetup remove clgrow
}

@test "-c grows the loop device and the mapping, single and multi-key" {
	for args in "-e aes -p 3" "-e AES128 --cleartext-keyfile $(keyfile 64)"; do
		img=$(image 4M grow)
		dev=$(attach --engine dm $args "$img")
		[ "$(blockdev --getsize64 "$dev")" -eq $((4 << 20)) ]
		truncate -s 6M "$img"
		"$LOSETUP" -c "$dev"
		[ "$(blockdev --getsize64 "$dev")" -eq $((6 << 20)) ]
		head -c 1M /dev/urandom > "$TESTDIR/tail"
		dd if="$TESTDIR/tail" of="$dev" bs=1M seek=5 oflag=direct status=none
		detach "$dev"
		dev=$(attach --engine kmod $args "$img" 2>/dev/null ||
		      attach --engine fuse $args "$img")
		cmp <(dd if="$dev" bs=1M skip=5 iflag=direct status=none) "$TESTDIR/tail"
		detach "$dev"
		rm -f "$img"
	done
	dm_clean
}

@test "ext4 on dm survives reattach and reads the same through kmod" {
	[ -e /sys/module/cryptoloop ] || insmod "$KO"
	img=$(image 24M)
	dev=$(attach --engine dm -e AES128 -p 3 "$img")
	fs_write "$dev"
	detach "$dev"
	dev=$(attach --engine dm -e AES128 -p 3 "$img")
	fs_verify "$dev"
	detach "$dev"
	dev=$(attach --engine kmod -e AES128 -p 3 "$img")
	fs_verify "$dev"
	detach "$dev"
	dm_clean
}

cycles_n=${DM_CYCLES:-100}
@test "$cycles_n attach/detach cycles leave no mapping, loop device or record" {
	img=$(image 1M)
	loops_before=$(ls /sys/block | grep -c '^loop' || true)
	# in one process (tests/vm/progs/dm-cycles.c): under TCG, starting losetup
	# costs more than a cycle; the CLI path is what the other tests use
	cycles=$top_builddir/tests/vm/progs/.libs/dm-cycles
	[ -x "$cycles" ] && [ -n "${LD_LIBRARY_PATH:-}" ] || cycles=$top_builddir/tests/vm/progs/dm-cycles
	run "$cycles" "$img" "$cycles_n" < "$TESTDIR/pass"
	[ "$status" -eq 0 ]
	[ "$output" = "$cycles_n cycles" ]
	dm_clean
	[ -z "$("$UL_LOSETUP" -a | grep -F "$img")" ]
	[ "$(ls /sys/block | grep -c '^loop' || true)" -le $((loops_before + 1)) ]
}

@test "failures leave nothing: wrong key size, unknown cipher, mapping name taken, busy -d" {
	img=$(image 2M)
	# a key size AES does not have
	run "$LOSETUP" --engine dm -e aes -k 100 -p 3 -f --show "$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"aes: unknown encryption type or key size"* ]]
	dm_clean
	# 64 keys for blowfish (an 8-byte block, which lmk cannot take)
	keys=$(keyfile 64)
	run "$LOSETUP" --engine dm -e blowfish128 --cleartext-keyfile "$keys" -f --show "$img"
	[ "$status" -eq 1 ]
	[[ "$output" == *"blowfish128: cannot use 64 key lines"* ]]
	dm_clean
	run "$LOSETUP" --engine dm -e rot13 -p 3 -f --show "$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"rot13: unknown encryption type"* ]]
	dm_clean
	# the name the next loop device would get is taken
	next=$("$UL_LOSETUP" -f)
	dmsetup create "cryptoloop-${next#/dev/}" --table "0 8 zero"
	run "$LOSETUP" --engine dm -e aes -p 3 -f --show "$img" 3< "$TESTDIR/pass"
	dmsetup remove "cryptoloop-${next#/dev/}"
	[ "$status" -eq 1 ]
	[[ "$output" == *"a device-mapper device of the name the dm engine gives this loop device exists already"* ]]
	dm_clean
	# a mounted mapping: -d refuses, everything stays usable
	dev=$(attach --engine dm -e aes -p 3 "$img")
	mkfs.ext4 -q -F "$dev"
	mount "$dev" "$MNT"
	run "$LOSETUP" -d "$dev"
	[ "$status" -eq 1 ]
	[ -b "$dev" ]
	umount "$MNT"
	"$LOSETUP" -d "$dev"
	dm_clean
}

@test "mount.cryptoloop engine=dm: fstab mount from the mapping, umount removes it" {
	# mount(8) runs the helper without LD_LIBRARY_PATH: libtool's wrapper
	# sets it, where it is
	for h in mount.cryptoloop umount.cryptoloop; do
		printf '#!/bin/sh\nexec %q "$@"\n' "$top_builddir/mount/$h" > "/sbin/$h"
		chmod 0755 "/sbin/$h"
	done
	img=$(image 16M)
	dev=$(attach --engine dm -e AES256 -p 3 "$img")
	mkfs.ext4 -q "$dev"
	detach "$dev"
	echo "$img $MNT cryptoloop cipher=AES256,engine=dm,passfd=3,noauto 0 0" > "$TESTDIR/fstab"
	LIBMOUNT_FSTAB="$TESTDIR/fstab" mount "$MNT" 3< "$TESTDIR/pass"
	findmnt -n -o SOURCE "$MNT" | grep -q '^/dev/mapper/cryptoloop-loop'
	echo kept > "$MNT/file"
	umount "$MNT"
	dm_clean
	LIBMOUNT_FSTAB="$TESTDIR/fstab" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$(cat "$MNT/file")" = kept ]
	umount "$MNT"
	dm_clean
}
