#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# "losetup -e luks" and "mount.cryptoloop cipher=luks" in the guest, on
# the stock kernel's dm-crypt: volumes that cryptsetup (the independent
# tool) formats open with the same plaintext that "cryptsetup open" shows,
# both ways; LUKS1, a detached header, a key file, read-only, straight on
# a block device; cryptoloop-reencrypt --new --luks2 results, with and
# without --header, through losetup and an fstab line; a wrong passphrase
# refused with our message; detach leaves no mapping, loop device or
# record; a LUKS2 volume key in no table (dmsetup table --showkeys), so
# -c unlocks the volume again; -c refused in the middle of a cryptsetup
# reencryption, the data as cryptsetup reads it. Run by tests/vm/host/luks-open
# (through tests/vm/guest/guest-dm).

load ../../e2e/helpers

setup() {
	e2e_setup
	# the passphrase without its newline, as cryptsetup's --key-file reads it
	printf '%s' "$PASS" > "$TESTDIR/key"
}

teardown() {
	local m
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	for m in $(dmsetup ls 2>/dev/null | awk '/^(cryptoloop-|clref)/ { print $1 }'); do
		dmsetup remove "$m" 2>/dev/null || true
	done
	e2e_teardown
}

# nothing of the dm engine is left: no mapping, no loop device, no record
dm_clean() {
	[ -z "$(dmsetup ls 2>/dev/null | grep '^cryptoloop-')" ] ||
		fail "mapping left: $(dmsetup ls)"
	! "$UL_LOSETUP" -a | grep -F "$TESTDIR" || fail "loop device left"
	! ls "$STATE_DIR" 2>/dev/null | grep -q '^dm\.' || fail "record left: $(ls "$STATE_DIR")"
}

# luks_format IMAGE [cryptsetup options]: a LUKS2 volume with a cheap keyslot
# (PBKDF2, 1000 iterations: argon2 under TCG costs seconds per open)
luks_format() {
	local img=$1
	shift
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file "$TESTDIR/key" "$@" "$img"
}

@test "a cryptsetup LUKS2 volume opens with losetup -e luks: same plaintext both ways, listed, detach cleans" {
	img=$(image 24M)
	luks_format "$img"
	head -c 8M /dev/urandom > "$TESTDIR/plain"
	cryptsetup open --key-file "$TESTDIR/key" "$img" clref
	dd if="$TESTDIR/plain" of=/dev/mapper/clref bs=1M oflag=direct status=none
	size=$(blockdev --getsize64 /dev/mapper/clref)
	cryptsetup close clref

	dev=$(attach -e luks -p 3 "$img")
	[[ "$dev" == /dev/mapper/cryptoloop-loop* ]]
	[ "$(blockdev --getsize64 "$dev")" -eq "$size" ]
	cmp <(device_bytes "$dev" | head -c 8M) "$TESTDIR/plain"
	# listed like any dm-engine device, the cipher from the header
	run "$LOSETUP" -l -n -O NAME,BACK-FILE,CIPHER,KEYBITS,ENGINE
	[ "$(echo $output)" = "$dev $img luks2-aes-xts-plain64 512 dm" ]
	run "$LOSETUP" -j "$img" -J -O NAME,ENGINE,CIPHER
	[[ "$(echo $output)" == *"\"name\": \"$dev\", \"engine\": \"dm\", \"cipher\": \"luks2-aes-xts-plain64\""* ]]
	run "$LOSETUP" -a
	[[ "$output" == "$dev: "*"($img), encryption luks2-aes-xts-plain64 (type 0)" ]]
	# written through ours, read by cryptsetup's mapping
	head -c 4M /dev/urandom > "$TESTDIR/plain2"
	dd if="$TESTDIR/plain2" of="$dev" bs=1M seek=2 oflag=direct status=none
	detach "$dev"
	dm_clean
	cryptsetup open --readonly --key-file "$TESTDIR/key" "$img" clref
	cmp <(device_bytes /dev/mapper/clref | head -c 2M) <(head -c 2M "$TESTDIR/plain")
	cmp <(device_bytes /dev/mapper/clref | tail -c +$((2 * 1048576 + 1)) | head -c 4M) \
		"$TESTDIR/plain2"
	cryptsetup close clref
}

