# shellcheck shell=bash disable=SC2154,SC2034 # BUILD, CACHE, root...: tests/pkg/lib.sh's
# SPDX-License-Identifier: GPL-2.0-or-later
# The autopkgtest stage: debian/tests, run by autopkgtest itself on
# trixie's packages as this build made them. The testbed is a throwaway
# overlay of the trixie root with a kernel and its headers
# (tests/vm/host/fetch-kernel's), with the host's /dev bound in and its
# own /sys and /run: the device tests need loop devices, /dev/fuse and
# mount(2) on a real kernel (isolation-machine), and a qemu testbed
# without KVM would cost this tier minutes per test. autopkgtest reaches
# it through its ssh runner, an sshd in the overlay on a loopback port:
# trixie's null runner claims no isolation, and given it with
# --fake-capability it fails an assertion (autopkgtest 5.49); the ssh
# runner is the one made for a machine the caller provides.

# the tests debian/tests/control names, each of which must pass here
autopkgtest_names() {
	sed -n 's/^Tests: *//p' debian/tests/control | tr -s ', ' '\n' | grep .
}

# loop devices whose backing file lies in the testbed: what a test left
# attached (the host sees the path through the overlay's mount point)
testbed_loops() {
	local f
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] || continue
		case "$(cat "$f")" in "$root"/*) echo "/dev/$(basename "$(dirname "$(dirname "$f")")")" ;; esac
	done
}

# testbed_sshd: sshd in $root on a free loopback port ($port, pid
# $sshd_pid), root's key in its authorized_keys
testbed_sshd() {
	local i
	in_chroot "$root" ssh-keygen -A >>"$tap_log" 2>&1 || return 1
	mkdir -p "$root/run/sshd"
	mkdir -m 700 "$root/root/.ssh"
	in_chroot "$root" ssh-keygen -q -t ed25519 -N "" -f /root/.ssh/id_ed25519 || return 1
	cp "$root/root/.ssh/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
	# a host key made a moment ago: nothing to check it against
	printf 'Host 127.0.0.1\n\tStrictHostKeyChecking no\n\tUserKnownHostsFile /dev/null\n\tLogLevel ERROR\n' \
		>"$root/root/.ssh/config"
	for i in $(seq 20); do
		port=$((20000 + RANDOM % 20000))
		ss -Hltn "sport = :$port" | grep -q . || break
	done
	# chroot execs sshd: $! is the daemon itself
	chroot "$root" /usr/sbin/sshd -D -e -p "$port" -o ListenAddress=127.0.0.1 \
		-o PermitRootLogin=prohibit-password >>"$tap_log" 2>&1 &
	sshd_pid=$!
	for i in $(seq 50); do
		ss -Hltn "sport = :$port" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# autopkgtest_cycle KROOT
autopkgtest_cycle() {
	local kroot=$1 name out=/tmp/autopkgtest-out rc=0 left port sshd_pid
	pkg_tap autopkgtest-trixie
	tap_log=$BUILD/vm-pkg-autopkgtest-trixie.log
	: >"$tap_log"
	overlay "$kroot" trixie autopkgtest
	mount --bind /dev "$root/dev"
	mounts+=("$root/dev")
	mount -t sysfs sysfs "$root/sys"
	mounts+=("$root/sys")
	mount -t tmpfs -o mode=755 tmpfs "$root/run"
	mounts+=("$root/run")
	mkdir -p "$root/debs" "$root/build/src"
	cp "$BUILD/debs/trixie"/*_"$VERSION"_*.deb "$root/debs/"
	tree_tar | tar -x -C "$root/build/src"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	{ apt_in "$root" update && apt_in "$root" install autopkgtest openssh-server openssh-client; } >>"$tap_log" 2>&1 ||
		{ echo "pkg: SKIP: installing autopkgtest in trixie failed (log $tap_log)" >&2; exit 77; }
	testbed_sshd || die "no sshd for the autopkgtest testbed (log $tap_log)"
	say "autopkgtest (ssh runner, port $port) on trixie's packages: $(autopkgtest_names | paste -sd' ') (log $tap_log)"
	# shellcheck disable=SC2046 # the .debs' paths have no blanks
	in_chroot "$root" autopkgtest --output-dir "$out" --no-built-binaries \
		$(cd "$root" && printf '/%s\n' debs/*.deb) /build/src -- \
		ssh -H 127.0.0.1 -p "$port" -l root -i /root/.ssh/id_ed25519 --capability isolation-machine \
		>>"$tap_log" 2>&1 || rc=$?
	kill "$sshd_pid" 2>/dev/null || true
	wait "$sshd_pid" 2>/dev/null || true
	cp "$root$out/summary" "$BUILD/vm-pkg-autopkgtest-summary" 2>/dev/null || true
	check "trixie: autopkgtest ran the whole suite (exit $rc: 0, all passed)" [ "$rc" = 0 ]
	for name in $(autopkgtest_names); do
		check "trixie: autopkgtest $name: PASS" \
			grep -Eq "^$name +PASS" "$BUILD/vm-pkg-autopkgtest-summary"
	done
	left=$(testbed_loops)
	# shellcheck disable=SC2016 # expanded by check's eval
	check "trixie: the tests left no loop device and no mount of their own" \
		eval '[ -z "$left" ] && ! grep -E " $root/(tmp|run)/" /proc/mounts'
	# never leave them for the next stage, passing or not
	for name in $left; do losetup -d "$name" || true; done
	pkg_tap_close
}
