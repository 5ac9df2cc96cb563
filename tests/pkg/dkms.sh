# shellcheck shell=bash disable=SC2154,SC2034 # BUILD, CACHE, root...: tests/pkg/lib.sh's
# SPDX-License-Identifier: GPL-2.0-or-later
# The dkms stage: cryptoloop-dkms on trixie's kernel and on a second one.

dkms_installed() {
	in_chroot "$root" dkms status "cryptoloop/$UPVER" -k "$1" | tee -a "$tap_log" | grep -q ': installed' &&
		dkms_ko "$1"
}

# dkms_cycle KROOT: cryptoloop-dkms on trixie, one kernel then a second one,
# and between them the initramfs stage (its own TAP) on the first
dkms_cycle() {
	# shellcheck disable=SC2034 # k2, d: in the eval'd checks
	local kroot=$1 k1 k2 d=/debs out
	pkg_tap dkms-trixie
	tap_log=$BUILD/vm-pkg-dkms-trixie.log
	: >"$tap_log"
	overlay "$kroot" trixie dkms
	mkdir -p "$root$d"
	cp "$BUILD/debs/trixie"/cryptoloop-dkms_*.deb "$BUILD/debs/trixie"/cryptoloop-xfer-dkms_*.deb \
		"$BUILD/debs/trixie"/cryptoloop_*.deb "$BUILD/debs/trixie"/cryptoloop-initramfs_*.deb "$root$d/"
	apt_in "$root" update >>"$tap_log" 2>&1 || { echo "pkg: SKIP: apt-get update in trixie failed" >&2; exit 77; }
	k1=$(cat "$kroot/kver")
	# the teletype frontend prints notes: what an administrator sees; low
	# priority, as this chroot (like most machines) has no Secure Boot
	out=$BUILD/vm-pkg-dkms-install.out
	check "trixie: install cryptoloop-dkms: DKMS builds and installs cryptoloop.ko for $k1" \
		eval 'script -qec "chroot $root /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=teletype DEBIAN_PRIORITY=low \
			apt-get -q -y -o APT::Install-Recommends=false install $(debs . cryptoloop-dkms)" \
			/dev/null </dev/null >"$out" 2>&1; cat "$out"; dkms_installed "$k1"'
	check "trixie: the install shows the Secure Boot note (mokutil --import /var/lib/dkms/mok.pub)" \
		eval 'tr -d "\r" <"$out" | tr "\n" " " | grep -q "mokutil --import /var/lib/dkms/mok.pub"'
	if want initramfs; then
		local dkms_log=$tap_log
		tap_suspend
		pkg_tap initramfs-trixie
		tap_log=$BUILD/vm-pkg-initramfs-trixie.log
		: >"$tap_log"
		initramfs_checks "$k1"
		pkg_tap_close
		tap_resume
		tap_log=$dkms_log
	fi
	check "trixie: a second kernel installed afterwards (linux-image-cloud-amd64 with headers) gets the module too" \
		eval 'apt_in "$root" install linux-image-cloud-amd64 linux-headers-cloud-amd64 &&
			k2=$(ls "$root/usr/lib/modules" | grep -- -cloud-amd64 | tail -n 1) && [ -n "$k2" ] &&
			echo "second kernel: $k2" && dkms_installed "$k2" && dkms_installed "$k1"'
	check "trixie: apt purge cryptoloop-dkms: no cryptoloop.ko under any kernel, nothing left in DKMS or /usr/src" \
		eval 'apt_in "$root" purge cryptoloop-dkms && no_module_left'
	# 5.4-5.15 only (BUILD_EXCLUSIVE_KERNEL): on 6.12 it is added, not built
	check "trixie: cryptoloop-xfer-dkms installs (added to DKMS, built for no 6.12 kernel) and purges cleanly" \
		eval 'apt_in "$root" install $(debs . cryptoloop-xfer-dkms) &&
			in_chroot "$root" dkms status cryptoloop-xfer | tee -a "$tap_log" | grep -q "cryptoloop-xfer/$UPVER: added" &&
			! find "$root/usr/lib/modules" -name "cryptoloop_xfer.ko*" | grep . &&
			apt_in "$root" purge cryptoloop-xfer-dkms && [ -z "$(in_chroot "$root" dkms status cryptoloop-xfer)" ]'
	pkg_tap_close
}
