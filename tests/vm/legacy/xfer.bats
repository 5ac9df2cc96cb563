#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# cryptoloop_xfer on Debian bullseye's 5.10 kernel: the stock loop.ko with
# our transfer registered.  Runs in the guest (tests/vm/legacy/run-suite).
# Every on-disk check compares with an implementation that shares no code
# with the module: openssl enc (userspace AES-CBC) per sector, and the
# kernel's dm-crypt (its own plain/plain64/lmk IV code) for whole images.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	# 1 MiB of plaintext: 2048 sectors.
	clx_setup_file 1048576
}

setup() {
	dmesg_mark "$BATS_TEST_NUMBER"
}

teardown() {
	clx_teardown "$BATS_TEST_NUMBER"
}

# An image of OFFSET bytes of a header pattern, then room for the data.
make_image() {
	local img=$1 off=$2
	head -c "$off" /dev/zero | tr '\0' '\253' >"$img"
	truncate -s $((off + 1048576)) "$img"
}

# write_plain DEV: the 1 MiB plaintext onto DEV, synchronously.
write_plain() {
	dd if="$T/plain" of="$1" bs=65536 conv=fsync status=none
}

# Sample sectors spread over the data, first and last included.
SAMPLE="0 1 9 1000 2047"

@test "module loads on top of the stock loop.ko and depends on it" {
	clx_loaded
	grep -q '^loop .*cryptoloop_xfer' /proc/modules
	[ "$(uname -r)" = "$CLVM_KVER" ]
	case "$CLVM_KVER" in 5.10.*) ;; *) false ;; esac
}

@test "LOOP_SET_FD + LOOP_SET_STATUS64, aes, 32-byte key, offset: sectors match openssl" {
	local dev img=$T/a.img off=4096 s
	make_key "$T/key"
	make_image "$img" $off
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/key" --offset $off
	run "$CLCTL" status "$dev"
	[[ "$output" == *"encrypt_type 18"* ]]
	[[ "$output" == *"crypt_name aes"* ]]
	[ "$(blockdev --getsz "$dev")" = 2048 ]
	write_plain "$dev"
	# Reading back through the device gives the plaintext (after dropping
	# the device's page cache, so it really is decrypted from the file).
	blockdev --flushbufs "$dev"
	cmp "$T/plain" <(dd if="$dev" bs=65536 status=none)
	"$CLCTL" detach "$dev"

	# The header before the offset is untouched.
	cmp <(head -c $off "$img") <(head -c $off /dev/zero | tr '\0' '\253')
	# IV = le32 of the sector counted from the start of the file.
	for s in $SAMPLE; do
		check_sector "$img" $((off / 512 + s)) "$T/plain" $s \
			plain "$((off / 512 + s))"
	done
	# Not the plaintext, and not a wrong IV: sector 8 with IV 0 differs.
	run ! check_sector "$img" 8 "$T/plain" 0 plain 0
	cp "$img" "$T/ref-aes256.img"
	cp "$T/key" "$T/ref-aes256.key"
}

@test "LOOP_CONFIGURE with 4096-byte blocks writes the same bytes (IV per 512-byte sector)" {
	local dev img=$T/b.img off=4096
	[ -e "$T/ref-aes256.img" ]
	cp "$T/ref-aes256.key" "$T/key"
	make_key "$T/unused"
	KEYHEX=$(od -An -v -tx1 "$T/key" | tr -d ' \n')
	make_image "$img" $off
	dev=$(free_loop)
	attach --on "$dev" "$img" --cipher aes --key "$T/key" --offset $off \
		--block-size 4096
	[ "$(blockdev --getss "$dev")" = 4096 ]
	write_plain "$dev"
	"$CLCTL" detach "$dev"
	cmp "$img" "$T/ref-aes256.img"
	check_sector "$img" 8 "$T/plain" 0 plain 8
	check_sector "$img" 2055 "$T/plain" 2047 plain 2055
}

@test "old LOOP_SET_STATUS (lo_name) gives the same image; 512-byte O_DIRECT writes" {
	local dev img=$T/o.img off=4096
	[ -e "$T/ref-aes256.img" ]
	cp "$T/ref-aes256.key" "$T/key"
	KEYHEX=$(od -An -v -tx1 "$T/key" | tr -d ' \n')
	make_image "$img" $off
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --old-status --cipher aes --key "$T/key" \
		--offset $off
	run "$CLCTL" status "$dev"
	[[ "$output" == *"encrypt_type 18"* ]]
	write_plain "$dev"
	# One sector at a time, bypassing the page cache: transfers of 512
	# bytes at an offset inside the page.
	head -c 512 /dev/urandom >"$T/one"
	dd if="$T/one" of="$dev" bs=512 seek=3 oflag=direct conv=notrunc status=none
	dd if="$T/one" of="$dev" bs=512 seek=13 oflag=direct conv=notrunc status=none
	"$CLCTL" detach "$dev"
	check_sector "$img" 11 "$T/one" 0 plain 11
	check_sector "$img" 21 "$T/one" 0 plain 21
	# Everything else is what LOOP_SET_STATUS64 wrote.
	cmp <(head -c $((off + 1536)) "$img") <(head -c $((off + 1536)) "$T/ref-aes256.img")
	cmp <(tail -c +$((off + 14 * 512 + 1)) "$img") \
		<(tail -c +$((off + 14 * 512 + 1)) "$T/ref-aes256.img")
}

