#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The cryptoloop module in the guest, checked against dm-crypt (cryptsetup
# plain and loopaes modes) in the same kernel.  Run through
#   tests/vm/host/run tests/vm/guest/guest-kmod
# Tests run in order; the module load/unload tests come last.  The tests
# tagged "core" are what every supported kernel must pass
# (guest-kmod --filter-tags core); the newest kernel runs them all.

load helpers

setup_file() {
	modprobe dm_crypt
	modprobe loop
}

setup() {
	clvm_setup
	clvm_load
}

teardown() {
	clvm_teardown
}

# bats test_tags=core
@test "control device and initial devices exist, unbound devices have no loop/ dir" {
	[ -c /dev/cryptoloop-control ]
	[ -b /dev/cryptoloop0 ]
	[ -b /dev/cryptoloop3 ]
	[ ! -e /sys/block/cryptoloop0/loop ]
	[ "$(cat /sys/module/cryptoloop/parameters/nr_devices)" = 4 ]
}

@test "control: add, get-free, remove; removing a bound device is EBUSY" {
	run "$CLCTL" add 40
	[ "$status" -eq 0 ]
	[ "$output" = 40 ]
	[ -b /dev/cryptoloop40 ]
	run "$CLCTL" add 40
	[ "$status" -ne 0 ]
	[[ "$output" == *"File exists"* ]]
	truncate -s 1M "$T/img"
	track /dev/cryptoloop40
	"$CLCTL" attach /dev/cryptoloop40 "$T/img"
	run "$CLCTL" remove 40
	[ "$status" -ne 0 ]
	[[ "$output" == *"busy"* ]]
	"$CLCTL" detach /dev/cryptoloop40
	run "$CLCTL" remove 40
	[ "$status" -eq 0 ]
	[ ! -e /dev/cryptoloop40 ]
	run "$CLCTL" remove 40
	[ "$status" -ne 0 ]
	[[ "$output" == *"No such device"* ]]
}

# cross FORMAT-ARGS: the heart of the compatibility claim.
#   1. plaintext written through our device reads back through dm-crypt;
#   2. the same plaintext written through dm-crypt into a second image
#      gives a byte-identical image;
#   3. plaintext written through dm-crypt reads back through our device.
cross_check() {
	local keybytes=$1 cipher=$2 dmcipher=$3 offset=$4 bias=$5
	local size=$((3 << 20)) secs=$((offset / 512))

	head -c "$keybytes" /dev/urandom >"$T/key"
	head -c $((2 << 20)) /dev/urandom >"$T/plain"
	truncate -s "$size" "$T/ours" "$T/theirs"
	# Same bytes outside the data area in both, so whole images compare.
	head -c "$offset" /dev/urandom >"$T/head"
	dd if="$T/head" of="$T/ours" conv=notrunc status=none
	dd if="$T/head" of="$T/theirs" conv=notrunc status=none

	dev=$(attach "$T/ours" --cipher "$cipher" --key "$T/key" \
		--offset "$offset" --init "$bias")
	dd if="$T/plain" of="$dev" bs=256k oflag=direct status=none
	"$CLCTL" detach "$dev"

	dm_open ref --type plain --cipher "$dmcipher" \
		--key-size $((keybytes * 8)) --key-file "$T/key" \
		--offset "$secs" --skip $((secs + bias)) "$T/ours"
	cmp -n $((2 << 20)) "$T/plain" /dev/mapper/ref
	dm_close ref

	dm_open ref2 --type plain --cipher "$dmcipher" \
		--key-size $((keybytes * 8)) --key-file "$T/key" \
		--offset "$secs" --skip $((secs + bias)) "$T/theirs"
	dd if="$T/plain" of=/dev/mapper/ref2 bs=256k oflag=direct status=none
	dm_close ref2
	cmp "$T/ours" "$T/theirs"

	# Reverse direction: fresh data through dm-crypt, read through us.
	head -c $((1 << 20)) /dev/urandom >"$T/plain2"
	dm_open ref3 --type plain --cipher "$dmcipher" \
		--key-size $((keybytes * 8)) --key-file "$T/key" \
		--offset "$secs" --skip $((secs + bias)) "$T/theirs"
	dd if="$T/plain2" of=/dev/mapper/ref3 bs=64k seek=5 oflag=direct status=none
	dm_close ref3
	"$CLCTL" attach "$dev" "$T/theirs" --cipher "$cipher" --key "$T/key" \
		--offset "$offset" --init "$bias"
	cmp -n $((1 << 20)) "$T/plain2" <(tail -c +$((5 * 65536 + 1)) "$dev")
	cmp -n $((5 * 65536)) "$T/plain" "$dev"
}

# bats test_tags=core
@test "cryptoloop format (aes-cbc-plain, AES-256, 32-bit IV) = dm-crypt aes-cbc-plain, offset 0" {
	cross_check 32 aes-cbc-plain aes-cbc-plain 0 0
}

# bats test_tags=core
@test "cryptoloop format with offset: IV counts sectors from file start (cryptsetup --skip = --offset)" {
	cross_check 32 aes aes-cbc-plain 8192 0
}

