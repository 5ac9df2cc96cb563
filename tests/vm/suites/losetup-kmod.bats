#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The project's losetup with --engine kmod, end to end in the guest, checked
# against independent tools in the same kernel (cryptsetup/dm-crypt,
# aespipe).  Needs an installed build:
#   make install DESTDIR=/var/tmp/clk-inst     # not /tmp: the guest has its own
#   tests/vm/host/run tests/vm/guest/guest-kmod --prefix /var/tmp/clk-inst/usr/local losetup-kmod.bats

load helpers

setup_file() {
	modprobe dm_crypt
	modprobe loop
}

setup() {
	[ -n "${CLVM_PREFIX:-}" ] || {
		echo "CLVM_PREFIX not set: run through guest-kmod --prefix" >&2
		return 1
	}
	export LD_LIBRARY_PATH=$CLVM_PREFIX/lib/cryptoloop
	L=$CLVM_PREFIX/sbin/losetup
	LOSETUP=$L ATTACH_ENGINE=kmod
	clvm_setup
	clvm_load
}

teardown() {
	clvm_teardown
}

# lo_attach VAR LOSETUP-ARGS...: attach $T/img through losetup's kmod
# engine (fd 3 is the passphrase file $T/pass); attach tracks it.
lo_attach() {
	local _var=$1 _dev
	shift
	_dev=$(ATTACH_WITH=losetup attach "$@" "$T/img") || return 1
	[[ "$_dev" == /dev/cryptoloop* ]] || return 1
	printf -v "$_var" '%s' "$_dev"
}

# fs_roundtrip DEV REATTACH-ARGS...: mkfs, write, umount, detach,
# reattach with the same arguments, fsck, mount, verify.
fs_roundtrip() {
	local dev=$1
	shift
	mkfs.ext4 -q -F "$dev"
	mkdir -p "$T/mnt"
	track_mount "$T/mnt"
	mount "$dev" "$T/mnt"
	head -c $((1 << 20)) /dev/urandom >"$T/mnt/data"
	for i in $(seq 20); do echo "line $i" >"$T/mnt/f$i"; done
	(cd "$T/mnt" && sha256sum data f* | sort) >"$T/sums"
	umount "$T/mnt"
	"$L" -d "$dev"
	lo_attach dev "$@"
	fsck.ext4 -n "$dev"
	mount "$dev" "$T/mnt"
	(cd "$T/mnt" && sha256sum data f* | sort) | cmp - "$T/sums"
	umount "$T/mnt"
	"$L" -d "$dev"
}