@test "a wrong passphrase is refused with our message, nothing left" {
	img=$(image 20M)
	luks_format "$img"
	printf 'not the passphrase of this volume\n' > "$TESTDIR/wrong"
	run "$LOSETUP" --engine dm -e luks -p 3 -f --show "$img" 3< "$TESTDIR/wrong"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $img: no LUKS keyslot opens with this passphrase" ]
	dm_clean
	# a LUKS1 volume is not a LUKS2 one
	luks1=$(image 20M luks1)
	cryptsetup luksFormat -q --type luks1 --pbkdf-force-iterations 1000 \
		--key-file "$TESTDIR/key" "$luks1"
	run "$LOSETUP" --engine dm -e luks2 -p 3 -f --show "$luks1" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $luks1: not a luks2 header" ]
	dm_clean
}

@test "LUKS1, a detached header, a key file, read-only; straight on a block device" {
	# LUKS1 with the passphrase
	img=$(image 20M)
	cryptsetup luksFormat -q --type luks1 --pbkdf-force-iterations 1000 \
		--key-file "$TESTDIR/key" "$img"
	head -c 4M /dev/urandom > "$TESTDIR/plain"
	cryptsetup open --key-file "$TESTDIR/key" "$img" clref
	dd if="$TESTDIR/plain" of=/dev/mapper/clref bs=1M oflag=direct status=none
	cryptsetup close clref
	dev=$(attach -e luks1 -p 3 "$img")
	cmp <(device_bytes "$dev" | head -c 4M) "$TESTDIR/plain"
	[ "$("$LOSETUP" -l -n -O CIPHER "$dev")" = luks1-aes-xts-plain64 ]
	detach "$dev"
	dm_clean

	# LUKS2, header in its own file, a binary key file, read-only
	img=$(image 8M data)
	truncate -s 16M "$TESTDIR/hdr"
	head -c 64 /dev/urandom > "$TESTDIR/keyfile"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--cipher aes-cbc-essiv:sha256 --key-size 256 --header "$TESTDIR/hdr" \
		--key-file "$TESTDIR/keyfile" "$img"
	cryptsetup open --header "$TESTDIR/hdr" --key-file "$TESTDIR/keyfile" "$img" clref
	dd if="$TESTDIR/plain" of=/dev/mapper/clref bs=1M oflag=direct status=none
	cryptsetup close clref
	# the passphrase is not the key file
	run "$LOSETUP" --engine dm -e luks --header "$TESTDIR/hdr" -p 3 -f --show "$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $img: no LUKS keyslot opens with this passphrase" ]
	dm_clean
	dev=$(attach -e luks --header "$TESTDIR/hdr" --cleartext-keyfile "$TESTDIR/keyfile" -r "$img")
	cmp <(device_bytes "$dev" | head -c 4M) "$TESTDIR/plain"
	[ "$(blockdev --getro "$dev")" = 1 ]
	[ "$(blockdev --getsize64 "$dev")" -eq $((8 << 20)) ]
	[ "$("$LOSETUP" -l -n -O CIPHER "$dev")" = luks2-aes-cbc-essiv:sha256 ]
	detach "$dev"
	dm_clean

	# a RAM disk: the mapping sits straight on it, no loop device
	[ -b /dev/ram0 ] || modprobe brd rd_nr=1 rd_size=65536
	loops=$("$UL_LOSETUP" -a | wc -l)
	luks_format /dev/ram0
	dev=$(attach -e luks -p 3 /dev/ram0)
	[ "$dev" = /dev/mapper/cryptoloop-ram0 ]
	[ "$("$UL_LOSETUP" -a | wc -l)" -eq "$loops" ]
	dd if="$TESTDIR/plain" of="$dev" bs=1M oflag=direct status=none
	detach "$dev"
	dm_clean
	cryptsetup open --readonly --key-file "$TESTDIR/key" /dev/ram0 clref
	cmp <(device_bytes /dev/mapper/clref | head -c 4M) "$TESTDIR/plain"
	cryptsetup close clref
}