# bats test_tags=core
@test "plain64 (AES-128) = dm-crypt aes-cbc-plain64, offset 4096" {
	cross_check 16 aes-cbc-plain64 aes-cbc-plain64 4096 0
}

@test "plain64 past 2^32 sectors (lo_init bias) = dm-crypt plain64 with that --skip" {
	cross_check 32 aes-cbc-plain64 aes-cbc-plain64 0 4294967300
}

@test "plain past 2^32 sectors wraps the IV like dm-crypt plain" {
	cross_check 32 aes-cbc-plain aes-cbc-plain 512 4294967300
}

@test "twofish-cbc-plain = dm-crypt twofish-cbc-plain" {
	cross_check 32 twofish-cbc-plain twofish-cbc-plain 0 0
}

# lmk_check NKEYS KEYBYTES OFFSET: loop-AES multi-key against cryptsetup's
# loopaes mode (dm-crypt lmk), both directions and image identity.
lmk_check() {
	local n=$1 kb=$2 offset=$3 secs=$(($3 / 512))

	loopaes_keyfile "$T/keys.txt" "$n"
	loopaes_keys "$T/keys.txt" "$T/keys.bin" "$kb"
	head -c $((2 << 20)) /dev/urandom >"$T/plain"
	truncate -s $((3 << 20)) "$T/ours" "$T/theirs"

	# Key 0 from SET_STATUS64 fixes cipher and key length; the multi-key
	# ioctl then installs all 64 keys (and the v3 seed).
	head -c "$kb" "$T/keys.bin" >"$T/key0"
	dev=$(attach "$T/ours" --cipher aes-cbc-plain64 --key "$T/key0" \
		--offset "$offset")
	"$CLCTL" multikey "$dev" "$T/keys.bin"
	[ "$(cat /sys/block/${dev#/dev/}/loop/multi_key)" = "$n" ]
	[ "$(cat /sys/block/${dev#/dev/}/loop/cipher)" = aes-cbc-lmk ]
	dd if="$T/plain" of="$dev" bs=256k oflag=direct status=none
	"$CLCTL" detach "$dev"

	dm_open lref --type loopaes --key-file "$T/keys.txt" \
		--key-size $((kb * 8)) --offset "$secs" --skip "$secs" "$T/ours"
	cmp -n $((2 << 20)) "$T/plain" /dev/mapper/lref
	dm_close lref

	dm_open lref2 --type loopaes --key-file "$T/keys.txt" \
		--key-size $((kb * 8)) --offset "$secs" --skip "$secs" "$T/theirs"
	dd if="$T/plain" of=/dev/mapper/lref2 bs=256k oflag=direct status=none
	# Up to here both images hold the same plaintext: identical bytes.
	cmp -n $((offset + (2 << 20))) "$T/ours" "$T/theirs"
	head -c $((512 << 10)) /dev/urandom >"$T/plain2"
	dd if="$T/plain2" of=/dev/mapper/lref2 bs=64k seek=24 oflag=direct status=none
	dm_close lref2

	"$CLCTL" attach "$dev" "$T/theirs" --cipher aes-cbc-plain64 \
		--key "$T/key0" --offset "$offset"
	"$CLCTL" multikey "$dev" "$T/keys.bin"
	cmp -n $((24 * 65536)) "$T/plain" "$dev"
	cmp -n $((512 << 10)) "$T/plain2" <(tail -c +$((24 * 65536 + 1)) "$dev")
}

@test "loop-AES multi-key v2 (64 keys, AES-128) = cryptsetup loopaes" {
	lmk_check 64 16 0
}

# bats test_tags=core
@test "loop-AES multi-key v3 (65 keys, AES-128, seeded MD5 IV) = cryptsetup loopaes, offset 4096" {
	lmk_check 65 16 4096
}

@test "loop-AES multi-key v3 with AES-256 = cryptsetup loopaes" {
	lmk_check 65 32 0
}

@test "loop-AES's own cipher number 16 with a key size in bits means AES plain64" {
	head -c 16 /dev/urandom >"$T/key"
	head -c $((1 << 20)) /dev/urandom >"$T/plain"
	truncate -s 2M "$T/img"
	dev=$(attach "$T/img" --type 16 --key "$T/key" --key-size 128)
	run "$CLCTL" status "$dev"
	[[ "$output" == *"crypt_name aes-cbc-plain64"* ]]
	[[ "$output" == *"key_size 16"* ]]
	dd if="$T/plain" of="$dev" bs=64k oflag=direct status=none
	"$CLCTL" detach "$dev"
	dm_open r16 --type plain --cipher aes-cbc-plain64 --key-size 128 \
		--key-file "$T/key" "$T/img"
	cmp -n $((1 << 20)) "$T/plain" /dev/mapper/r16
}