# bats test_tags=core
@test "losetup -e aes (util-linux 2.12 cryptoloop): ext4 survives reattach; cryptsetup plain opens the image" {
	pass="a passphrase under 32"
	echo "$pass" >"$T/pass"
	truncate -s 48M "$T/img"
	lo_attach dev -e aes -p 3
	[ "$(cat /sys/block/${dev#/dev/}/loop/cipher)" = aes-cbc-plain ]
	"$L" -l -n -O ENGINE "$dev" | grep -qx " *kmod *"
	fs_roundtrip "$dev" -e aes -p 3
	# util-linux 2.12's key: the passphrase, NUL padded to 32 bytes.
	{ printf '%s' "$pass"; head -c $((32 - ${#pass})) /dev/zero; } >"$T/key"
	dm_open lk1 --type plain --cipher aes-cbc-plain --key-size 256 \
		--key-file "$T/key" "$T/img"
	fsck.ext4 -n /dev/mapper/lk1
	mount -o ro /dev/mapper/lk1 "$T/mnt"
	(cd "$T/mnt" && sha256sum data f* | sort) | cmp - "$T/sums"
	umount "$T/mnt"
}

@test "losetup -e AES128 (loop-AES, SHA-256 key) with an offset: ext4 survives; aespipe decrypts the image" {
	echo "loop-AES passphrase of twenty and more" >"$T/pass"
	truncate -s 48M "$T/img"
	lo_attach dev -e AES128 -p 3 -o 1048576
	[ "$(cat /sys/block/${dev#/dev/}/loop/offset)" = 1048576 ]
	fs_roundtrip "$dev" -e AES128 -p 3 -o 1048576
	# aespipe's IV counts from its input: -O 2048 = the 1 MiB offset.
	tail -c +$((1048576 + 1)) "$T/img" | head -c $((4 << 20)) |
		aespipe -d -e aes128 -p 3 -O 2048 3<"$T/pass" >"$T/plain.aespipe"
	lo_attach dev -e AES128 -p 3 -o 1048576
	cmp "$T/plain.aespipe" <(head -c $((4 << 20)) "$dev")
}

# multikey_vs_cryptsetup LINES BITS
multikey_vs_cryptsetup() {
	loopaes_keyfile "$T/keys" "$1"
	: >"$T/pass"
	truncate -s 8M "$T/img"
	head -c $((4 << 20)) /dev/urandom >"$T/data"
	lo_attach dev -e "AES$2" --cleartext-keyfile "$T/keys"
	[ "$(cat /sys/block/${dev#/dev/}/loop/multi_key)" = "$1" ]
	dd if="$T/data" of="$dev" bs=1M oflag=direct status=none
	"$L" -d "$dev"
	dm_open lk2 --type loopaes --key-file "$T/keys" --key-size "$2" "$T/img"
	cmp -n $((4 << 20)) "$T/data" /dev/mapper/lk2
}

@test "losetup multi-key v3 (65-line key file, AES128) = cryptsetup loopaes" {
	multikey_vs_cryptsetup 65 128
}

@test "losetup multi-key v2 (64-line key file, AES256) = cryptsetup loopaes" {
	multikey_vs_cryptsetup 64 256
}

# bats test_tags=core
@test "losetup -e AES128 -K (gpg-encrypted 65-line key file) = cryptsetup loopaes, both ways" {
	loopaes_keyfile "$T/keys" 65
	mkdir -m 700 "$T/gnupg"
	on_teardown "gpgconf --homedir '$T/gnupg' --kill all"
	echo "gpg passphrase for the key file" >"$T/pass"
	gpg --homedir "$T/gnupg" --batch --no-options --quiet \
		--pinentry-mode loopback --passphrase-fd 3 --symmetric \
		--cipher-algo AES256 -a -o "$T/keys.gpg" "$T/keys" 3<"$T/pass"
	truncate -s 8M "$T/img"
	head -c $((4 << 20)) /dev/urandom >"$T/data"
	lo_attach dev -e AES128 -K "$T/keys.gpg" -G "$T/gnupg" -p 3
	[ "$(cat /sys/block/${dev#/dev/}/loop/multi_key)" = 65 ]
	dd if="$T/data" of="$dev" bs=1M oflag=direct status=none
	"$L" -d "$dev"
	dm_open lk3 --type loopaes --key-file "$T/keys" --key-size 128 "$T/img"
	cmp -n $((4 << 20)) "$T/data" /dev/mapper/lk3
	# And back: what dm-crypt writes, losetup's device reads.
	head -c $((2 << 20)) /dev/urandom >"$T/data2"
	dd if="$T/data2" of=/dev/mapper/lk3 bs=1M seek=4 oflag=direct status=none
	dm_close lk3
	lo_attach dev -e AES128 -K "$T/keys.gpg" -G "$T/gnupg" -p 3
	cmp -n $((2 << 20)) "$T/data2" <(tail -c +$((4 * 1048576 + 1)) "$dev")
	cmp -n $((4 << 20)) "$T/data" "$dev"
}

@test "losetup picks kmod by itself, lists it with the cipher, and -d leaves nothing bound" {
	echo "a passphrase under 32" >"$T/pass"
	truncate -s 8M "$T/img"
	dev=$("$L" -e aes -p 3 -o 4096 -f --show "$T/img" 3<"$T/pass")
	track "$dev"
	[[ "$dev" == /dev/cryptoloop* ]]
	[ "$("$L" -l -n -O ENGINE "$dev" | tr -d ' ')" = kmod ]
	"$L" -a | grep -q "^$dev: .*($T/img), offset 4096, encryption aes"
	"$L" -d "$dev"
	[ ! -e "/sys/block/${dev#/dev/}/loop" ]
}

@test "losetup -e AES128 -H random on kmod: losetup.8's swap recipe, no passphrase, 65 keys, new keys each attach" {
	truncate -s 64M "$T/img"
	dev=$(free_dev)
	track "$dev"
	# no passphrase source at all, and no terminal: nothing to read
	setsid -w "$L" --engine kmod -e AES128 -H random "$dev" "$T/img" </dev/null
	[ "$(cat "/sys/block/${dev#/dev/}/loop/multi_key")" = 65 ]
	mkswap "$dev"
	swapon "$dev"
	grep -q "^$dev " /proc/swaps
	swapoff "$dev"
	head -c 1M /dev/urandom >"$T/data"
	dd if="$T/data" of="$dev" bs=1M oflag=direct status=none
	cmp "$T/data" <(dd if="$dev" bs=1M count=1 iflag=direct status=none)
	"$L" -d "$dev"
	setsid -w "$L" --engine kmod -e AES128 -H random "$dev" "$T/img" </dev/null
	run cmp -s "$T/data" <(dd if="$dev" bs=1M count=1 iflag=direct status=none)
	[ "$status" -eq 1 ]
}

@test "losetup --swap: losetup.8's swap-file recipe pins the file; a sparse one is refused and not left attached" {
	truncate -s 64M "$T/fs.img"
	mkfs.ext4 -q -F "$T/fs.img"
	mkdir "$T/fs"
	track_mount "$T/fs"
	mount -o loop "$T/fs.img" "$T/fs"
	dd if=/dev/zero of="$T/fs/swap.img" bs=1M count=16 status=none
	dev=$(setsid -w "$L" -f --show --engine kmod -e AES128 -H random --swap \
		"$T/fs/swap.img" </dev/null)
	track "$dev"
	[ "$(cat "/sys/block/${dev#/dev/}/loop/swap")" = 1 ]
	fails truncate -s 1M "$T/fs/swap.img"
	mkswap "$dev"
	swapon "$dev"
	grep -q "^$dev " /proc/swaps
	swapoff "$dev"
	"$L" -d "$dev"
	truncate -s 1M "$T/fs/swap.img"

	truncate -s 16M "$T/fs/sparse.img"
	run setsid -w "$L" -f --show --engine kmod -e AES128 -H random --swap \
		"$T/fs/sparse.img" </dev/null
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot be pinned for swap"* ]]
	run grep -ls sparse.img /sys/block/cryptoloop*/loop/backing_file
	[ "$status" -ne 0 ]
	echo x >>"$T/fs/sparse.img"
}