@test "losetup -c grows a LUKS mapping after its image grew, to the size cryptsetup opens" {
	# a detached header (libcryptsetup cannot find it from the mapping)
	# with the data 1 MiB into the image, in 4096-byte sectors
	img=$(image 12M)
	truncate -s 16M "$TESTDIR/hdr"
	luks_format "$img" --header "$TESTDIR/hdr" --offset 2048 --sector-size 4096
	dev=$(attach -e luks --header "$TESTDIR/hdr" -p 3 "$img")
	[ "$(blockdev --getsize64 "$dev")" -eq $((11 << 20)) ]
	truncate -s 16M "$img"
	# the header is not in the image: -c needs it again, as the key
	run "$LOSETUP" -c "$dev" -p 3 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $dev: its LUKS header is not on the device under it (a detached header is given with --header)" ]
	run "$LOSETUP" -c "$dev" --header "$img" -p 3 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $img: not the LUKS header of $dev" ]
	[ "$(blockdev --getsize64 "$dev")" -eq $((11 << 20)) ]
	"$LOSETUP" -c "$dev" --header "$TESTDIR/hdr" -p 3 3< "$TESTDIR/pass"
	[ "$(blockdev --getsize64 "$dev")" -eq $((15 << 20)) ]
	# the grown end, written through ours, is where cryptsetup reads it
	head -c 1M /dev/urandom > "$TESTDIR/end"
	dd if="$TESTDIR/end" of="$dev" bs=1M seek=14 oflag=direct status=none
	detach "$dev"
	dm_clean
	cryptsetup open --readonly --header "$TESTDIR/hdr" --key-file "$TESTDIR/key" "$img" clref
	[ "$(blockdev --getsize64 /dev/mapper/clref)" -eq $((15 << 20)) ]
	cmp <(dd if=/dev/mapper/clref bs=1M skip=14 iflag=direct status=none) "$TESTDIR/end"
	cryptsetup close clref
}

@test "cryptoloop-reencrypt --new --luks2 results, with and without --header, open with losetup and an fstab line" {
	# mount(8) runs the helper without LD_LIBRARY_PATH: libtool's wrapper
	# sets it, where it is
	for h in mount.cryptoloop umount.cryptoloop; do
		printf '#!/bin/sh\nexec %q "$@"\n' "$top_builddir/mount/$h" > "/sbin/$h"
		chmod 0755 "/sbin/$h"
	done
	reenc=$top_builddir/reencrypt/cryptoloop-reencrypt
	printf 'the LUKS2 passphrase, long enough\n' > "$TESTDIR/pnew"
	# an AES256 image with ext4 and a file, made through the dm engine
	img=$(image 20M one)
	dev=$(attach -e AES256 -p 3 "$img")
	mkfs.ext4 -q "$dev"
	mount "$dev" "$MNT"
	head -c 1M /dev/urandom > "$MNT/file"
	sum=$(sha256sum < "$MNT/file")
	umount "$MNT"
	detach "$dev"
	dm_clean
	cp "$img" "$TESTDIR/two"
	"$reenc" --progress=never -e AES256 -p 3 "$img" --new --luks2 --header "$TESTDIR/hdr" \
		--pbkdf pbkdf2 --pbkdf-force-iterations 1000 -p 4 3< "$TESTDIR/pass" 4< "$TESTDIR/pnew"
	"$reenc" --progress=never -e AES256 -p 3 "$TESTDIR/two" --new --luks2 \
		--pbkdf pbkdf2 --pbkdf-force-iterations 1000 -p 4 3< "$TESTDIR/pass" 4< "$TESTDIR/pnew"

	for args in "--header $TESTDIR/hdr $img" "$TESTDIR/two"; do
		# shellcheck disable=SC2086
		dev=$(PASSFILE=$TESTDIR/pnew attach -e luks -p 3 $args)
		mount -o ro "$dev" "$MNT"
		[ "$(sha256sum < "$MNT/file")" = "$sum" ]
		umount "$MNT"
		detach "$dev"
		dm_clean
	done

	# fstab lines; umount takes the mapping and the loop device away
	cat > "$TESTDIR/fstab" <<-EOT
	$img $MNT cryptoloop encryption=luks,header=$TESTDIR/hdr,passfd=3,noauto 0 0
	$TESTDIR/two $TESTDIR/mnt2 cryptoloop cipher=luks2,passfd=3,noauto 0 0
	EOT
	mkdir "$TESTDIR/mnt2"
	LIBMOUNT_FSTAB="$TESTDIR/fstab" mount "$MNT" 3< "$TESTDIR/pnew"
	findmnt -n -o SOURCE "$MNT" | grep -q '^/dev/mapper/cryptoloop-loop'
	[ "$(sha256sum < "$MNT/file")" = "$sum" ]
	umount "$MNT"
	dm_clean
	LIBMOUNT_FSTAB="$TESTDIR/fstab" mount "$TESTDIR/mnt2" 3< "$TESTDIR/pnew"
	[ "$(sha256sum < "$TESTDIR/mnt2/file")" = "$sum" ]
	umount "$TESTDIR/mnt2"
	dm_clean
}

