# shellcheck shell=bash disable=SC2154 # BUILD, CACHE, root...: tests/pkg/lib.sh's
# SPDX-License-Identifier: GPL-2.0-or-later
# The initramfs stage, inside the dkms stage's trixie chroot (the hook
# needs the module DKMS built there).

# initramfs_checks K: cryptoloop-initramfs on trixie, where DKMS built the
# module for kernel K: its hook with a cryptoloop root line in fstab (made
# in the chroot, as a fresh install would), refusing a gpg key file
# without gpg and a cleartext key file without a key device, then the
# image's contents; purged, an image without them
image_has() {
	local f
	for f; do
		grep -qxE "$f" "$BUILD/vm-pkg-initramfs.list" || { echo "not in the image: $f"; return 1; }
	done
}
initramfs_checks() {
	# shellcheck disable=SC2034 # k, d: in the eval'd checks
	local k=$1 d=/debs
	local line="UUID=11111111-2222-4333-8444-555555555555 / ext4 errors=remount-ro,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/boot/rootkey.gpg 0 1"
	cp "$root/etc/fstab" "$root/etc/fstab.orig"
	echo "$line" >>"$root/etc/fstab"
	cp tests/kat/pass/kf65.gpg "$root/boot/rootkey.gpg"
	check "trixie: install cryptoloop-initramfs (initramfs-tools-core, no gpg): update-initramfs refuses a gpg root line, saying gpg is missing" \
		eval 'apt_in "$root" install $(debs . cryptoloop cryptoloop-initramfs) &&
			! in_chroot "$root" update-initramfs -c -k "$k" >"$BUILD/vm-pkg-initramfs.out" 2>&1;
			cat "$BUILD/vm-pkg-initramfs.out"; grep -q "/etc/fstab:[0-9]*: x-cryptoloop.gpgkey= for /, but gpg is not installed" "$BUILD/vm-pkg-initramfs.out" && grep -q "E: cryptoloop: the root line of /etc/fstab cannot be used" "$BUILD/vm-pkg-initramfs.out"'
	sed "s|x-cryptoloop.gpgkey=/boot/rootkey.gpg|x-cryptoloop.keyfile=/boot/rootkey.txt|" \
		"$root/etc/fstab" >"$root/etc/fstab.keyfile"
	check "trixie: update-initramfs refuses a cleartext key file without a key device (it would sit beside the image)" \
		eval 'cp "$root/etc/fstab" "$root/etc/fstab.gpg" && cp "$root/etc/fstab.keyfile" "$root/etc/fstab" &&
			echo 0123456789abcdef0123456789abcdef >"$root/boot/rootkey.txt" &&
			! in_chroot "$root" update-initramfs -c -k "$k" >"$BUILD/vm-pkg-initramfs.out" 2>&1;
			mv "$root/etc/fstab.gpg" "$root/etc/fstab"; rm -f "$root/etc/fstab.keyfile" "$root/boot/rootkey.txt";
			cat "$BUILD/vm-pkg-initramfs.out"; grep -q "/etc/fstab:[0-9]*: x-cryptoloop.keyfile=/boot/rootkey.txt: .*protects nothing" "$BUILD/vm-pkg-initramfs.out" && grep -q "E: cryptoloop: the root line of /etc/fstab cannot be used" "$BUILD/vm-pkg-initramfs.out"'
	check "trixie: with gpg, the image holds cryptoloop-unlock, libloop, the module, gpg, the key file and the root line" \
		eval 'apt_in "$root" install gpg && in_chroot "$root" update-initramfs -c -k "$k" &&
			in_chroot "$root" lsinitramfs "/boot/initrd.img-$k" >"$BUILD/vm-pkg-initramfs.list" &&
			image_has usr/sbin/cryptoloop-unlock "usr/lib/.*/cryptoloop/libloop\.so\.[0-9]+" \
				"usr/lib/modules/[^/]+/updates/dkms/cryptoloop\.ko.*" usr/bin/gpg boot/rootkey.gpg cryptoloop/fstab'
	check "trixie: apt purge cryptoloop-initramfs: the next image has none of it" \
		eval 'apt_in "$root" purge cryptoloop-initramfs && in_chroot "$root" update-initramfs -u -k "$k" &&
			! in_chroot "$root" lsinitramfs "/boot/initrd.img-$k" | grep -E "cryptoloop-unlock|rootkey|^cryptoloop/"'
	mv "$root/etc/fstab.orig" "$root/etc/fstab"
	rm -f "$root/boot/rootkey.gpg"
}

