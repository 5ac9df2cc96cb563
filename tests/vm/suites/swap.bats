#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Swap on /dev/cryptoloopN under memory pressure, and on dm-crypt as the
# reference; each through tests/vm/guest/swap-stress.
#
# File-backed (a file on ext4) swap goes through the file's block map,
# switched on with loop/swap = 1 (kmod/extents.c), as swapon does for a
# swap file.  Through the file itself it stalls in the 256 MiB TCG
# guest: the direct-I/O write to the file allocates its bio from the
# kernel's shared fs_bio_set, whose few reserved bios are held by
# swap-out bios queued on the device itself (kswapd, and direct reclaim
# in any task, the journal thread included); mempool_alloc never dips
# into the emergency reserves, so the write waits for bios only its own
# completion frees, and the hung-task detector fires.  The stock
# kernel's dm-crypt over a direct-I/O loop device on such a file stalls
# there too, so that reference runs only with SWAP_FILE=1
# (tests/vm/host/swap-check -- --file).  Block devices take their direct-I/O
# bios from a pool of their own.
# Runs in a small guest through tests/vm/guest/guest-swap, which names the two
# scratch disks: SWAP_FS_DISK (gets an ext4 for the backing files) and
# SWAP_BLOCK_DISK (backs a device directly).  Their contents are lost.

load helpers

setup_file() {
	: "${SWAP_FS_DISK:?run through tests/vm/guest/guest-swap}" "${SWAP_BLOCK_DISK:?}"
	clvm_load
	export SWAP_MNT=/tmp/swapfs
	mkdir -p "$SWAP_MNT"
	mountpoint -q "$SWAP_MNT" || {
		mkfs.ext4 -q -F "$SWAP_FS_DISK" && mount "$SWAP_FS_DISK" "$SWAP_MNT"
	}
	# swap-stress needs room for its pressure, plus its margin
	ram_mib=$(awk '/^MemTotal:/ { print int(($2 + 65535) / 65536) * 64 }' /proc/meminfo)
	export SWAP_MIB=$((ram_mib * ${SWAP_STRESS_PERCENT:-200} / 100 + 128))
}

# swapfile NAME: a backing file for swap, written in full as swap files
# must be: an fallocated one has unwritten extents, and converting them on
# the first write makes the backing filesystem allocate and journal under
# the inode lock, in the middle of swap-out.
swapfile() {
	dd if=/dev/zero of="$SWAP_MNT/$1" bs=1M count="$SWAP_MIB" oflag=direct status=none
	on_teardown "rm -f $SWAP_MNT/$1"
}

teardown_file() {
	mountpoint -q "$SWAP_MNT" && umount "$SWAP_MNT"
	true
}

setup() {
	clvm_setup
	head -c 32 /dev/urandom >"$T/key"
}

teardown() {
	clvm_teardown
}

# stress DEV: swap-stress on DEV; its progress, TAP and timing go to the
# log as comments.
stress() {
	local rc=0
	"$CLVM_SRC/tests/vm/guest/swap-stress" "$1" >"$T/stress.tap" 2> >(sed -u 's/^/# /' >&3) ||
		rc=$?
	sed 's/^/# /' "$T/stress.tap" >&3
	[ "$rc" -eq 0 ]
}

@test "swap on a file-backed /dev/cryptoloop (aes-cbc-plain64, ext4 file, loop/swap=1)" {
	swapfile cl.swap
	dev=$(attach "$SWAP_MNT/cl.swap" --cipher aes-cbc-plain64 --key "$T/key")
	echo 1 >"/sys/block/${dev#/dev/}/loop/swap"
	stress "$dev"
}

@test "swap on a block-backed /dev/cryptoloop (aes-cbc-plain64, whole disk)" {
	dev=$(attach "$SWAP_BLOCK_DISK" --cipher aes-cbc-plain64 --key "$T/key")
	stress "$dev"
}

# bats test_tags=reference
@test "reference: swap on dm-crypt plain (aes-cbc-plain64) on the whole disk" {
	dm_open clswap --type plain --cipher aes-cbc-plain64 --key-size 256 \
		--key-file "$T/key" "$SWAP_BLOCK_DISK"
	stress /dev/mapper/clswap
}

# bats test_tags=reference
@test "reference: swap on dm-crypt plain (aes-cbc-plain64) over a loop device on an ext4 file" {
	[ "${SWAP_FILE:-}" = 1 ] || skip "the file-backed reference runs with swap-check -- --file"
	swapfile dm.swap
	# direct I/O, as our device does for swap on its own: buffered, the
	# loop device parks swapped-out memory in the ext4 file's page cache
	loopdev=$(losetup -f --show --direct-io=on "$SWAP_MNT/dm.swap")
	on_teardown "losetup -d $loopdev"
	dm_open clswap --type plain --cipher aes-cbc-plain64 --key-size 256 \
		--key-file "$T/key" "$loopdev"
	stress /dev/mapper/clswap
}

# The dm engine puts its mapping straight on a block device: no loop
# layer between dm-crypt and the disk (through a loop device, even one on
# a block device, dmcrypt_write blocks in the loop device's writeback
# throttling while loop's worker waits for memory).
# bats test_tags=dm
@test "swap on a dm engine device (losetup --engine dm -e AES128 -H random, whole disk)" {
	[ -n "${CLVM_PREFIX:-}" ] || skip "needs an installed build: guest-swap --prefix DIR"
	local L="$CLVM_PREFIX/sbin/losetup" dev
	modprobe -q dm_mod || true
	dev=$(LD_LIBRARY_PATH=$CLVM_PREFIX/lib/cryptoloop "$L" --engine dm -e AES128 -H random \
		-f --show "$SWAP_BLOCK_DISK")
	on_teardown "swapoff $dev 2>/dev/null; LD_LIBRARY_PATH=$CLVM_PREFIX/lib/cryptoloop $L -d $dev"
	[ "$dev" = "/dev/mapper/cryptoloop-${SWAP_BLOCK_DISK#/dev/}" ]
	# straight on the disk, and 65 random keys: loop-AES multi-key v3,
	# dm-crypt's lmk
	dmsetup deps -o devname "${dev#/dev/mapper/}" | grep -q "(${SWAP_BLOCK_DISK#/dev/})\$"
	dmsetup table "${dev#/dev/mapper/}" | grep -q ' aes:64-cbc-lmk '
	stress "$dev"
}

# An image file goes through a loop device: the same limit as the
# dm-crypt reference over a loop device on a file above.
@test "swap on a dm engine device on an ext4 file (losetup --engine dm --direct-io)" {
	[ "${SWAP_FILE:-}" = 1 ] || skip "the dm engine over a file runs with swap-check -- --file"
	[ -n "${CLVM_PREFIX:-}" ] || skip "needs an installed build: guest-swap --prefix DIR"
	local L="$CLVM_PREFIX/sbin/losetup" dev
	modprobe -q dm_mod || true
	swapfile dmengine.swap
	dev=$(LD_LIBRARY_PATH=$CLVM_PREFIX/lib/cryptoloop "$L" --engine dm -e AES128 -H random \
		--direct-io=on -f --show "$SWAP_MNT/dmengine.swap")
	on_teardown "swapoff $dev 2>/dev/null; LD_LIBRARY_PATH=$CLVM_PREFIX/lib/cryptoloop $L -d $dev"
	stress "$dev"
}