# the volume key of the LUKS volume $1, in hex, as cryptsetup dumps it
volume_key_hex() {
	cryptsetup luksDump -q --dump-volume-key --volume-key-file "$TESTDIR/vk" \
		--key-file "$TESTDIR/key" "$1" >/dev/null
	od -An -v -tx1 "$TESTDIR/vk" | tr -d ' \n'
	rm -f "$TESTDIR/vk"
}

@test "a LUKS2 mapping's volume key is in no table (kernel keyring); -c unlocks the volume again" {
	img=$(image 20M)
	luks_format "$img"
	vk=$(volume_key_hex "$img")
	[ "${#vk}" -eq 128 ]
	dev=$(attach -e luks -p 3 "$img")
	size=$(blockdev --getsize64 "$dev")
	# root's table dump shows a reference to a logon key, never the key
	table=$(dmsetup table --showkeys "${dev#/dev/mapper/}")
	[[ "$table" == *" aes-xts-plain64 :64:logon:cryptsetup:"* ]]
	[[ "$table" != *"$vk"* ]]
	[[ "$table" != *"${vk:0:32}"* ]]
	# -c asks for the passphrase: nothing to read, nothing changes
	truncate -s 24M "$img"
	run "$LOSETUP" -c "$dev" < /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"no passphrase: no terminal, no password agent, and nothing on standard input; give it with --pass-fd" ]]
	[ "$(blockdev --getsize64 "$dev")" -eq "$size" ]
	printf 'not the passphrase of this volume\n' > "$TESTDIR/wrong"
	run "$LOSETUP" -c "$dev" -p 3 3< "$TESTDIR/wrong"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $dev: no LUKS keyslot opens with this passphrase" ]
	[ "$(blockdev --getsize64 "$dev")" -eq "$size" ]
	"$LOSETUP" -c "$dev" -p 3 3< "$TESTDIR/pass"
	[ "$(blockdev --getsize64 "$dev")" -eq $((size + (4 << 20))) ]
	# the key file, as at attach; the table still holds no key
	truncate -s 28M "$img"
	"$LOSETUP" -c "$dev" --cleartext-keyfile "$TESTDIR/key"
	[ "$(blockdev --getsize64 "$dev")" -eq $((size + (8 << 20))) ]
	table=$(dmsetup table --showkeys "${dev#/dev/mapper/}")
	[[ "$table" == *" aes-xts-plain64 :64:logon:cryptsetup:"* ]]
	[[ "$table" != *"${vk:0:32}"* ]]
	# the grown end, written through ours, is where cryptsetup reads it
	head -c 1M /dev/urandom > "$TESTDIR/end"
	dd if="$TESTDIR/end" of="$dev" bs=1M seek=$(( (size >> 20) + 7 )) oflag=direct status=none
	detach "$dev"
	dm_clean
	cryptsetup open --readonly --key-file "$TESTDIR/key" "$img" clref
	[ "$(blockdev --getsize64 /dev/mapper/clref)" -eq $((size + (8 << 20))) ]
	cmp <(dd if=/dev/mapper/clref bs=1M skip=$(( (size >> 20) + 7 )) iflag=direct status=none) \
		"$TESTDIR/end"
	cryptsetup close clref

	# LUKS1: libcryptsetup keeps the key in the table, as cryptsetup open
	# does, and -c reloads it from there without asking
	luks1=$(image 8M luks1)
	cryptsetup luksFormat -q --type luks1 --pbkdf-force-iterations 1000 \
		--key-file "$TESTDIR/key" "$luks1"
	dev=$(attach -e luks1 -p 3 "$luks1")
	dmsetup table --showkeys "${dev#/dev/mapper/}" | grep -q "$(volume_key_hex "$luks1")"
	size=$(blockdev --getsize64 "$dev")
	truncate -s 12M "$luks1"
	"$LOSETUP" -c "$dev" < /dev/null
	[ "$(blockdev --getsize64 "$dev")" -eq $((size + (4 << 20))) ]
	detach "$dev"
	dm_clean

	# the key options with -c are for a LUKS mapping only
	plain=$(image 4M plain)
	dev=$(attach --engine dm -e aes -p 3 "$plain")
	run "$LOSETUP" -c "$dev" -p 3 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $dev: --pass-fd with -c is for a LUKS mapping of the dm engine, which this is not" ]
	run "$LOSETUP" -c "$dev" -e aes
	[ "$status" -eq 1 ]
	[[ "$output" == "losetup: of the encryption options, -c takes only "* ]]
	detach "$dev"
	dm_clean
}