@test "loop-AES numbers 3 (twofish) and 7 (serpent), and a negative offset (IV from the data start)" {
	head -c 32 /dev/urandom >"$T/key"
	head -c $((1 << 20)) /dev/urandom >"$T/plain"
	truncate -s 2M "$T/img"
	dev=$(attach "$T/img" --type 3 --key "$T/key" --key-size 256)
	[ "$(cat /sys/block/${dev#/dev/}/loop/cipher)" = twofish-cbc-plain64 ]
	dd if="$T/plain" of="$dev" bs=64k oflag=direct status=none
	"$CLCTL" detach "$dev"
	dm_open tf --type plain --cipher twofish-cbc-plain64 --key-size 256 \
		--key-file "$T/key" "$T/img"
	cmp -n $((1 << 20)) "$T/plain" /dev/mapper/tf
	dm_close tf

	# -4096: data 8 sectors in, but the IV of its first sector is 0.
	"$CLCTL" attach "$dev" "$T/img" --type 7 --key "$T/key" \
		--offset -4096
	run "$CLCTL" status "$dev"
	[[ "$output" == *"offset 4096"* ]]
	[[ "$output" == *"init -8 0"* ]]
	dd if="$T/plain" of="$dev" bs=64k oflag=direct status=none
	"$CLCTL" detach "$dev"
	dm_open sp --type plain --cipher serpent-cbc-plain64 --key-size 256 \
		--key-file "$T/key" --offset 8 --skip 0 "$T/img"
	cmp -n $((1 << 20)) "$T/plain" /dev/mapper/sp
}

# bats test_tags=core
@test "ext4 on cryptoloop survives detach, reattach and remount; dm-crypt sees the same fs" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 64M "$T/img"
	dev=$(attach "$T/img" --cipher aes-cbc-plain --key "$T/key")
	mkfs.ext4 -q -F "$dev"
	mkdir "$T/mnt"
	track_mount "$T/mnt"
	mount "$dev" "$T/mnt"
	head -c $((3 << 20)) /dev/urandom >"$T/mnt/data"
	mkdir "$T/mnt/dir"
	for i in $(seq 50); do echo "file $i" >"$T/mnt/dir/f$i"; done
	(cd "$T/mnt" && find . -type f -exec sha256sum {} + | sort) >"$T/sums"
	umount "$T/mnt"
	"$CLCTL" detach "$dev"

	"$CLCTL" attach "$dev" "$T/img" --cipher aes-cbc-plain --key "$T/key"
	fsck.ext4 -n "$dev"
	mount "$dev" "$T/mnt"
	(cd "$T/mnt" && find . -type f -exec sha256sum {} + | sort) | cmp - "$T/sums"
	echo more >>"$T/mnt/dir/f1"
	umount "$T/mnt"
	"$CLCTL" detach "$dev"

	dm_open fsref --type plain --cipher aes-cbc-plain --key-size 256 \
		--key-file "$T/key" "$T/img"
	fsck.ext4 -n /dev/mapper/fsref
	mount -o ro /dev/mapper/fsref "$T/mnt"
	[ "$(cat "$T/mnt/dir/f1")" = "$(printf 'file 1\nmore')" ]
	umount "$T/mnt"
}

@test "concurrent mixed-size random writes verify through us and through dm-crypt (fio, 4 jobs)" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 32M "$T/img"
	dev=$(attach "$T/img" --cipher aes-cbc-plain64 --key "$T/key")
	# Four jobs, each on its own 8 MiB, 4-128 KiB blocks, 16 in flight:
	# many requests in our workqueue at once.  Then read back and check.
	fio_args=(--ioengine=libaio --direct=1 --iodepth=16 --numjobs=4
		--rw=randwrite --bsrange=4k-128k --size=8M --offset_increment=8M
		--verify=crc32c --verify_fatal=1 --randrepeat=1
		--group_reporting --output="$T/fio.log")
	fio --name=mix --filename="$dev" "${fio_args[@]}"
	"$CLCTL" detach "$dev"
	# The same blocks, verified through dm-crypt only.
	dm_open fv --type plain --cipher aes-cbc-plain64 --key-size 256 \
		--key-file "$T/key" "$T/img"
	fio --name=mix --filename=/dev/mapper/fv --verify_only "${fio_args[@]}"
	fails grep -q "verify: bad" "$T/fio.log"
}

@test "wrong key reads garbage, not the plaintext (the key is really used)" {
	head -c 32 /dev/urandom >"$T/key"
	head -c 32 /dev/urandom >"$T/key2"
	head -c $((1 << 20)) /dev/urandom >"$T/plain"
	truncate -s 2M "$T/img"
	dev=$(attach "$T/img" --cipher aes --key "$T/key")
	dd if="$T/plain" of="$dev" bs=64k oflag=direct status=none
	"$CLCTL" detach "$dev"
	fails cmp -s -n $((1 << 20)) "$T/plain" "$T/img"
	"$CLCTL" attach "$dev" "$T/img" --cipher aes --key "$T/key2"
	fails cmp -s -n $((1 << 20)) "$T/plain" "$dev"
}

