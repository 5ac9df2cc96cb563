# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2154,SC2034 # here, prog: the caller's; image, kver, work, root, remove_module, installed_from: for it
# What the real boots share (tests/boot/systemd-boot, root-boot,
# root-boot-dracut): the cached Debian 13 tree, a throwaway overlay over
# it with our software installed, commands in that root, and one qemu
# boot driven through its serial console by tests/boot/boot-console.
#
# Sourced by a script that has set:
#   here   tests/boot (absolute)
#   prog   its name, for messages
#   BUILD  the build directory (absolute): logs, TAP and consoles go there
# and then calls, in order:
#   boot_image [IMAGE-SCRIPT]   image=the tree, kver=its kernel (exit 77
#                               when the tree cannot be made)
#   boot_work                   work=a private dir under /var/tmp, root=
#                               $work/root; both go at exit
#   boot_overlay                mount an overlay of $image on $root
#   boot_install DEBDIR LOG [PKG...]
#                               our software into $root; see below
#   in_root CMD...              a command chrooted into $root
#   image_lacks LISTING         what cryptoloop-unlock --image-list names
#                               for the tree's root line and the image
#                               whose file list is LISTING lacks
#   boot_unmount                the overlay away (after mkfs.ext4 -d)
#   boot_qemu BASE SCRIPT KERNEL INITRD APPEND [QEMU-ARG...]
#                               one boot: TAP in BUILD/BASE.tap, console
#                               in BUILD/BASE.log*

src=$(cd "$here/../.." && pwd)
t0=$SECONDS
say() { echo "$prog: [+$((SECONDS - t0))s] $*" >&2; }
die() { echo "$prog: $*" >&2; exit 1; }

boot_image() {
	local script=${1:-boot-image} rc=0
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing"
	command -v aespipe >/dev/null || die "aespipe missing (tests/vm/host/install-deps)"
	image=$("$here/$script") || rc=$?
	if [ "$rc" -ne 0 ]; then
		[ "$rc" = 77 ] && echo "$prog: SKIP: no image" >&2
		exit "$rc"
	fi
	kver=$(cat "$image/kver")
}

boot_mounts=()
# shellcheck disable=SC2317 # called by the EXIT trap
boot_cleanup() {
	local i
	for ((i = ${#boot_mounts[@]} - 1; i >= 0; i--)); do
		! mountpoint -q "${boot_mounts[$i]}" || umount "${boot_mounts[$i]}"
	done
	rm -rf "$work"
}
boot_work() {
	work=$(mktemp -d /var/tmp/clboot.XXXXXX)
	root=$work/root
	trap boot_cleanup EXIT
	trap 'exit 130' INT TERM
}

boot_overlay() {
	mkdir -p "$work/upper" "$work/ovl" "$root"
	mount -t overlay overlay -o "lowerdir=$image,upperdir=$work/upper,workdir=$work/ovl" "$root" ||
		die "cannot mount an overlay over $image"
	boot_mounts+=("$root")
	# Debian's getty-static (gettys on tty2-tty6 when there is no dbus)
	# runs systemctl start while systemd is busy booting; under TCG that
	# call failed once (a failed unit for no-failed to report) and the
	# tests drive the serial console only
	ln -sf /dev/null "$root/etc/systemd/system/getty-static.service"
}

boot_unmount() {
	umount "$root"
	rm -rf "$work/upper" "$work/ovl"
}

# /proc, /dev and /sys in a private mount namespace: they go away with
# the command, even when something it started (gpg-agent) outlives it
# shellcheck disable=SC2016 # expanded by the inner sh
in_root() {
	unshare --mount --propagation private sh -c 'r=$1; shift
		mount -t proc proc "$r/proc" && mount --bind /dev "$r/dev" &&
		mount -t sysfs sys "$r/sys" &&
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"' sh "$root" "$@"
}

# image_lacks LISTING: each item of `cryptoloop-unlock --image-list` for
# the tree's root line and $kver that the image's file list LISTING
# (lsinitramfs's paths, or lsinitrd's ls -l lines) does not hold, one per
# line; exit 1 if any. Paths compare with /usr/ merged; an optional module
# may be missing from the kernel.
image_lacks() {
	local listing=$1 kind value missing=0
	in_root cryptoloop-unlock --image-list --kernel "$kver" / >"$work/image-needs" ||
		{ echo "cryptoloop-unlock --image-list failed"; return 1; }
	# lsinitrd shows a symlink as "NAME -> TARGET": the name is the path
	sed -E 's| -> .*||; s|.* ||; s|^/||; s|^usr/||' "$listing" | sort -u >"$work/image-paths"
	while read -r kind value; do
		case $kind in
		program | library | keyfile)
			value=${value#/} value=${value#usr/}
			grep -qxF "$value" "$work/image-paths" ;;
		module) grep -qE "/$(printf '%s' "$value" | sed 's/[-_]/[-_]/g')\.ko" "$work/image-paths" ;;
		udev-rules) grep -qxF "lib/udev/rules.d/$value" "$work/image-paths" ;;
		*) true ;;
		esac || { echo "$kind $value"; missing=1; }
	done <"$work/image-needs"
	return "$missing"
}