# reencrypt_interrupted IMAGE: start "cryptsetup reencrypt" on the LUKS2
# volume IMAGE (offline, on a device-mapper delay device over a loop
# device, so that it is slow enough to catch) and stop it with SIGINT once
# part of the data is under the new key; cryptsetup then finishes the
# hotzone it is in, records where it stopped and exits.
reencrypt_interrupted() {
	local img=$1 lo pid i
	lo=$("$UL_LOSETUP" -f --show "$img")
	track "$lo"
	dmsetup create clslow --table "0 $(blockdev --getsz "$lo") delay $lo 0 20"
	track_map clslow
	dmsetup mknodes clslow	# no udev in the guest
	cryptsetup reencrypt -q --key-file "$TESTDIR/key" --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 --hotzone-size 1M /dev/mapper/clslow &
	pid=$!
	# the first data segment gets a length once a hotzone is done
	for i in $(seq 300); do
		cryptsetup luksDump /dev/mapper/clslow 2>/dev/null | grep -q 'length: [0-9]' && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid" || true
	dmsetup remove clslow
	"$UL_LOSETUP" -d "$lo"
	cryptsetup luksDump "$img" | grep -q '^Requirements:.*online-reencrypt' ||
		fail "the reencryption finished before it could be interrupted"
}

@test "losetup -c refuses a LUKS2 mapping in the middle of a reencryption; the data stays as cryptsetup reads it" {
	modprobe dm_delay
	img=$(image 40M)
	luks_format "$img"
	# 24 MiB of data past the 16 MiB header, written by cryptsetup
	head -c 24M /dev/urandom > "$TESTDIR/plain"
	cryptsetup open --key-file "$TESTDIR/key" "$img" clref
	dd if="$TESTDIR/plain" of=/dev/mapper/clref bs=1M oflag=direct status=none
	cryptsetup close clref
	reencrypt_interrupted "$img"

	# the moved part under the new key, the rest under the old: a table
	# of two crypt targets, which one reloaded over the whole would break
	dev=$(attach -e luks -p 3 "$img")
	name=${dev#/dev/mapper/}
	targets=$(dmsetup table "$name" | wc -l)
	[ "$targets" -ge 2 ]
	cmp <(device_bytes "$dev") "$TESTDIR/plain"
	truncate -s 44M "$img"
	run "$LOSETUP" -c "$dev" -p 3 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $dev: not resized: a LUKS2 reencryption is in progress (the mapping's table has $targets targets); finish it first (cryptsetup reencrypt --resume-only)" ]
	[ "$(dmsetup table "$name" | wc -l)" -eq "$targets" ]
	cmp <(device_bytes "$dev") "$TESTDIR/plain"
	detach "$dev"
	dm_clean
	# and cryptsetup's own mapping of the volume reads the same (it maps
	# the grown image whole: its data segment is "whole device")
	cryptsetup open --readonly --key-file "$TESTDIR/key" "$img" clref
	cmp <(device_bytes /dev/mapper/clref | head -c 24M) "$TESTDIR/plain"
	cryptsetup close clref
}

@test "losetup -c refuses a LUKS2 mapping whose header says a reencryption is in progress, with one target" {
	# a reencryption that has not moved anything yet: one target, but
	# the header says its segments are about to move
	img=$(image 24M)
	luks_format "$img"
	cryptsetup reencrypt --init-only -q --key-file "$TESTDIR/key" --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 "$img"
	dev=$(attach -e luks -p 3 "$img")
	[ "$(dmsetup table "${dev#/dev/mapper/}" | wc -l)" -eq 1 ]
	size=$(blockdev --getsize64 "$dev")
	truncate -s 28M "$img"
	run "$LOSETUP" -c "$dev" -p 3 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $dev: not resized: its LUKS2 header says a reencryption is in progress; finish it first (cryptsetup reencrypt --resume-only)" ]
	[ "$(blockdev --getsize64 "$dev")" -eq "$size" ]
	detach "$dev"
	dm_clean
}
