# shellcheck shell=bash disable=SC2154,SC2034 # BUILD, CACHE, root...: tests/pkg/lib.sh's
# SPDX-License-Identifier: GPL-2.0-or-later
# The build stage: dpkg-buildpackage of this tree in each suite's buildd
# chroot, both at once; the .debs go to BUILD/debs/SUITE/.

# build_suite SUITE, in a subshell of its own (&): its chroot goes when it ends
build_suite() {
	local suite=$1 out=$BUILD/debs/$1 log=$BUILD/vm-pkg-build-$1.log
	mounts=()
	tmpdirs=()
	trap cleanup EXIT
	overlay "$CACHE/$suite/build" "$suite" "build-$suite"
	chroot_tree /build/cryptoloop "$CACHE/$suite/ccache"
	say "dpkg-buildpackage -us -uc -b in $suite (log $log)"
	local s=$SECONDS rc=0
	in_chroot "$root" sh -c 'cd /build/cryptoloop &&
		export PATH=/usr/lib/ccache:$PATH CCACHE_DIR=/var/cache/ccache CCACHE_MAXSIZE=1G &&
		dpkg-buildpackage -us -uc -b && ccache -s' >"$log" 2>&1 || rc=$?
	say "$suite build: rc=$rc, $((SECONDS - s)) s"
	rm -rf "$out"
	mkdir -p "$out"
	cp "$root"/build/*.deb "$root"/build/*.changes "$root"/build/*.buildinfo "$out"/ 2>/dev/null || true
	return "$rc"
}

stage_build() {
	pkg_tap build
	tap_log=/dev/null
	# both suites at once: each build is one make job
	local suite
	declare -A bpid
	for suite in $SUITES; do
		build_suite "$suite" &
		bpid[$suite]=$!
	done
	for suite in $SUITES; do
		check "dpkg-buildpackage -us -uc -b on $suite (buildd chroot): $(sed -n 's/^Package: //p' debian/control | paste -sd' ')" \
			wait "${bpid[$suite]}"
		tail -n 1 "$TAP_FILE" | grep -q '^ok' || tail -n 25 "$BUILD/vm-pkg-build-$suite.log"
	done
	pkg_tap_close
}
