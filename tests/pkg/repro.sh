# shellcheck shell=bash disable=SC2154,SC2034 # BUILD, CACHE, root...: tests/pkg/lib.sh's
# SPDX-License-Identifier: GPL-2.0-or-later
# The reproducibility stage: trixie's packages built a second time from
# the same tree, with what reprotest varies that a build could leak (the
# build path, the umask, the clock a year and a month ahead through
# faketime, the time zone: UTC+14), must be the build stage's files byte for
# byte. When one differs, diffoscope says where, in the stage's log.
#
# One rebuild, not reprotest's two: the build stage's own .debs are the
# control. The rebuild's tree is always at the same other path, so that
# its compiler cache hits from one run to the next.

REPRO_DIR=/build/elsewhere/cryptoloop-again

repro_trixie() {
	local log=$BUILD/vm-pkg-repro.log out=$BUILD/debs/trixie-again deb name rc=0
	pkg_tap repro
	tap_log=$log
	: >"$log"
	overlay "$CACHE/trixie/build" trixie repro
	chroot_tree "$REPRO_DIR" "$CACHE/trixie/ccache-again"
	say "trixie's packages again: $REPRO_DIR, umask 0002, faketime +397 days, UTC+14 (log $log)"
	in_chroot "$root" sh -c "umask 0002 && cd $REPRO_DIR &&
		export PATH=/usr/lib/ccache:\$PATH CCACHE_DIR=/var/cache/ccache CCACHE_MAXSIZE=1G \
			TZ=XST-14 &&
		faketime -f +397d dpkg-buildpackage -us -uc -b" >>"$log" 2>&1 || rc=$?
	rm -rf "$out"
	mkdir -p "$out"
	cp "$root$REPRO_DIR"/../*.deb "$out"/ 2>/dev/null || true
	check "the rebuild (another path, umask, clock and time zone) succeeded" test "$rc" -eq 0
	# dpkg-deb clamps mtimes down to SOURCE_DATE_EPOCH (the changelog's
	# date), never up: files made before a future-dated entry keep the
	# clock's mtime, and two builds then differ
	check "debian/changelog's last entry is not dated in the future" \
		test "$(dpkg-parsechangelog -l debian/changelog -S Timestamp)" -le "$(date +%s)"
	check "the rebuild made the same packages: $(cd "$BUILD/debs/trixie" && ls -- *.deb | paste -sd' ')" \
		diff <(cd "$BUILD/debs/trixie" && ls -- *.deb) <(cd "$out" && ls -- *.deb)
	for deb in "$BUILD/debs/trixie"/*.deb; do
		name=${deb##*/}
		if ! cmp -s "$deb" "$out/$name" && [ -e "$out/$name" ]; then
			cp "$deb" "$root/build/control-$name"
			echo "== diffoscope $name (the build stage's, then the rebuild's)" >>"$log"
			in_chroot "$root" diffoscope --text - --no-progress "/build/control-$name" \
				"$REPRO_DIR/../$name" >>"$log" 2>&1 || true
		fi
		check "reproducible: $name" cmp "$deb" "$out/$name"
	done
	rm -rf "$out"
	pkg_tap_close
}
