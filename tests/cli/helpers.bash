# Shared setup for the losetup CLI tests. Every device a test attaches is
# recorded, and teardown detaches exactly those, never anything else.

: "${top_builddir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
OUR_LOSETUP="$top_builddir/losetup/losetup"
# util-linux's own losetup is the reference for every output compared here.
UL_LOSETUP=/usr/sbin/losetup

common_setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for real loop devices"
	"$UL_LOSETUP" --version | grep -q util-linux ||
		fail "$UL_LOSETUP is not util-linux's losetup"
	TESTDIR=$(mktemp -d "${BATS_TMPDIR:-/tmp}/losetup-test.XXXXXX")
	DEVLIST="$TESTDIR/devices"
	: > "$DEVLIST"
}

common_teardown() {
	local dev file
	[ -n "${TESTDIR:-}" ] || return 0
	while read -r dev; do
		[ -n "$dev" ] || continue
		file=$(cat "/sys/block/${dev#/dev/}/loop/backing_file" 2>/dev/null) || continue
		# only detach a device that still points into our own directory
		case "$file" in "$TESTDIR"/*) "$UL_LOSETUP" -d "$dev" ;; esac
	done < "$DEVLIST"
	if mountpoint -q "$TESTDIR/mnt" 2>/dev/null; then
		umount "$TESTDIR/mnt"
	fi
	rm -rf "$TESTDIR"
}

fail() {
	echo "$@" >&2
	return 1
}

# Remember a device for teardown.
track() {
	echo "$1" >> "$DEVLIST"
}

# make_image NAME SIZE: a file of SIZE bytes of a recognisable pattern
make_image() {
	local f="$TESTDIR/$1"
	head -c "$2" /dev/urandom > "$f"
	echo "$f"
}

# attach ARGS...: attach with our losetup -f --show, track, print device
attach() {
	local dev
	dev=$("$OUR_LOSETUP" -f --show "$@") || return 1
	track "$dev"
	echo "$dev"
}

# run_both ARGS...: run util-linux's and our losetup with the same
# arguments; their exit status, stdout and stderr must be identical.
run_both() {
	local ul_out ul_err ul_rc our_out our_err our_rc
	ul_out="$TESTDIR/ul.out" ul_err="$TESTDIR/ul.err"
	our_out="$TESTDIR/our.out" our_err="$TESTDIR/our.err"
	# inside "if", a failing command does not trip bats' ERR trap
	if "$UL_LOSETUP" "$@" > "$ul_out" 2> "$ul_err"; then ul_rc=0; else ul_rc=$?; fi
	if "$OUR_LOSETUP" "$@" > "$our_out" 2> "$our_err"; then our_rc=0; else our_rc=$?; fi
	# getopt names the binary by its full argv[0]; that part may differ
	sed -i 's|^[^ ]*/\([^/ ]*\): unrecognized option|\1: unrecognized option|; s|^[^ ]*/\([^/ ]*\): invalid option|\1: invalid option|; s|^[^ ]*/\([^/ ]*\): option requires|\1: option requires|' "$ul_err" "$our_err"
	if ! diff -u "$ul_out" "$our_out" >&2; then
		fail "stdout differs for: losetup $*"
		return 1
	fi
	if ! diff -u "$ul_err" "$our_err" >&2; then
		fail "stderr differs for: losetup $*"
		return 1
	fi
	[ "$ul_rc" -eq "$our_rc" ] || fail "exit status $our_rc, util-linux $ul_rc: losetup $*"
	BOTH_STATUS=$our_rc
	BOTH_OUT=$(cat "$our_out")
	BOTH_ERR=$(cat "$our_err")
}

sysattr() {
	cat "/sys/block/${1#/dev/}/$2"
}
