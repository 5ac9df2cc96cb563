# Shared by the encrypted-device (e2e) tests, and by tests/mount and the
# dm engine's VM suite. attach, track and teardown come from
# tests/lib/common.bash; here: the engine, the daemons, the format checks.
# Teardown removes exactly what a test made, its daemons and mounts,
# never anything else. Passphrases go through fds, never argv/env.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.bash"

: "${top_builddir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
# E2E_LOSETUP / E2E_FUSE_DAEMON: the binaries behind libtool's wrapper
# scripts, for slow guests (with LD_LIBRARY_PATH set by the caller)
LOSETUP=${E2E_LOSETUP:-"$top_builddir/losetup/losetup"}
# the daemon of this build tree, not an installed one
export CRYPTOLOOP_FUSE_DAEMON=${E2E_FUSE_DAEMON:-"$top_builddir/fuse/cryptoloop-fuse"}
UL_LOSETUP=/usr/sbin/losetup
STATE_DIR=/run/cryptoloop
# the engine the format suites run on: fuse here, kmod in the VM
E2E_ENGINE=${E2E_ENGINE:-fuse}
# attach uses it unless a test names an engine (auto included): on a
# machine with dm-crypt, auto would pick dm for the FUSE tests
ATTACH_ENGINE=$E2E_ENGINE

# a passphrase long enough for loop-AES (20+), and one for cryptoloop
PASS="correct horse battery staple 42"

e2e_setup() {
	need_root "loop devices and FUSE"
	[ "$E2E_ENGINE" != fuse ] || [ -c /dev/fuse ] || skip "needs /dev/fuse"
	common_setup cryptoloop-e2e
	MNT="$TESTDIR/mnt"
	mkdir -p "$MNT"
	printf '%s\n' "$PASS" > "$TESTDIR/pass"
	track_mount "$MNT"
	on_teardown e2e_cleanup
}

# the pids of daemons serving images in our directory
our_daemons() {
	pgrep -f -- "--image $TESTDIR/" || true
}

