# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the 5.10 guest suite (tests/vm/legacy/*.bats).  They
# run inside the guest booted by boot-5.10, as root.  attach (here: clctl
# on a stock /dev/loopN named with --on), track and teardown come from
# tests/lib/common.bash.

: "${CLVM_BIN:?run this suite in the guest: tests/vm/legacy/run-suite}"
: "${CLX_KO:?}"
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.bash"
CLCTL=$CLVM_BIN/clctl
ATTACH_WITH=clctl
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

# set_iv MODE SECTOR: IV (hex of 16 bytes, as openssl -iv wants it) for
# "plain" (le32(sector), zeros) or "plain64" (le64(sector), zeros).  Sets
# IV without forking: under TCG on a busy host every process costs.
set_iv() {
	local mode=$1 s=$2 i n=4
	[ "$mode" = plain64 ] && n=8
	IV=
	for ((i = 0; i < n; i++)); do
		printf -v IV '%s%02x' "$IV" $((s >> (8 * i) & 255))
	done
	while [ ${#IV} -lt 32 ]; do IV+=0; done
}

# check_sector IMG IMG_SECTOR PLAIN PLAIN_SECTOR IV_MODE IV_SECTOR [CIPHER]
# Encrypt one 512-byte sector of PLAIN with openssl (CBC, no padding, key
# KEYHEX, default aes-256-cbc) and compare it with the sector in IMG.
check_sector() {
	local img=$1 isec=$2 plain=$3 psec=$4 cipher=${7:-aes-256-cbc}
	set_iv "$5" "$6"
	dd if="$plain" bs=512 skip="$psec" count=1 status=none |
		openssl enc -"$cipher" -nopad -K "$KEYHEX" -iv "$IV" >"$T/exp" ||
		return 1
	dd if="$img" of="$T/got" bs=512 skip="$isec" count=1 status=none
	[ "$(stat -c %s "$T/exp")" = 512 ] || return 1
	if ! cmp -s "$T/exp" "$T/got"; then
		echo "sector $isec of $img is not openssl's encryption of sector $psec of $plain (iv $IV)" >&2
		return 1
	fi
}

free_loop() {
	losetup -f
}

# clx_setup_file BYTES: the module loaded, $T exported, with BYTES of
# random plaintext in $T/plain
clx_setup_file() {
	clx_load
	T=$BATS_FILE_TMPDIR
	head -c "$1" /dev/urandom >"$T/plain"
	export T
}

# clx_teardown MARK: undo what the test made, then fail it when the
# kernel complained after setup's dmesg_mark MARK
clx_teardown() {
	local bad
	common_teardown || return 1
	bad=$(dmesg_bad "$1")
	[ -z "$bad" ] || { echo "kernel log since mark $1:" >&2; echo "$bad" >&2; return 1; }
}

# dm_open NAME DEV TABLE_CIPHER KEY_HEX IV_OFFSET DEV_OFFSET SECTORS
# An independent decryption of DEV through dm-crypt.
dm_open() {
	local name=$1 dev=$2 cipher=$3 key=$4 ivoff=$5 off=$6 sectors=$7
	modprobe dm_crypt || return 1
	# No udevd in the guest: do not wait for it, make the node ourselves.
	echo "0 $sectors crypt $cipher $key $ivoff $dev $off" |
		dmsetup create "$name" --readonly --noudevsync || return 1
	track_map "$name"
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
