# shellcheck shell=bash disable=SC2154 # BUILD, CACHE, root...: tests/pkg/lib.sh's
# SPDX-License-Identifier: GPL-2.0-or-later
# The diversion stage: util-linux's losetup diverted and given back,
# on each suite.

# repack DEB DIR: DEB as version PREV, for the upgrade test
repack_prev() {
	local deb=$1 out=$2 t
	t=$(mktemp -d /var/tmp/cryptoloop-pkg-repack.XXXXXX)
	dpkg-deb -R "$deb" "$t/x"
	sed -i "s/^Version: .*/Version: $PREV/; s/(\([<>=]*\) $VERSION\([.0-9~]*\))/(\1 $PREV\2)/g" "$t/x/DEBIAN/control"
	dpkg-deb -Zxz -b "$t/x" "$out/" >/dev/null
	rm -rf "$t"
}

# alias_deb DIR PATH: a package that ships a losetup at PATH, as mount does
# under the other alias in the other suite (bookworm's /sbin/losetup,
# trixie's /usr/sbin/losetup)
alias_deb() {
	local t=$1/alias
	mkdir -p "$t/DEBIAN" "$t$(dirname "$2")"
	printf '#!/bin/sh\necho losetup from the alias test package\n' >"$t$2"
	chmod 755 "$t$2"
	cat >"$t/DEBIAN/control" <<CTL
Package: clvm-alias-losetup
Version: 1
Architecture: all
Maintainer: cryptoloop tests <root@localhost>
Description: test package shipping losetup at $2
CTL
	dpkg-deb -b "$t" "$1/clvm-alias-losetup.deb" >/dev/null
	rm -rf "$t"
}

# losetup's bash completion: ours is the tree's file, which the packages ship
bc=/usr/share/bash-completion/completions/losetup
sum_bc_ours=$(sha256sum <completion/losetup)
bc_ours() { same_as "$bc" "$sum_bc_ours"; }
bc_diverted_intact() { same_as "$(in_chroot "$root" dpkg-divert --truename "$bc")" "$sum_bc"; }
# the generator's random-key swap unit runs our losetup by its own name
generator_runs_ours() {
	local t=$root/tmp/gen
	mkdir -p "$t/n" "$t/e" "$t/l" "$t/modules"
	# as if DKMS had installed the module (tests/generator does the same)
	echo "updates/dkms/cryptoloop.ko.xz:" >"$t/modules/modules.dep"
	echo "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0" >"$t/fstab"
	in_chroot "$root" env SYSTEMD_FSTAB=/tmp/gen/fstab CRYPTOLOOP_MODULES_DIR=/tmp/gen/modules \
		/usr/lib/systemd/system-generators/cryptoloop-generator /tmp/gen/n /tmp/gen/e /tmp/gen/l
	grep -h '^ExecStart=' "$t"/n/*.service
	grep -qhE '^ExecStart="?/usr/sbin/cryptoloop-losetup"? ' "$t"/n/*.service &&
		[ -x "$root/usr/sbin/cryptoloop-losetup" ]
}

# diversion_cycle SUITE LOWER: install, upgrade, reinstall mount, purge
# shellcheck disable=SC2034 # d, sum_ul, sum_man and sum_bc: read by the eval'd checks
diversion_cycle() {
	local suite=$1 lower=$2 ul alias sum_ul sum_man sum_bc d=/debs
	pkg_tap "diversion-$suite"
	tap_log=$BUILD/vm-pkg-diversion-$suite.log
	: >"$tap_log"
	overlay "$lower" "$suite" "div-$suite"
	mkdir -p "$root$d/cur" "$root$d/prev"
	cp "$BUILD/debs/$suite"/cryptoloop_*.deb "$BUILD/debs/$suite"/cryptoloop-losetup_*.deb "$root$d/cur/"
	for f in "$root$d"/cur/*.deb; do repack_prev "$f" "$root$d/prev"; done
	apt_in "$root" update >>"$tap_log" 2>&1 || { echo "pkg: SKIP: apt-get update in $suite failed" >&2; exit 77; }
	# where this suite's mount ships losetup, and the other alias
	ul=$(in_chroot "$root" dpkg-query -L mount | grep -E '^(/usr)?/sbin/losetup$')
	case "$ul" in /usr/*) alias=${ul#/usr} ;; *) alias=/usr$ul ;; esac
	alias_deb "$root$d" "$alias"
	sum_ul=$(sha256sum <"$root$ul")
	sum_man=$(sha256sum <"$root/usr/share/man/man8/losetup.8.gz")
	sum_bc=$(sha256sum <"$root$bc")
	echo "== $suite: mount ships $ul" >>"$tap_log"

	check "$suite: install $PREV (cryptoloop, cryptoloop-losetup): losetup in root's PATH is ours" \
		eval 'apt_in "$root" install $(debs prev cryptoloop cryptoloop-losetup) && ours'
	check "$suite: upgrade $PREV -> $VERSION: losetup and its bash completion still ours, 4 diversions" \
		eval 'apt_in "$root" install $(debs cur cryptoloop cryptoloop-losetup) && ours && bc_ours && four_diversions'
	check "$suite: util-linux's losetup ($ul) and its bash completion kept byte for byte under their diverted names" \
		eval 'in_chroot "$root" dpkg-divert --list "$ul" | grep -q "cryptoloop-losetup" &&
			same_as "$(in_chroot "$root" dpkg-divert --truename "$ul")" "$sum_ul" && bc_diverted_intact'
	check "$suite: apt-get install --reinstall mount: losetup and its completion still ours, util-linux's still diverted intact" \
		eval 'apt_in "$root" install --reinstall mount && ours && bc_ours &&
			same_as "$(in_chroot "$root" dpkg-divert --truename "$ul")" "$sum_ul" && bc_diverted_intact'
	check "$suite: a package shipping losetup at the other alias ($alias) neither replaces ours nor takes it away" \
		eval 'apt_in "$root" install $d/clvm-alias-losetup.deb && ours &&
			apt_in "$root" purge clvm-alias-losetup && ours'
	check "$suite: apt purge cryptoloop-losetup cryptoloop: $ul is util-linux's byte for byte, losetup --version is util-linux's" \
		eval 'apt_in "$root" purge cryptoloop-losetup cryptoloop && same_as "$ul" "$sum_ul" && theirs'
	check "$suite: after purge no diversion is left (dpkg-divert --list), losetup.8.gz and the bash completion are util-linux's" \
		eval 'no_diversion && same_as /usr/share/man/man8/losetup.8.gz "$sum_man" && same_as "$bc" "$sum_bc"'
	check "$suite: dpkg --verify mount: every file of util-linux's as shipped" \
		in_chroot "$root" dpkg --verify mount
	check "$suite: cryptoloop alone: losetup and its completion stay util-linux's, no diversion, cryptoloop-losetup and its completion are ours" \
		eval 'apt_in "$root" install $(debs cur cryptoloop) && theirs && no_diversion && same_as "$bc" "$sum_bc" &&
			in_chroot "$root" cryptoloop-losetup --version | grep -q " from cryptoloop " &&
			same_as "${bc%/*}/cryptoloop-losetup" "$sum_bc_ours"'
	check "$suite: cryptoloop-generator's swap units run /usr/sbin/cryptoloop-losetup, with or without cryptoloop-losetup" \
		generator_runs_ours
	pkg_tap_close
}
