# The losetup CLI tests: our losetup against util-linux's. attach, track
# and teardown come from tests/lib/common.bash; teardown detaches with
# util-linux's losetup, so that a bug of ours cannot hide a leak.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.bash"

: "${top_builddir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
OUR_LOSETUP="$top_builddir/losetup/losetup"
# util-linux's own losetup is the reference for every output compared here.
UL_LOSETUP=/usr/sbin/losetup
LOSETUP=$OUR_LOSETUP
TL_DETACH=("$UL_LOSETUP" -d)

cli_setup() {
	need_root
	"$UL_LOSETUP" --version | grep -q util-linux ||
		fail "$UL_LOSETUP is not util-linux's losetup"
	common_setup losetup-test
	track_mount "$TESTDIR/mnt"
}

# make_image NAME SIZE: a file of SIZE bytes of a recognisable pattern
make_image() {
	local f="$TESTDIR/$1"
	head -c "$2" /dev/urandom > "$f"
	echo "$f"
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