# boot_install DEBDIR LOG [PKG...]: DEBDIR's cryptoloop, cryptoloop-losetup,
# cryptoloop-dkms and each PKG installed with dpkg (all of them must be
# there: a run without one would prove something else), DKMS building the
# module for $kver; without DEBDIR, the sources configured for /usr, "make
# install" and the module with DKMS from "make dkms-source": what the
# packages hold, without the packaging.  Sets remove_module (the command
# that takes the module away again) and installed_from.
boot_install() {
	local debdir=$1 log=$2 want p ib ver
	shift 2
	local debs=()
	if [ -n "$debdir" ]; then
		want=(cryptoloop cryptoloop-losetup cryptoloop-dkms "$@")
		for p in "${want[@]}"; do
			# the tools, losetup in util-linux's place, the module
			# through DKMS (not cryptoloop-xfer-dkms: 6.12's loop
			# driver has no transfer hooks)
			set -- "$debdir/${p}"_*.deb
			[ -e "$1" ] || die "$debdir: no ${p}_*.deb (${want[*]} expected)"
			debs+=("$1")
		done
		say "installing ${debs[*]##*/}"
		mkdir -p "$root/var/tmp/debs"
		cp "${debs[@]}" "$root/var/tmp/debs/"
		in_root sh -c 'dpkg -i /var/tmp/debs/*.deb' >"$log" 2>&1 ||
			{ tail -n 30 "$log" >&2; die "dpkg -i failed ($log)"; }
		rm -rf "$root/var/tmp/debs"
		# dkms builds for the running kernel (the host's, here) unless told
		if ! ls "$root/lib/modules/$kver/updates/dkms/"cryptoloop.ko* >/dev/null 2>&1; then
			in_root dkms autoinstall -k "$kver" >>"$log" 2>&1 ||
				die "dkms autoinstall for $kver failed ($log)"
		fi
		remove_module="dpkg -r cryptoloop-dkms"
		installed_from=".debs from $debdir"
	else
		say "no .debs: installing BUILD's sources configured for /usr"
		ib=$work/usr-build
		mkdir -p "$ib"
		(cd "$ib" && "$src/configure" -q --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
			--enable-kmod=no --with-helperdir=/usr/sbin \
			--with-systemdgeneratordir=/usr/lib/systemd/system-generators &&
			make -j2 && make install DESTDIR="$root" && make dkms-source DESTDIR="$root") \
			>"$log" 2>&1 ||
			{ tail -n 30 "$log" >&2; die "build/install failed ($log)"; }
		ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$ib/kmod/dkms.conf")
		in_root dkms install -m cryptoloop -v "$ver" -k "$kver" >>"$log" 2>&1 ||
			{ tail -n 30 "$log" >&2; die "dkms install failed"; }
		in_root ldconfig
		remove_module="dkms remove cryptoloop/$ver --all"
		installed_from="make install of $src (no .debs)"
	fi
	ls "$root/lib/modules/$kver/updates/dkms/"cryptoloop.ko* >/dev/null 2>&1 ||
		die "no cryptoloop module for $kver after the install"
}