@test "aes-cbc-plain64 and a lo_init bias past 2^32: IV bits above 32 used; plain truncates" {
	local dev img=$T/c.img bias=$((1 << 32)) s
	make_key "$T/key" 16
	make_image "$img" 0
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes-cbc-plain64 --key "$T/key" \
		--init $bias
	write_plain "$dev"
	"$CLCTL" detach "$dev"
	for s in 0 2047; do
		check_sector "$img" $s "$T/plain" $s \
			plain64 "$((bias + s))" aes-128-cbc
	done

	# The same bias with the 32-bit IV is no bias at all.
	make_image "$img" 0
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes-cbc-plain --key "$T/key" \
		--init $bias
	write_plain "$dev"
	"$CLCTL" detach "$dev"
	check_sector "$img" 2047 "$T/plain" 2047 plain 2047 aes-128-cbc
}

@test "dm-crypt aes-cbc-plain decrypts the whole image (cryptsetup --skip = --offset)" {
	local ro img=$T/ref-aes256.img
	[ -e "$img" ]
	KEYHEX=$(od -An -v -tx1 "$T/ref-aes256.key" | tr -d ' \n')
	ro=$(free_loop)
	attach --on "$ro" "$img" --ro
	dm_open clxref "$ro" aes-cbc-plain "$KEYHEX" 8 8 2048
	cmp "$T/plain" "/dev/mapper/clxref"
}

@test "bad setups are refused: unknown cipher, other modes, bad offsets, bad key sizes" {
	local dev img=$T/d.img
	make_key "$T/key"
	make_image "$img" 0
	dev=$(free_loop)
	attach --on "$dev" "$img"
	run "$CLCTL" setstatus "$dev" --cipher nosuchcipher --key "$T/key"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	run "$CLCTL" setstatus "$dev" --cipher "aes-ecb" --key "$T/key"
	[ "$status" -ne 0 ]
	run "$CLCTL" setstatus "$dev" --cipher "cbc(aes)" --key "$T/key"
	[ "$status" -ne 0 ]
	run "$CLCTL" setstatus "$dev" --cipher "aes-cbc-essiv" --key "$T/key"
	[ "$status" -ne 0 ]
	run "$CLCTL" setstatus "$dev" --cipher aes --key "$T/key" --offset 100
	[ "$status" -ne 0 ]
	run "$CLCTL" setstatus "$dev" --cipher aes --key-size 0
	[ "$status" -ne 0 ]
	run "$CLCTL" setstatus "$dev" --cipher aes --key "$T/key" --key-size 20
	[ "$status" -ne 0 ]
	run "$CLCTL" setstatus "$dev" --cipher aes --key "$T/key" \
		--offset 9223372036854775808
	[ "$status" -ne 0 ]
	# LOOP_CONFIGURE with an offset past LLONG_MAX: loop.c would fail after
	# ->init without releasing us; we refuse it in ->init.
	local dev2
	dev2=$(free_loop)
	[ "$dev2" != "$dev" ]
	run "$CLCTL" attach "$dev2" "$img" --cipher aes --key "$T/key" \
		--offset 9223372036854775808
	[ "$status" -ne 0 ]
	# None of the refusals kept a module reference.
	[ "$(mod_refs $MODNAME)" = 0 ]
}

@test "ext4 on the device: mkfs, mount, write, umount, detach, reattach, verify" {
	local dev img=$T/fs.img off=1048576 mnt=$T/mnt
	make_key "$T/key"
	head -c $off /dev/zero | tr '\0' '\253' >"$img"
	truncate -s $((off + 32 * 1048576)) "$img"
	mkdir -p "$mnt"
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/key" --offset $off
	mkfs.ext4 -q -F "$dev"
	mount "$dev" "$mnt"
	track_mount "$mnt"
	cp "$T/plain" "$mnt/data"
	mkdir "$mnt/dir"
	echo "hello from 5.10" >"$mnt/dir/note"
	umount "$mnt"
	"$CLCTL" detach "$dev"
	# Encrypted: no ext4 magic where it would be in the clear.
	run ! blkid -p -O "$off" "$img"

	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/key" --offset $off
	[ "$(blkid -o value -s TYPE "$dev")" = ext4 ]
	fsck.ext4 -n -f "$dev"
	mount "$dev" "$mnt"
	track_mount "$mnt"
	cmp "$T/plain" "$mnt/data"
	[ "$(cat "$mnt/dir/note")" = "hello from 5.10" ]
	umount "$mnt"
	"$CLCTL" detach "$dev"

	# A wrong key gives no filesystem.
	make_key "$T/wrong"
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/wrong" --offset $off
	run ! blkid -p "$dev"
}