# record_devices DIR: the devices of the engine records whose image lies
# in DIR
record_devices() {
	local f line dev img
	for f in "$STATE_DIR"/*/state; do
		[ -f "$f" ] || continue
		dev='' img=''
		while IFS= read -r line; do
			case "$line" in
			device=*) dev=${line#device=} ;;
			image=*) img=${line#image=} ;;
			esac
		done < "$f"
		[[ "$img" != "$1"/* ]] || [ -z "$dev" ] || echo "$dev"
	done
}

# our_record_devices: record_devices of $TESTDIR that still hold what
# the record says (tl_owned: our losetup lists the image there only for
# a record it judged true), never a device a planted record names
our_record_devices() {
	local dev
	for dev in $(record_devices "$TESTDIR"); do
		! tl_owned "$dev" || echo "$dev"
	done
}

# after the tracked devices are detached: the devices the test made
# without attach() (mount.cryptoloop, a bare losetup), even those whose
# daemon died (losetup -d detaches them and removes mount and record);
# then daemons still running, a test's small file system, and the records
# dead daemons left
e2e_cleanup() {
	local pid dev
	for dev in $(our_record_devices); do
		"$LOSETUP" -d "$dev" 2>/dev/null || true
	done
	for pid in $(our_daemons); do kill -9 "$pid" 2>/dev/null || true; done
	[ -z "${TINYFS:-}" ] || ! mountpoint -q "$TINYFS" || umount "$TINYFS"
	# listing collects what dead daemons left
	"$LOSETUP" -a > /dev/null 2>&1 || true
}

# common_teardown, and a failure when a device of the test's images is
# still attached through an engine record
e2e_teardown() {
	local rc=0 left i
	common_teardown || rc=$?
	[ -n "${TESTDIR:-}" ] || return "$rc"
	# a detach may finish a moment later (a FUSE daemon's last close)
	for ((i = 0; i < 20; i++)); do
		left=$(our_record_devices)
		[ -n "$left" ] || return "$rc"
		sleep 0.1
	done
	echo "teardown: still attached after teardown: $left" >&2
	return 1
}

detach() {
	"$LOSETUP" -d "$1"
}

# make a sparse image of SIZE; prints its path
image() {
	local f="$TESTDIR/${2:-image}"
	truncate -s "$1" "$f"
	echo "$f"
}

# fs_write DEV: ext4 with a few files; their checksums in $TESTDIR/sums
fs_write() {
	mkfs.ext4 -q -F "$1"
	mount "$1" "$MNT"
	head -c 3M /dev/urandom > "$MNT/random.bin"
	seq 1 20000 > "$MNT/numbers.txt"
	mkdir "$MNT/dir"
	echo "hello from an encrypted loop device" > "$MNT/dir/hello.txt"
	(cd "$MNT" && sha256sum random.bin numbers.txt dir/hello.txt) > "$TESTDIR/sums"
	umount "$MNT"
}

# fs_verify DEV: fsck clean, files intact
fs_verify() {
	fsck.ext4 -n -f "$1" > /dev/null 2>&1 || fail "fsck found errors on $1"
	mount -o ro "$1" "$MNT"
	(cd "$MNT" && sha256sum -c --quiet "$TESTDIR/sums") || { umount "$MNT"; fail "checksums differ"; }
	umount "$MNT"
}

# the device's plaintext, read around the page cache
device_bytes() {
	dd if="$1" bs=1M iflag=direct status=none
}

# hex of the util-linux 2.12 raw key: the passphrase's first 31 bytes,
# zero padded to 32 (xstrncpy)
raw_key_hex() {
	local k
	k=$(printf '%s' "$1" | head -c 31 | od -An -tx1 | tr -d ' \n')
	while [ ${#k} -lt 64 ]; do k="${k}00"; done
	echo "$k"
}

# le_iv SECTOR BYTES: the sector number little-endian in BYTES bytes, zero padded to 16
le_iv() {
	local s=$1 n=$2 i out=""
	for ((i = 0; i < n; i++)); do
		out="$out$(printf '%02x' $(( (s >> (8 * i)) & 255 )))"
	done
	while [ ${#out} -lt 32 ]; do out="${out}00"; done
	echo "$out"
}

# openssl_check IMAGE PLAIN KEYHEX IVBYTES OFFSET_SECTORS SECTOR...: each
# sector of PLAIN (a device, read past the page cache, or a file holding
# what was written) equals the image's sector decrypted by openssl
# (AES-256-CBC, IV = le(file sector) in IVBYTES bytes)
openssl_check() {
	local img=$1 plain=$2 key=$3 ivb=$4 off=$5 s fs direct=()
	shift 5
	[ ! -b "$plain" ] || direct=(iflag=direct)
	for s in "$@"; do
		fs=$((s + off))
		cmp <(dd if="$img" bs=512 skip="$fs" count=1 status=none |
			openssl enc -d -aes-256-cbc -nopad -K "$key" -iv "$(le_iv "$fs" "$ivb")") \
		    <(dd if="$plain" bs=512 skip="$s" count=1 "${direct[@]}" status=none) ||
			fail "sector $s: the image does not decrypt to $plain's data (openssl)"
	done
}

# sectors_in_use DEV: some sectors ext4 wrote, plus the first and last
sample_sectors() {
	local size
	size=$(blockdev --getsz "$1")
	echo 0 1 2 3 8 1024 1025 2048 4096 8191 $((size / 2)) $((size / 2 + 1)) $((size - 1))
}

# what of ours exists: daemons, records, loop devices, FUSE mounts
snapshot() {
	our_daemons
	grep -ls "image=$TESTDIR/" "$STATE_DIR"/*/state || true
	"$UL_LOSETUP" -a | grep -F "$TESTDIR" || true
	grep " $STATE_DIR/" /proc/mounts || true
}

# no device, mount or daemon of ours is left
assert_clean() {
	[ -z "$(our_daemons)" ] || fail "daemon still running: $(our_daemons)"
	! grep -q "$TESTDIR" /proc/mounts || fail "mount left: $(grep "$TESTDIR" /proc/mounts)"
	# ours lists /dev/cryptoloopN too
	! "$LOSETUP" -a | grep -q "$TESTDIR" || fail "device left"
	! grep -rqs "image=$TESTDIR/" "$STATE_DIR" || fail "state record left"
	# nothing of the engine without its record: loop devices on a FUSE
	# file, FUSE mounts
	local f dir mnt
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] || continue
		case "$(cat "$f")" in
		"$STATE_DIR"/*) dir=$(dirname "$(dirname "$(cat "$f")")")
			[ -f "$dir/state" ] || fail "loop device on $(cat "$f") without a record";;
		esac
	done
	while read -r _ mnt _; do
		case "$mnt" in
		"$STATE_DIR"/*) [ -f "$(dirname "$mnt")/state" ] || fail "FUSE mount $mnt without a record";;
		esac
	done < /proc/mounts
}

# kat_gpgkey: $kf, the KAT's gpg key file (65 keys), and $gp, the
# passphrase it was made with; gpg's home is the test's own
kat_gpgkey() {
	export GNUPGHOME="$TESTDIR/gnupg"
	mkdir -m 700 "$GNUPGHOME"
	kf="$top_srcdir/tests/kat/pass/kf1.gpg"
	gp=$(cat "$top_srcdir/tests/kat/pass/gpgpass.txt")
}
