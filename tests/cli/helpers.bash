# The losetup CLI tests: our losetup against util-linux's. attach, track
# and teardown come from tests/lib/common.bash; teardown detaches with
# util-linux's losetup, so that a bug of ours cannot hide a leak.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.bash"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ul-chroot.bash"

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

# A comparison runs four losetups and a dozen helpers, and the listing
# tests make hundreds: what a builtin can do here is not a process
# (about 25 ms each on a loaded two-core machine).

# same FILE1 FILE2 VAR: the two texts are equal (listings hold no NUL
# byte), and VAR holds it without its trailing newlines, as $(cat FILE2)
# gives it; if not, diff -u shows how
same() {
	local x
	local -n _t=$3
	IFS= read -r -d '' x < "$1" || true
	IFS= read -r -d '' _t < "$2" || true
	[ "$x" = "$_t" ] || { diff -u "$1" "$2" >&2; return 1; }
	while [[ $_t == *$'\n' ]]; do _t=${_t%$'\n'}; done
}

# loop_set VAR: the host's bound loop devices, from sysfs
loop_set() {
	local -n _s=$1
	local d
	_s=
	for d in /sys/block/loop*/loop/backing_file; do
		[ ! -e "$d" ] || _s+="${d%/loop/backing_file} "
	done
}

# own_rows FILE: keep, in place, FILE's rows about the test's own
# devices (own-rows.awk); fails when the host's device set changed while
# the listings were taken.
own_rows() {
	local rows
	awk -v own="$TESTDIR/own.devs" -v order="$TESTDIR/order.devs" \
		-f "$BATS_TEST_DIRNAME/own-rows.awk" "$1" > "$1.own" || return 1
	IFS= read -r -d '' rows < "$1.own" || true
	printf '%s' "$rows" > "$1"
}

# both_listings ARGS...: util-linux's and our listing with ARGS into
# $TESTDIR/{ul,our}.{out,err}, their status into ul_rc and our_rc, each
# cut to the test's own devices.
both_listings() {
	local before after
	loop_set before
	# inside "if", a failing command does not trip bats' ERR trap
	if "$UL_LOSETUP" "$@" > "$ul_out" 2> "$ul_err"; then ul_rc=0; else ul_rc=$?; fi
	if "$OUR_LOSETUP" "$@" > "$our_out" 2> "$our_err"; then our_rc=0; else our_rc=$?; fi
	"$UL_LOSETUP" -l -n -O NAME > "$TESTDIR/order.devs"
	loop_set after
	# the devices here are plain: a warning about an engine's corrupt
	# record is about another user's device
	[ ! -s "$our_err" ] ||
		sed -i '\|^losetup: /run/cryptoloop/[^/]*/state: corrupt record, left alone |d' "$our_err"
	[ "$before" = "$after" ] || return 1
	own_rows "$ul_out" && own_rows "$our_out"
}

# run_both ARGS...: run util-linux's and our losetup with the same
# arguments; their exit status, stdout and stderr must be identical.
# Listings compare the rows about the test's own devices only: another
# user's devices (a FUSE engine's lists its image in ours, the FUSE file
# in util-linux's) are not this test's business.
run_both() {
	local ul_out ul_err ul_rc our_out our_err our_rc try
	ul_out="$TESTDIR/ul.out" ul_err="$TESTDIR/ul.err"
	our_out="$TESTDIR/our.out" our_err="$TESTDIR/our.err"
	tl_entries dev > "$TESTDIR/own.devs"
	# another user attaching or detaching meanwhile: take both again
	for try in 1 2 3; do
		if both_listings "$@"; then break; fi
		[ "$try" -lt 3 ] || fail "the host's loop devices kept changing: losetup $*" || return 1
		sleep 1
	done
	# ours lists more than util-linux does (--output-all's encryption
	# columns): OUR_FILTER takes them out before the comparison
	if [ -n "${OUR_FILTER:-}" ]; then
		"$OUR_FILTER" < "$our_out" > "$our_out.filtered" && mv "$our_out.filtered" "$our_out"
	fi
	# getopt names the binary by its full argv[0]; that part may differ
	if [ -s "$ul_err" ] || [ -s "$our_err" ]; then
		sed -i 's#^[^ ]*/\([^/ ]*\): \(unrecognized option\|invalid option\|option \)#\1: \2#' "$ul_err" "$our_err"
	fi
	if ! same "$ul_out" "$our_out" BOTH_OUT; then
		fail "stdout differs for: losetup $*"
		return 1
	fi
	if ! same "$ul_err" "$our_err" BOTH_ERR; then
		fail "stderr differs for: losetup $*"
		return 1
	fi
	[ "$ul_rc" -eq "$our_rc" ] || fail "exit status $our_rc, util-linux $ul_rc: losetup $*"
	BOTH_STATUS=$our_rc
}

sysattr() {
	cat "/sys/block/${1#/dev/}/$2"
}