@test "rmmod is refused while a device uses the transfer, allowed after detach" {
	local dev img=$T/e.img
	make_key "$T/key"
	make_image "$img" 0
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/key"
	[ "$(mod_refs $MODNAME)" = 1 ]
	run rmmod $MODNAME
	[ "$status" -ne 0 ]
	clx_loaded
	# The device still works after the refused unload.
	write_plain "$dev"
	cmp "$T/plain" <(dd if="$dev" bs=65536 status=none)
	# loop itself cannot go while we are registered.
	run rmmod loop
	[ "$status" -ne 0 ]
	"$CLCTL" detach "$dev"
	[ "$(mod_refs $MODNAME)" = 0 ]
	rmmod $MODNAME
	run ! clx_loaded
	insmod "$CLX_KO"
	clx_loaded
}

@test "re-keying with SET_STATUS64 and a failed SET_STATUS64 drop the old transfer" {
	local dev img=$T/f.img
	make_key "$T/key"
	make_image "$img" 0
	dev=$(free_loop)
	attach --on "$dev" "$img" --set-fd --cipher aes --key "$T/key"
	# Re-key in place: still one reference.
	"$CLCTL" setstatus "$dev" --cipher aes --key "$T/key"
	[ "$(mod_refs $MODNAME)" = 1 ]
	# A failing SET_STATUS64 (unregistered type 19) releases our transfer
	# first; loop.c keeps its ioctl hook pointer, which we clear.
	run "$CLCTL" setstatus "$dev" --type 19 --cipher aes --key "$T/key"
	[ "$status" -ne 0 ]
	[ "$(mod_refs $MODNAME)" = 0 ]
	rmmod $MODNAME
	# Had the hook survived, this ioctl would jump into freed module text.
	make_key "$T/mk" 2048
	run "$CLCTL" multikey "$dev" "$T/mk"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	insmod "$CLX_KO"
}

@test "load, attach 2 devices, write, detach, unload, twice: no leaked tfms or references" {
	local round i devs img refs0 refs
	make_key "$T/key"
	# Warm up: the first user instantiates the cbc(aes) template, whose
	# entries then stay in /proc/crypto with a reference of their own.
	make_image "$T/g0.img" 0
	i=$(free_loop)
	attach --on "$i" "$T/g0.img" --set-fd --cipher aes --key "$T/key"
	"$CLCTL" detach "$i"
	refs0=$(awk '/^name/ { n = $3 } /^refcnt/ && n == "cbc(aes)" { s += $3 } END { print s + 0 }' /proc/crypto)
	for round in 1 2; do
		clx_loaded || insmod "$CLX_KO"
		devs=()
		for i in 1 2; do
			img=$T/g$i.img
			make_image "$img" 0
			devs+=("$(free_loop)")
			attach --on "${devs[-1]}" "$img" --set-fd --cipher aes --key "$T/key"
			dd if="$T/plain" of="${devs[-1]}" bs=65536 count=2 conv=fsync status=none
		done
		[ "$(mod_refs $MODNAME)" = 2 ]
		refs=$(awk '/^name/ { n = $3 } /^refcnt/ && n == "cbc(aes)" { s += $3 } END { print s + 0 }' /proc/crypto)
		[ "$refs" -gt "$refs0" ]
		for i in "${devs[@]}"; do
			"$CLCTL" detach "$i"
		done
		[ "$(mod_refs $MODNAME)" = 0 ]
		rmmod $MODNAME
	done
	refs=$(awk '/^name/ { n = $3 } /^refcnt/ && n == "cbc(aes)" { s += $3 } END { print s + 0 }' /proc/crypto)
	[ "$refs" = "$refs0" ]
	insmod "$CLX_KO"
}

@test "lo_crypt_name is exact, as kernel cryptoloop took it: lower case, mode cbc, IV plain or plain64" {
	local dev img=$T/n.img name
	make_key "$T/key"
	make_image "$img" 0
	dev=$(free_loop)
	attach --on "$dev" "$img"
	for name in AES Aes aes-CBC aes-cbc-PLAIN64 "aes " aes-ecb aes-cbc-plain64-x; do
		run "$CLCTL" setstatus "$dev" --cipher "$name" --key "$T/key"
		[ "$status" -ne 0 ]
		[[ "$output" == *"Invalid argument"* ]]
	done
	for name in aes aes-cbc aes-cbc-plain aes-cbc-plain64 twofish-cbc; do
		"$CLCTL" setstatus "$dev" --cipher "$name" --key "$T/key"
	done
	[ "$(mod_refs $MODNAME)" = 1 ]
}
