# SPDX-License-Identifier: GPL-2.0-or-later
# util-linux's newer programs on this host: Debian trixie's (2.41) and
# sid's (2.42) root filesystems, which tests/vm/host/fetch-kernel makes, hold
# them.  They run here with their own loader and libraries, and so can
# ours, to meet the libsmartcols and libmount of that release.  Sourced by
# the suites that compare with them, after tests/lib/common.bash.

UL_CACHE=${CLVM_KERNEL_CACHE:-/var/cache/cryptoloop-vm}

# ul_root SUITE: print SUITE's root filesystem
ul_root() {
	echo "$UL_CACHE/$1/root"
}

# ul_have SUITE...: every SUITE's root filesystem is there. A fetch in
# progress (tools/check starts them beside make check) holds its suite's
# lock: wait for it to end, then look.
ul_have() {
	local s
	for s in "$@"; do
		[ ! -e "$UL_CACHE/$s/.lock" ] || flock -s -w 1800 "$UL_CACHE/$s/.lock" true || true
		[ -x "$(ul_root "$s")/usr/sbin/losetup" ] || return 1
	done
}

# ul_need SUITE...: skip the test, saying what is not compared, unless
# every SUITE's root filesystem is there
ul_need() {
	ul_have "$@" ||
		skip "no Debian $* root filesystem in $UL_CACHE (tests/vm/host/fetch-kernel $*): util-linux of $* NOT compared"
}

# ul_cmd SUITE BINARY [LIBDIR]: the words of a command that runs BINARY
# with SUITE's loader and libraries (LIBDIR, then the host's, as a
# fallback for what SUITE lacks, after them), shell-quoted
ul_cmd() {
	local root
	root=$(ul_root "$1")
	printf '%q ' env LC_ALL=C "$root/lib64/ld-linux-x86-64.so.2" --library-path \
		"${3:+$3:}$root/usr/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu" "$2"
}

# ul_run SUITE BINARY ARGS...: run BINARY with SUITE's loader and
# libraries
ul_run() {
	local cmd
	cmd=$(ul_cmd "$1" "$2")
	shift 2
	eval "$cmd \"\$@\""
}

# ul_wrap SUITE BINARY [LIBDIR]: print the path of a new script in
# $TESTDIR that runs that command (for callers that want one program)
ul_wrap() {
	local w
	w=$(mktemp "$TESTDIR/ul-$1.XXXXXX")
	printf '#!/bin/sh\nexec %s"$@"\n' "$(ul_cmd "$@")" > "$w"
	chmod +x "$w"
	echo "$w"
}

# ul_newer SUITE: UL_NEWER runs SUITE's own losetup; skip the test
# without SUITE's root filesystem
ul_newer() {
	ul_need "$1"
	UL_NEWER=$(ul_wrap "$1" "$(ul_root "$1")/usr/sbin/losetup")
	"$UL_NEWER" --version | grep -q "util-linux" ||
		fail "$(ul_root "$1")/usr/sbin/losetup does not run here"
}
