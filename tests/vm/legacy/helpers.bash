# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the 5.10 guest suite (tests/vm/legacy/*.bats).  They
# run inside the guest booted by boot-5.10, as root.

: "${CLVM_BIN:?run this suite in the guest: tests/vm/legacy/run-suite}"
: "${CLX_KO:?}"
CLCTL=$CLVM_BIN/clctl
MODNAME=cryptoloop_xfer

# Load loop and our transfer module if they are not there yet.
clx_load() {
	modprobe loop || return 1
	grep -q "^$MODNAME " /proc/modules || insmod "$CLX_KO"
}

clx_loaded() {
	grep -q "^$MODNAME " /proc/modules
}

# Reference count of a module as /proc/modules shows it.
mod_refs() {
	awk -v m="$1" '$1 == m { print $3 }' /proc/modules
}

# A random key of $2 bytes in file $1 (default 32); KEYHEX holds its hex.
make_key() {
	head -c "${2:-32}" /dev/urandom >"$1"
	KEYHEX=$(od -An -v -tx1 "$1" | tr -d ' \n')
}

# IVs as openssl -iv wants them: hex of 16 bytes.
iv_plain() {	# le32(sector) then zeros
	local s=$1
	printf '%02x%02x%02x%02x%024d' $((s & 255)) $((s >> 8 & 255)) \
		$((s >> 16 & 255)) $((s >> 24 & 255)) 0
}
iv_plain64() {	# le64(sector) then zeros
	local s=$1 i out=
	for i in 0 1 2 3 4 5 6 7; do
		out+=$(printf '%02x' $((s >> (8 * i) & 255)))
	done
	printf '%s%016d' "$out" 0
}

# check_sector IMG IMG_SECTOR PLAIN PLAIN_SECTOR IV_HEX [CIPHER]
# Encrypt one 512-byte sector of PLAIN with openssl (AES-CBC, no padding,
# key KEYHEX) and compare it with the sector stored in IMG.
check_sector() {
	local img=$1 isec=$2 plain=$3 psec=$4 iv=$5
	local cipher=${6:-aes-256-cbc}
	local exp got
	exp=$(dd if="$plain" bs=512 skip="$psec" count=1 status=none |
		openssl enc -"$cipher" -nopad -K "$KEYHEX" -iv "$iv" |
		od -An -v -tx1 | tr -d ' \n')
	got=$(dd if="$img" bs=512 skip="$isec" count=1 status=none |
		od -An -v -tx1 | tr -d ' \n')
	if [ "${#exp}" != 1024 ] || [ "$exp" != "$got" ]; then
		echo "sector $isec of $img differs from openssl's encryption of sector $psec of $plain (iv $iv)" >&2
		echo " openssl: ${exp:0:64}..." >&2
		echo " image:   ${got:0:64}..." >&2
		return 1
	fi
}

# Devices, mounts and dm maps made by a test, undone in teardown.
CLX_DEVS=()
CLX_MNTS=()
CLX_MAPS=()

free_loop() {
	losetup -f
}

# attach DEV IMG [clctl attach options]: attach and remember for teardown.
attach() {
	local dev=$1
	shift
	"$CLCTL" attach "$dev" "$@" || return 1
	CLX_DEVS+=("$dev")
}

clx_teardown() {
	local m d
	for m in "${CLX_MNTS[@]}"; do
		umount "$m" 2>/dev/null
	done
	for m in "${CLX_MAPS[@]}"; do
		dmsetup remove --noudevsync "$m" 2>/dev/null
	done
	for d in "${CLX_DEVS[@]}"; do
		"$CLCTL" detach "$d" 2>/dev/null
	done
	CLX_DEVS=()
	CLX_MNTS=()
	CLX_MAPS=()
}

# dm_open NAME DEV TABLE_CIPHER KEY_HEX IV_OFFSET DEV_OFFSET SECTORS
# An independent decryption of DEV through dm-crypt.
dm_open() {
	local name=$1 dev=$2 cipher=$3 key=$4 ivoff=$5 off=$6 sectors=$7
	modprobe dm_crypt || return 1
	# No udevd in the guest: do not wait for it, make the node ourselves.
	echo "0 $sectors crypt $cipher $key $ivoff $dev $off" |
		dmsetup create "$name" --readonly --noudevsync || return 1
	CLX_MAPS+=("$name")
	dmsetup mknodes "$name"
	[ -b "/dev/mapper/$name" ]
}

# Kernel log lines that mean something went wrong, since mark $1.
dmesg_bad() {
	dmesg | sed -n "/clx-mark-$1/,\$p" |
		grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|refcount_t|list_(add|del) corruption|Call Trace' || true
}

dmesg_mark() {
	echo "clx-mark-$1" >/dev/kmsg
}