# boot_new_kernel LOG: a newer kernel than $kver installed into the tree
# as an admin upgrades one, after our packages: trixie-backports added,
# "apt install -t trixie-backports linux-image-amd64 linux-headers-amd64",
# the kernel's own postinst running DKMS and update-initramfs (and so our
# hook). The .debs are kept in a cache outside the tree. Sets knew, and
# knew_re (the same as an extended regular expression).
boot_new_kernel() {
	local log=$1 mirror archives
	mirror=$("$src/tools/debian-mirror") || die "the host's apt names no Debian archive"
	archives=${CLVM_KERNEL_CACHE:-/var/cache/cryptoloop-vm}/trixie-boot/archives
	mkdir -p "$archives/partial"
	mount --bind "$archives" "$root/var/cache/apt/archives"
	boot_mounts+=("$root/var/cache/apt/archives")
	echo "deb $mirror trixie-backports main" >"$root/etc/apt/sources.list.d/trixie-backports.list"
	say "apt install -t trixie-backports linux-image-amd64 linux-headers-amd64 in the tree (log $log)"
	{ in_root apt-get -q -y update &&
		in_root apt-get -q -y -o APT::Install-Recommends=false -t trixie-backports \
			install linux-image-amd64 linux-headers-amd64; } >"$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; die "installing trixie-backports' kernel failed ($log)"; }
	umount "$root/var/cache/apt/archives"
	knew=$(cd "$root/boot" && printf '%s\n' vmlinuz-* | sed 's/^vmlinuz-//' | grep -vxF "$kver" | sort -V | tail -n 1)
	if [ -z "$knew" ] || [ ! -d "$root/lib/modules/$knew" ]; then
		die "no new kernel in the tree after the install ($log)"
	fi
	# for grep -E: Debian's releases hold a "+"
	knew_re=$(printf '%s' "$knew" | sed 's/[.+]/\\&/g')
}

# boot_data_disk: an fstab data line's disk, $work/data.img (vdd after
# the root, /boot and swap disks): ext4 holding hello.txt, encrypted by
# aespipe (multi-key v3 from 65 cleartext key lines), whose key file the
# tree gets at /etc/cryptoloop/data.keys (on the encrypted root: no
# second question at boot). boot_data_lines prints the data line and a
# random-key swap line (kmod only) on /dev/vdc.
boot_data_disk() {
	mkdir -p "$root/srv/data" "$root/etc/cryptoloop" "$work/data.files"
	install -m 0600 "$src/tests/kat/pass/keys65.txt" "$root/etc/cryptoloop/data.keys"
	echo "data made on the host" >"$work/data.files/hello.txt"
	truncate -s 64M "$work/data.plain"
	mkfs.ext4 -q -d "$work/data.files" "$work/data.plain" || die "mkfs.ext4 of the data disk failed"
	aespipe -e aes128 -p 3 <"$work/data.plain" >"$work/data.img" 3<"$src/tests/kat/pass/keys65.txt" ||
		die "aespipe of the data disk failed"
	rm -f "$work/data.plain"
	truncate -s 64M "$work/swap.img"
}
# The swap line's device may wait 5 min, not systemd's 90 s: beside the
# host's lane a TCG guest gets half a core, and a first boot of a new
# kernel once set the device up at 89 s, after the job had given up.
boot_data_lines() {
	echo "/dev/vdd /srv/data cryptoloop cipher=AES128,keyfile=/etc/cryptoloop/data.keys 0 2"
	echo "/dev/cryptoloop3 none swap sw,x-cryptoloop.source=/dev/vdc,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random,x-systemd.device-timeout=5min 0 0"
}

# the CPU the other guests get, and why: tests/vm/host/vm-lib.sh
boot_tcg_cpu=$(sed -n 's/^vm_tcg_cpu=//p' "$here/../vm/host/vm-lib.sh")

# boot_qemu BASE SCRIPT KERNEL INITRD APPEND [QEMU-ARG...]: one boot under
# TCG (thread=single: multi-threaded TCG panics now and then; norandmaps:
# without ASLR, TCG translates the code of ld.so, libc and systemd once,
# not once per process, see tests/vm/host/vm-lib.sh), the serial
# console driven by SCRIPT (tests/boot/boot-console); the disks and any
# other device come as QEMU-ARGs.  Prints the TAP lines indented on stderr;
# status 0 when every step passed.
boot_qemu() {
	local base=$1 script=$2 kernel=$3 initrd=$4 append=$5 sock=$work/console.sock rc=0
	shift 5
	rm -f "$sock"
	python3 "$here/boot-console" --log "$BUILD/$base.log" --script "$script" \
		--socket "$sock" -- qemu-system-x86_64 -accel tcg,thread=single -cpu "$boot_tcg_cpu" \
		-m 1024 -smp 1 -display none -monitor none -no-reboot \
		-chardev "socket,id=con,path=$sock,server=on,wait=on" -serial chardev:con \
		-kernel "$kernel" -initrd "$initrd" -append "console=ttyS0 norandmaps $append" \
		"$@" >"$BUILD/$base.tap" 2>>"$BUILD/$base.log.err" || rc=1
	sed "s/^/  $base: /" "$BUILD/$base.tap" >&2
	return "$rc"
}

# boot_time BASE NAME: the last "# time NAME" of a boot (seconds)
boot_time() { sed -n "s/^# time $2 //p" "$BUILD/$1.tap" 2>/dev/null | tail -n 1; }