@test "GET_STATUS64 never returns the key, also not to an unprivileged user" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 1M "$T/img"
	dev=$(attach "$T/img" --cipher aes-cbc-plain --key "$T/key")
	zero=$(printf '0%.0s' $(seq 64))
	run "$CLCTL" status "$dev"
	[ "$status" -eq 0 ]
	[[ "$output" == *"key $zero"* ]]
	[[ "$output" == *"key_size 32"* ]]
	[[ "$output" == *"encrypt_type 18"* ]]
	# Let "nobody" open the node read-only, as a udev rule might.
	mode=$(stat -c %a "$dev")
	on_teardown "chmod $mode $dev"
	chmod 0644 "$dev"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$CLCTL" status "$dev"
	[ "$status" -eq 0 ]
	[[ "$output" == *"key $zero"* ]]
	# Nor can nobody change anything with a read-only open.
	run setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$CLCTL" setstatus "$dev"
	[ "$status" -ne 0 ]
	# No key in sysfs either.
	fails grep -rqs "$(xxd -p -c 64 "$T/key")" /sys/block/${dev#/dev/}/loop/
	[ ! -e /sys/block/${dev#/dev/}/loop/key ]
}

@test "sysfs loop/ attributes match loop's names and report the setup" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 4M "$T/img"
	dev=$(attach "$T/img" --cipher aes-cbc-plain64 --key "$T/key" \
		--offset 1024 --sizelimit 1048576)
	s=/sys/block/${dev#/dev/}/loop
	[ "$(cat $s/backing_file)" = "$T/img" ]
	[ "$(cat $s/offset)" = 1024 ]
	[ "$(cat $s/sizelimit)" = 1048576 ]
	[ "$(cat $s/autoclear)" = 0 ]
	[ "$(cat $s/partscan)" = 0 ]
	[ "$(cat $s/dio)" = 0 ]
	[ "$(cat $s/cipher)" = aes-cbc-plain64 ]
	[ "$(cat $s/key_size)" = 32 ]
	[ "$(cat $s/multi_key)" = 0 ]
	[ "$(blockdev --getsize64 "$dev")" = 1048576 ]
	"$CLCTL" detach "$dev"
	[ ! -e "$s" ]
}

@test "bad setups are refused: unknown cipher, bad key size, odd offset, self-loop, busy" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 1M "$T/img"
	dev=$(free_dev)
	track "$dev"
	run "$CLCTL" attach "$dev" "$T/img" --cipher nosuchcipher --key "$T/key"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	run "$CLCTL" attach "$dev" "$T/img" --cipher aes-xts-plain --key "$T/key"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	run "$CLCTL" attach "$dev" "$T/img" --cipher aes --key "$T/key" --key-size 7
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	run "$CLCTL" attach "$dev" "$T/img" --cipher aes --key "$T/key" --offset 100
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	run "$CLCTL" attach "$dev" "$T/img" --type 5 --key "$T/key"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	run "$CLCTL" attach "$dev" "$dev"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	[ ! -e /sys/block/${dev#/dev/}/loop ]
	"$CLCTL" attach "$dev" "$T/img" --cipher aes --key "$T/key"
	run "$CLCTL" attach "$dev" "$T/img" --cipher aes --key "$T/key"
	[ "$status" -ne 0 ]
	[[ "$output" == *"busy"* ]]
	# Multi-key needs a 16-byte-block cipher: twofish is one, des3 not.
	head -c $((64 * 32)) /dev/urandom >"$T/mk"
	"$CLCTL" detach "$dev"
	head -c 24 /dev/urandom >"$T/k24"
	"$CLCTL" attach "$dev" "$T/img" --cipher des3_ede --key "$T/k24"
	run "$CLCTL" multikey "$dev" "$T/mk"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
}

@test "LOOP_SET_FD + LOOP_SET_STATUS64, old LOOP_SET_STATUS, SET_CAPACITY, SET_BLOCK_SIZE keep the format" {
	head -c 32 /dev/urandom >"$T/key"
	head -c $((2 << 20)) /dev/urandom >"$T/plain"
	truncate -s 1M "$T/img"
	dev=$(attach "$T/img" --set-fd --cipher aes-cbc-plain --key "$T/key")
	[ "$(blockdev --getsize64 "$dev")" = 1048576 ]
	truncate -s 3M "$T/img"
	"$CLCTL" capacity "$dev"
	[ "$(blockdev --getsize64 "$dev")" = 3145728 ]
	# 4096-byte logical blocks: the IV still counts 512-byte sectors.
	"$CLCTL" blocksize "$dev" 4096
	[ "$(blockdev --getss "$dev")" = 4096 ]
	dd if="$T/plain" of="$dev" bs=1M oflag=direct status=none
	"$CLCTL" detach "$dev"
	"$CLCTL" attach "$dev" "$T/img" --set-fd --old-status \
		--cipher aes-cbc-plain --key "$T/key"
	run "$CLCTL" status "$dev"
	[[ "$output" == *"crypt_name aes-cbc-plain"* ]]
	cmp -n $((2 << 20)) "$T/plain" "$dev"
	"$CLCTL" detach "$dev"
	dm_open bs --type plain --cipher aes-cbc-plain --key-size 256 \
		--key-file "$T/key" "$T/img"
	cmp -n $((2 << 20)) "$T/plain" /dev/mapper/bs
}

@test "direct I/O on the backing file gives the same image" {
	head -c 32 /dev/urandom >"$T/key"
	head -c $((2 << 20)) /dev/urandom >"$T/plain"
	# tmpfs has no O_DIRECT: use an ext4 image on the kernel loop driver.
	truncate -s 64M "$T/fs.img"
	mkfs.ext4 -q -F "$T/fs.img"
	mkdir "$T/fs"
	track_mount "$T/fs"
	mount -o loop "$T/fs.img" "$T/fs"
	truncate -s 4M "$T/fs/img"
	dev=$(attach "$T/fs/img" --cipher aes-cbc-plain --key "$T/key" --dio)
	[ "$(cat /sys/block/${dev#/dev/}/loop/dio)" = 1 ]
	dd if="$T/plain" of="$dev" bs=256k oflag=direct status=none
	cmp -n $((2 << 20)) "$T/plain" "$dev"
	"$CLCTL" dio "$dev" 0
	[ "$(cat /sys/block/${dev#/dev/}/loop/dio)" = 0 ]
	"$CLCTL" detach "$dev"
	dm_open dio --type plain --cipher aes-cbc-plain --key-size 256 \
		--key-file "$T/key" "$T/fs/img"
	cmp -n $((2 << 20)) "$T/plain" /dev/mapper/dio
}

# swap_pin DEV 0|1: write DEV's loop/swap attribute; fails as the write does.
swap_pin() {
	echo "$2" >"/sys/block/${1#/dev/}/loop/swap"
}

swap_state() {
	cat "/sys/block/${1#/dev/}/loop/swap"
}

# bats test_tags=core
@test "loop/swap=1 pins a fragmented file (no write, truncate, punch, unlink), I/O lands in its blocks, detach unpins" {
	local mib=$((1 << 20))
	head -c 32 /dev/urandom >"$T/key"
	head -c $((3 * mib)) /dev/urandom >"$T/plain"
	# tmpfs has no block map: an ext4 image on the kernel loop driver
	truncate -s 24M "$T/fs.img"
	mkfs.ext4 -q -F -b 4096 "$T/fs.img"
	mkdir "$T/fs"
	track_mount "$T/fs"
	mount -o loop "$T/fs.img" "$T/fs"
	# Fill it, then free every other 64 KiB (the zero ones, punched by
	# fallocate -d), so the file we pin lies in many pieces and the map
	# has to get each right.
	"$PY" - "$T/fs/fill" <<'PY' || true
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(fd, b'\1' * 65536 + bytes(65536))
except OSError:
    pass
os.fsync(fd)
PY
	fallocate -d "$T/fs/fill"
	dd if=/dev/zero of="$T/fs/img" bs=1M count=4 conv=fsync status=none
	[ "$(filefrag "$T/fs/img" | awk '{ print $2 }')" -gt 4 ]

	# Holes and unwritten (fallocated) extents have no fixed place.
	truncate -s 4M "$T/fs/sparse"
	fallocate -l 4M "$T/fs/unwritten"
	for f in sparse unwritten; do
		d=$(attach "$T/fs/$f" --cipher aes-cbc-plain64 --key "$T/key")
		fails swap_pin "$d" 1
		[ "$(swap_state "$d")" = 0 ]
		echo x >>"$T/fs/$f"
		"$CLCTL" detach "$d"
	done

	dev=$(attach "$T/fs/img" --cipher aes-cbc-plain64 --key "$T/key")
	[ "$(swap_state "$dev")" = 0 ]
	swap_pin "$dev" 1
	[ "$(swap_state "$dev")" = 1 ]
	dd if="$T/plain" of="$dev" bs=192k oflag=direct status=none
	dd if="$dev" bs=192k count=16 iflag=direct status=none | cmp - "$T/plain"

	# Pinned as a swap file is: nobody changes it under the map.
	fails dd if=/dev/zero of="$T/fs/img" bs=4k count=1 conv=notrunc status=none
	fails truncate -s 1M "$T/fs/img"
	fails fallocate -p -o 0 -l 65536 "$T/fs/img"
	fails rm "$T/fs/img"
	[ "$(stat -c %s "$T/fs/img")" = $((4 * mib)) ]
	# and discard on the device, which would punch it, does nothing
	used=$(du -k "$T/fs/img" | cut -f1)
	blkdiscard "$dev" 2>/dev/null || true
	[ "$(du -k "$T/fs/img" | cut -f1)" = "$used" ]
	dd if="$dev" bs=192k count=16 iflag=direct status=none | cmp - "$T/plain"
	# A second device cannot pin it too.
	dev2=$(attach "$T/fs/img" --cipher aes-cbc-plain64 --key "$T/key")
	fails swap_pin "$dev2" 1
	"$CLCTL" detach "$dev2"

	# Off: the file is writable again, and I/O goes through it.
	swap_pin "$dev" 0
	dd if=/dev/zero of="$T/fs/img" bs=4k count=1 seek=1000 conv=notrunc status=none
	swap_pin "$dev" 1
	fails truncate -s 1M "$T/fs/img"
	"$CLCTL" detach "$dev"

	# Through dm-crypt (and the file's page cache, which the map went
	# around) the file holds what was written via the map; and detach
	# unpinned it.
	dm_open pin --type plain --cipher aes-cbc-plain64 --key-size 256 \
		--key-file "$T/key" "$T/fs/img"
	cmp -n $((3 * mib)) "$T/plain" /dev/mapper/pin
	dm_close pin
	truncate -s 1M "$T/fs/img"
	rm "$T/fs/img"
}

# verity_enable FILE: FS_IOC_ENABLE_VERITY, SHA-256 over 4 KiB blocks
# (Debian 12's f2fs_io set_verity uses an outdated ioctl number).
verity_enable() {
	"$PY" - "$1" <<'PY'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
# struct fsverity_enable_arg: version 1, SHA-256, 4096-byte blocks, no salt
fcntl.ioctl(fd, 0x40806685, struct.pack('=IIIIQIIQ88x', 1, 1, 4096, 0, 0, 0, 0, 0))
PY
}

# fscrypt_dir DIR: give the empty DIR an fscrypt v2 policy (AES-256-XTS
# contents) with a random key added to its filesystem.
fscrypt_dir() {
	"$PY" - "$1" <<'PY'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
# FS_IOC_ADD_ENCRYPTION_KEY: key specifier of type identifier, 64 raw bytes
arg = bytearray(struct.pack('=II32sII32x', 2, 0, b'', 64, 0) + os.urandom(64))
fcntl.ioctl(fd, 0xC0506617, arg)
ident = bytes(arg[8:24])
# FS_IOC_SET_ENCRYPTION_POLICY with a v2 policy
fcntl.ioctl(fd, 0x800C6613, struct.pack('=BBBB4x16s', 2, 1, 4, 0, ident))
PY
}

# phys FILE: FILE's extents on the device (logical:physical:length), as
# FIEMAP reports them, one per line.
phys() {
	filefrag -v "$1" | awk '$1 ~ /^[0-9]+:$/ { print $2 $4 $6 }'
}

@test "loop/swap=1 on f2fs: its swap hook pins the file, GC cleans the segments it shared and leaves it in place; detach unpins; fs-verity and fscrypt files refused" {
	modprobe f2fs
	local mib=$((1 << 20))
	head -c 32 /dev/urandom >"$T/key"
	head -c $((4 * mib)) /dev/urandom >"$T/plain"
	truncate -s 128M "$T/f2fs.img"
	mkfs.f2fs -q -f -O extra_attr,verity,encrypt "$T/f2fs.img"
	mkdir "$T/fs"
	track_mount "$T/fs"
	mount -o loop "$T/f2fs.img" "$T/fs"
	# The file interleaved with another one in f2fs's segments, so that
	# GC of those segments has the other file's blocks to move too, and
	# then the current log moved on past both.
	for _ in $(seq 16); do
		dd if=/dev/zero of="$T/fs/img" bs=256k count=1 oflag=append \
			conv=notrunc,fsync status=none
		dd if=/dev/urandom of="$T/fs/other" bs=256k count=1 oflag=append \
			conv=notrunc,fsync status=none
	done
	dd if=/dev/zero of="$T/fs/tail" bs=1M count=8 conv=fsync status=none

	dev=$(attach "$T/fs/img" --cipher aes-cbc-plain64 --key "$T/key")
	# As it pins the file, f2fs moves it to whole sections of its own
	# (warning that it was not aligned); the log moves on again.
	swap_pin "$dev" 1
	[ "$(swap_state "$dev")" = 1 ]
	dd if=/dev/zero of="$T/fs/tail2" bs=1M count=8 conv=fsync status=none
	run f2fs_io pinfile get "$T/fs/img"
	[[ "$output" == "get_pin_file: pinned "* ]]
	placed=$(phys "$T/fs/img")
	others=$(phys "$T/fs/other")
	"$CLVM_BIN/f2fs-gc" "$T/fs/img" "$T/fs/other"
	# GC cleaned the sections the file shared (the other file moved; an
	# unpinned S_SWAPFILE file there keeps GC from cleaning them at all),
	# and left the pinned file where the map says it is.
	[ "$(phys "$T/fs/other")" != "$others" ]
	[ "$(phys "$T/fs/img")" = "$placed" ]

	dd if="$T/plain" of="$dev" bs=256k oflag=direct status=none
	dd if="$dev" bs=256k iflag=direct status=none | cmp - "$T/plain"
	"$CLCTL" detach "$dev"
	# Where the filesystem finds the file is where the map wrote it.
	echo 3 >/proc/sys/vm/drop_caches
	dm_open f2p --type plain --cipher aes-cbc-plain64 --key-size 256 \
		--key-file "$T/key" "$T/fs/img"
	cmp "$T/plain" /dev/mapper/f2p
	dm_close f2p
	# Given back: unpinned and writable.
	run f2fs_io pinfile get "$T/fs/img"
	[[ "$output" == "get_pin_file: un-pinned "* ]]
	dd if=/dev/zero of="$T/fs/img" bs=4k count=1 conv=notrunc status=none

	# A file under fs-verity is refused (writes around f2fs would not
	# match its hashes), and so is one encrypted by fscrypt (its blocks
	# hold fscrypt's ciphertext).
	head -c $mib /dev/urandom >"$T/fs/sealed"
	verity_enable "$T/fs/sealed"
	dev=$(attach "$T/fs/sealed" --ro --cipher aes-cbc-plain64 --key "$T/key")
	fails swap_pin "$dev" 1
	dmesg | tail -n 5 | grep -q "swap: .*sealed is protected by fs-verity"
	mkdir "$T/fs/secret"
	fscrypt_dir "$T/fs/secret"
	dd if=/dev/zero of="$T/fs/secret/img" bs=1M count=1 conv=fsync status=none
	dev=$(attach "$T/fs/secret/img" --cipher aes-cbc-plain64 --key "$T/key")
	fails swap_pin "$dev" 1
	dmesg | tail -n 5 | grep -q "swap: .*img is encrypted (fscrypt)"
}

@test "block-device backing: cryptoloop on a kernel loop device = dm-crypt on it" {
	head -c 32 /dev/urandom >"$T/key"
	head -c $((2 << 20)) /dev/urandom >"$T/plain"
	truncate -s 4M "$T/img"
	lodev=$(losetup --show -f "$T/img")
	on_teardown "losetup -d $lodev"
	dev=$(attach "$lodev" --cipher aes-cbc-plain64 --key "$T/key")
	dd if="$T/plain" of="$dev" bs=256k oflag=direct status=none
	"$CLCTL" detach "$dev"
	dm_open bd --type plain --cipher aes-cbc-plain64 --key-size 256 \
		--key-file "$T/key" "$lodev"
	cmp -n $((2 << 20)) "$T/plain" /dev/mapper/bd
	dm_close bd
	# Discard reaches the block device (and the kernel loop punches the
	# file under it).
	"$CLCTL" attach "$dev" "$lodev" --cipher aes-cbc-plain64 --key "$T/key"
	[ "$(du -k "$T/img" | cut -f1)" -ge 2048 ]
	blkdiscard "$dev"
	[ "$(du -k "$T/img" | cut -f1)" -lt 512 ]
}

@test "LO_FLAGS_PARTSCAN: partitions on an encrypted image appear and go with the device" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 8M "$T/img"
	dev=$(attach "$T/img" --cipher aes-cbc-plain64 --key "$T/key")
	# An MBR with two Linux partitions: 2 MiB at 1 MiB, the rest after.
	"$PY" - "$dev" <<'PY'
import struct, sys
def entry(start, count):
    return struct.pack('<B3sB3sII', 0, b'\0\0\0', 0x83, b'\0\0\0', start, count)
mbr = bytearray(512)
mbr[446:478] = entry(2048, 4096) + entry(6144, 10240)
mbr[510:512] = b'\x55\xaa'
with open(sys.argv[1], 'r+b') as f:
    f.write(mbr)
PY
	"$CLCTL" detach "$dev"
	# The table is encrypted: no MBR signature in the plain image.
	[ "$(od -An -tx1 -j510 -N2 "$T/img" | tr -d ' ')" != 55aa ]
	"$CLCTL" attach "$dev" "$T/img" --cipher aes-cbc-plain64 \
		--key "$T/key" --partscan
	[ "$(cat /sys/block/${dev#/dev/}/loop/partscan)" = 1 ]
	[ -b "${dev}p1" ]
	[ -b "${dev}p2" ]
	[ "$(blockdev --getsize64 "${dev}p1")" = $((2 << 20)) ]
	"$CLCTL" detach "$dev"
	[ ! -e "${dev}p1" ]
}

@test "discard punches holes in the backing file" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 16M "$T/img"
	dev=$(attach "$T/img" --cipher aes --key "$T/key")
	dd if=/dev/zero of="$dev" bs=1M count=16 oflag=direct status=none
	before=$(du -k "$T/img" | cut -f1)
	[ "$before" -ge 16000 ]
	blkdiscard "$dev"
	after=$(du -k "$T/img" | cut -f1)
	[ "$after" -lt 1024 ]
}

@test "autoclear detaches on last close" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 1M "$T/img"
	dev=$(free_dev)
	track "$dev"
	exec 7<"$dev"
	"$CLCTL" attach "$dev" "$T/img" --cipher aes --key "$T/key" --autoclear
	[ "$(cat /sys/block/${dev#/dev/}/loop/autoclear)" = 1 ]
	exec 7<&-
	[ ! -e /sys/block/${dev#/dev/}/loop ]
}

@test "a full backing filesystem gives EIO, and what was written stays intact" {
	head -c 32 /dev/urandom >"$T/key"
	mkdir "$T/small"
	track_mount "$T/small"
	mount -t tmpfs -o size=6M tmpfs "$T/small"
	truncate -s 32M "$T/small/img"
	head -c $((4 << 20)) /dev/urandom >"$T/plain"
	dev=$(attach "$T/small/img" --cipher aes-cbc-plain --key "$T/key")
	dd if="$T/plain" of="$dev" bs=1M oflag=direct status=none
	run dd if=/dev/urandom of="$dev" bs=1M seek=4 count=8 oflag=direct status=none
	[ "$status" -ne 0 ]
	[[ "$output" == *"Input/output error"* ]]
	echo 3 >/proc/sys/vm/drop_caches
	cmp -n $((4 << 20)) "$T/plain" "$dev"
}

# bats test_tags=core
@test "100 attach/detach cycles leak no devices, crypto transforms or memory" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 1M "$T/img"
	dev=$(free_dev)
	track "$dev"
	ndev=$(ls /sys/block | grep -c cryptoloop)
	sync; echo 3 >/proc/sys/vm/drop_caches
	# Warm up slab caches so the first allocations do not count as leaks.
	for i in 1 2 3; do
		"$CLCTL" attach "$dev" "$T/img" --cipher aes --key "$T/key"
		"$CLCTL" detach "$dev"
	done
	unrecl0=$(awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo)
	used0=$(mem_used_kb)
	refs0=$(crypto_refs)
	# 100 full attach/detach cycles in one process; every tenth also
	# writes and reads back through the device, so bounce pages and
	# requests are used too.
	"$CLCTL" cycle "$dev" "$T/img" 100 --cipher aes-cbc-plain --key "$T/key"
	for i in $(seq 10); do
		"$CLCTL" attach "$dev" "$T/img" --cipher aes-cbc-plain64 --key "$T/key"
		head -c $((64 * 32 + 32)) /dev/urandom >"$T/mk"
		"$CLCTL" multikey "$dev" "$T/mk"
		"$CLCTL" detach "$dev"
	done
	sync; echo 3 >/proc/sys/vm/drop_caches
	unrecl1=$(awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo)
	used1=$(mem_used_kb)
	refs1=$(crypto_refs)
	echo "# SUnreclaim $unrecl0 -> $unrecl1 kB, non-cache use $used0 -> $used1 kB, crypto refs $refs0 -> $refs1" >&3
	[ "$(ls /sys/block | grep -c cryptoloop)" = "$ndev" ]
	[ ! -e /sys/block/${dev#/dev/}/loop ]
	# Every transform we allocated has been freed again.
	[ "$refs1" = "$refs0" ]
	# Measured noise is under 110 kB; 100 leaked cipher contexts (struct clo_crypt) would be ~400 kB.
	[ $((unrecl1 - unrecl0)) -lt 300 ]
	# Each bind takes a 64-page bounce pool: leaking it would be 25 MiB.
	[ $((used1 - used0)) -lt 8192 ]
	[ "$(cat /sys/module/cryptoloop/refcnt)" = 0 ]
}

# bats test_tags=core
@test "unload is refused while a device is attached, clean after detach; 20 load/unload cycles" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 1M "$T/img"
	dev=$(attach "$T/img" --cipher aes --key "$T/key")
	[ "$(cat /sys/module/cryptoloop/refcnt)" = 1 ]
	run rmmod cryptoloop
	[ "$status" -ne 0 ]
	[[ "$output" == *"in use"* ]]
	[ -e /sys/module/cryptoloop ]
	[ -e /sys/block/${dev#/dev/}/loop ]
	"$CLCTL" detach "$dev"
	rmmod cryptoloop
	[ ! -e /sys/module/cryptoloop ]
	[ ! -e /dev/cryptoloop-control ]
	for i in $(seq 20); do
		insmod "$CLVM_KO" nr_devices=2
		[ -b /dev/cryptoloop1 ]
		"$CLCTL" attach /dev/cryptoloop1 "$T/img" --cipher aes --key "$T/key"
		"$CLCTL" detach /dev/cryptoloop1
		rmmod cryptoloop
	done
	fails grep -q cryptoloop /proc/devices
	insmod "$CLVM_KO"
	# Nothing in the kernel log that looks like a bug.
	[ -z "$(dmesg | grep -E "BUG|WARNING|Oops|general protection|refcount_t")" ]
}

# bats test_tags=core
@test "lo_crypt_name is exact, as kernel cryptoloop took it: lower case, mode cbc, IV plain or plain64" {
	head -c 32 /dev/urandom >"$T/key"
	truncate -s 1M "$T/img"
	dev=$(free_dev)
	track "$dev"
	for name in AES Aes aes-CBC aes-cbc-PLAIN64 "aes " aes-ecb aes-cbc-plain64-x; do
		run "$CLCTL" attach "$dev" "$T/img" --cipher "$name" --key "$T/key"
		[ "$status" -ne 0 ]
		[[ "$output" == *"Invalid argument"* ]]
		[ ! -e "/sys/block/${dev#/dev/}/loop" ]
	done
	for name in aes:aes-cbc-plain aes-cbc:aes-cbc-plain \
		aes-cbc-plain:aes-cbc-plain aes-cbc-plain64:aes-cbc-plain64 \
		twofish-cbc:twofish-cbc-plain; do
		"$CLCTL" attach "$dev" "$T/img" --cipher "${name%%:*}" --key "$T/key"
		[ "$(cat "/sys/block/${dev#/dev/}/loop/cipher")" = "${name#*:}" ]
		"$CLCTL" detach "$dev"
	done
}

# unbound OP ARGS...: clctl OP on an unbound device fails with ENXIO.
unbound() {
	run "$CLCTL" "$@"
	[ "$status" -ne 0 ]
	[[ "$output" == *"No such device or address"* ]]
}

# bats test_tags=core
@test "every ioctl that needs a bound device answers ENXIO on an unbound one" {
	head -c 32 /dev/urandom >"$T/key"
	head -c $((64 * 32)) /dev/urandom >"$T/mk"
	dev=$(free_dev)
	unbound status "$dev"
	unbound detach "$dev"
	unbound capacity "$dev"
	unbound dio "$dev" 0
	unbound blocksize "$dev" 4096
	unbound multikey "$dev" "$T/mk"
	unbound setstatus "$dev" --cipher aes --key "$T/key"
	unbound setstatus "$dev" --cipher aes --key "$T/key" --old-status
	[ ! -e "/sys/block/${dev#/dev/}/loop" ]
}
