# shellcheck shell=bash disable=SC2154,SC2034 # BUILD, CACHE, root...: tests/pkg/lib.sh's
# SPDX-License-Identifier: GPL-2.0-or-later
# The upgrade stage: the previous release's packages, built from the
# commit that released them, installed on trixie with a cryptoloop root
# line, then upgraded to this tree's: the maintainer scripts of both
# versions run for real (the losetup diversion, DKMS taking one module
# version away and building the next, the initramfs hook through
# initramfs-tools' trigger). Then all of it purged, and the system
# compared with itself before the install.

# The previous release, as it was shipped: its commit and its version
PREV_RELEASE_COMMIT=3b67dd724b37a44adfbab860adaa7826556245e4
PREV_RELEASE=0.1.0
UPGRADE_PKGS="cryptoloop cryptoloop-losetup cryptoloop-dkms cryptoloop-initramfs"

# prev_release_debs: prev_dir=the previous release's trixie .debs, built
# once from its commit in the buildd chroot and cached; 1 when this
# clone lacks that commit (a shallow clone)
prev_release_debs() {
	local log=$BUILD/vm-pkg-upgrade-build.log
	prev_dir=$CACHE/trixie/release-$PREV_RELEASE-${PREV_RELEASE_COMMIT:0:12}
	ls "$prev_dir"/cryptoloop_"$PREV_RELEASE"_*.deb >/dev/null 2>&1 && return 0
	git cat-file -e "$PREV_RELEASE_COMMIT^{commit}" 2>/dev/null || return 1
	# a subshell, as build_suite: its chroot goes when it ends
	(
		mounts=()
		tmpdirs=()
		trap cleanup EXIT
		overlay "$CACHE/trixie/build" trixie prev-release
		mkdir -p "$root/build/cryptoloop"
		git archive "$PREV_RELEASE_COMMIT" | tar -x -C "$root/build/cryptoloop"
		say "the previous release $PREV_RELEASE (${PREV_RELEASE_COMMIT:0:12}): dpkg-buildpackage in trixie, once (log $log)"
		in_chroot "$root" sh -c 'cd /build/cryptoloop && dpkg-buildpackage -us -uc -b' >"$log" 2>&1 ||
			{ tail -n 25 "$log" >&2; exit 1; }
		rm -rf "$prev_dir.tmp"
		mkdir -p "$prev_dir.tmp"
		cp "$root"/build/*.deb "$prev_dir.tmp/"
		mv "$prev_dir.tmp" "$prev_dir"
	) || die "building the previous release $PREV_RELEASE from ${PREV_RELEASE_COMMIT:0:12} failed (log $log)"
}

# what a purge must leave as it found it: the paths under /etc, /usr,
# /boot and /var/lib, less apt's lists and dpkg's own bookkeeping, and
# less dkms's signing key, which dkms makes at its first build and keeps
# on purpose (an enrolled key must outlive the packages it signed)
system_paths() {
	(cd "$root" && find etc usr boot var/lib -xdev \
		-path var/lib/apt/lists -prune -o -path var/lib/dpkg -prune -o \
		-path 'var/lib/dkms/mok.*' -prune -o -print) | sort
}

# kept_deps: the paths of the packages the install pulled in that apt
# keeps after purge --autoremove (a package installed before suggests or
# recommends them: APT::AutoRemove::SuggestsImportant), none of them ours
kept_deps() {
	local p
	in_chroot "$root" dpkg-query -W -f '${Package}\n' | sort >"$BUILD/vm-pkg-upgrade-pkgs-after.list"
	comm -13 "$BUILD/vm-pkg-upgrade-pkgs-before.list" "$BUILD/vm-pkg-upgrade-pkgs-after.list" \
		>"$BUILD/vm-pkg-upgrade-kept.list"
	! grep '^cryptoloop' "$BUILD/vm-pkg-upgrade-kept.list" || return 1
	# what they brought that was not there before (directories they
	# share with the system stay in the comparison)
	for p in $(cat "$BUILD/vm-pkg-upgrade-kept.list"); do
		in_chroot "$root" dpkg-query -L "$p" | sed 's|^/||'
	done | sort -u | comm -23 - "$BUILD/vm-pkg-upgrade-before.list"
}

# dkms_only VERSION K: DKMS holds cryptoloop VERSION alone, installed for K
dkms_only() {
	local st
	st=$(in_chroot "$root" dkms status cryptoloop)
	echo "dkms status: $st" >>"$tap_log"
	[ "$(echo "$st" | grep -c .)" = 1 ] && echo "$st" | grep -q "^cryptoloop/$1, $2, x86_64: installed"
}

# image_module_is_dkms K: the cryptoloop.ko in K's initramfs is the one
# DKMS installed for K
image_module_is_dkms() {
	local x=$root/tmp/initrd-x
	rm -rf "$x"
	in_chroot "$root" unmkinitramfs "/boot/initrd.img-$1" /tmp/initrd-x || return 1
	cmp "$(find "$x" -name 'cryptoloop.ko*' | head -n 1)" "$(dkms_ko "$1")"
}

# upgrade_cycle KROOT: the previous release installed, upgraded, purged
upgrade_cycle() {
	local kroot=$1 k d=/debs p
	pkg_tap upgrade-trixie
	tap_log=$BUILD/vm-pkg-upgrade-trixie.log
	: >"$tap_log"
	if ! prev_release_debs; then
		tap_skip "the previous release's commit ${PREV_RELEASE_COMMIT:0:12} is not in this clone (a shallow clone?)"
		pkg_tap_close
		return 0
	fi
	overlay "$kroot" trixie upgrade
	k=$(cat "$kroot/kver")
	mkdir -p "$root$d/prev" "$root$d/cur"
	for p in $UPGRADE_PKGS; do
		cp "$prev_dir/${p}_$PREV_RELEASE"_*.deb "$root$d/prev/"
		cp "$BUILD/debs/trixie/${p}_$VERSION"_*.deb "$root$d/cur/"
	done
	apt_in "$root" update >>"$tap_log" 2>&1 || { echo "pkg: SKIP: apt-get update in trixie failed" >&2; exit 77; }
	# the admin's system before: gpg, a cryptoloop root line, its key
	# file, an initramfs
	apt_in "$root" install gpg >>"$tap_log" 2>&1 || die "installing gpg in trixie failed"
	echo "UUID=11111111-2222-4333-8444-555555555555 / ext4 errors=remount-ro,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/boot/rootkey.gpg 0 1" \
		>>"$root/etc/fstab"
	cp tests/kat/pass/kf65.gpg "$root/boot/rootkey.gpg"
	in_chroot "$root" update-initramfs -c -k "$k" >>"$tap_log" 2>&1 || die "update-initramfs in trixie failed"
	system_paths >"$BUILD/vm-pkg-upgrade-before.list"
	in_chroot "$root" dpkg-query -W -f '${Package}\n' | sort >"$BUILD/vm-pkg-upgrade-pkgs-before.list"
	local sum_ul
	sum_ul=$(sha256sum <"$root/usr/sbin/losetup")

	check "trixie: install release $PREV_RELEASE ($UPGRADE_PKGS): DKMS builds cryptoloop/$PREV_RELEASE for $k, losetup is ours, 4 diversions" \
		eval 'apt_in "$root" install $(debs prev $UPGRADE_PKGS) && dkms_only "$PREV_RELEASE" "$k" &&
			in_chroot "$root" losetup --version | grep -qx "losetup from cryptoloop $PREV_RELEASE" && four_diversions'
	check "trixie: release $PREV_RELEASE's hook, through initramfs-tools' trigger: the image holds its module" \
		image_module_is_dkms "$k"
	check "trixie: upgrade $PREV_RELEASE -> $VERSION: DKMS took cryptoloop/$PREV_RELEASE away and built $UPVER for $k, losetup is the new one, 4 diversions" \
		eval 'apt_in "$root" install $(debs cur $UPGRADE_PKGS) && dkms_only "$UPVER" "$k" &&
			in_chroot "$root" losetup --version | grep -qx "losetup from cryptoloop $UPVER" && four_diversions &&
			[ ! -e "$root/usr/src/cryptoloop-$PREV_RELEASE" ]'
	check "trixie: after the upgrade, the image holds the module DKMS built for $UPVER" \
		image_module_is_dkms "$k"
	check "trixie: util-linux's losetup kept byte for byte under its diverted name through the upgrade" \
		eval 'same_as "$(in_chroot "$root" dpkg-divert --truename /usr/sbin/losetup)" "$sum_ul"'
	check "trixie: apt purge --autoremove of all four: no module, no diversion, dpkg --verify clean, util-linux's losetup back, the image without us" \
		eval 'apt_in "$root" purge --autoremove $UPGRADE_PKGS && no_module_left && no_diversion &&
			in_chroot "$root" dpkg --verify && same_as /usr/sbin/losetup "$sum_ul" && theirs &&
			! in_chroot "$root" lsinitramfs "/boot/initrd.img-$k" | grep -E "cryptoloop"'
	check "trixie: after the purge, the same paths under /etc, /usr, /boot and /var/lib as before the install, but for the dependencies apt keeps" \
		eval 'kept_deps >"$BUILD/vm-pkg-upgrade-kept.paths" && echo "kept: $(paste -sd" " "$BUILD/vm-pkg-upgrade-kept.list")" &&
			system_paths | grep -vxF -f "$BUILD/vm-pkg-upgrade-kept.paths" >"$BUILD/vm-pkg-upgrade-after.list" &&
			diff "$BUILD/vm-pkg-upgrade-before.list" "$BUILD/vm-pkg-upgrade-after.list"'
	pkg_tap_close
}
