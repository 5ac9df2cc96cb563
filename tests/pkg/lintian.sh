# shellcheck shell=bash disable=SC2154,SC2034 # BUILD, CACHE, root...: tests/pkg/lib.sh's
# SPDX-License-Identifier: GPL-2.0-or-later
# The lintian stage.

# lintian: trixie's, over both suites' packages, in the trixie buildd chroot
lintian_all() {
	local suite log=$BUILD/vm-pkg-lintian.log
	pkg_tap lintian
	tap_log=$log
	: >"$log"
	overlay "$CACHE/trixie/build" trixie lintian
	for suite in $SUITES; do
		mkdir -p "$root/lintian/$suite"
		cp "$BUILD/debs/$suite"/* "$root/lintian/$suite/"
		chmod -R a+rX "$root/lintian"
		echo "== lintian $(in_chroot "$root" lintian --version) on $suite's packages" >>"$log"
		# as root: the chroot is thrown away, and lintian only says it
		# would rather not
		check "lintian: no error and no warning on $suite's packages ($(cd "$BUILD/debs/$suite" && ls *.deb | sed 's/_.*//' | paste -sd' '))" \
			in_chroot "$root" lintian --fail-on error,warning \
			--display-info "/lintian/$suite/$(cd "$BUILD/debs/$suite" && ls *.changes)"
	done
	sed 's/^/    /' "$log"
	pkg_tap_close
}
