# The initramfs-tools suites: the boot script run by dash in a chroot
# that looks like an initramfs.  The chroot has the host's /usr and /dev/null
# (bound in a private mount namespace, gone with the test) and its own /conf,
# /scripts and /cryptoloop, so what the script writes and what init would
# source stay in $TESTDIR.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.bash"

: "${top_srcdir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"

# initrd_setup: $ROOTDIR, with the real local-top script, stand-ins for
# initramfs-tools' /scripts/functions and for cryptoloop-unlock (which
# prints /cryptoloop/check.out for --check and /cryptoloop/unlock.out
# otherwise)
initrd_setup() {
	need_root "a chroot"
	command -v dash >/dev/null || skip "needs dash, the sh of Debian's initramfs"
	command -v unshare >/dev/null || skip "needs unshare"
	common_setup initramfs
	ROOTDIR=$TESTDIR/root
	mkdir -p "$ROOTDIR"/{usr,dev,conf,scripts/local-top,cryptoloop,fakebin,tmp}
	: >"$ROOTDIR/dev/null"
	local d
	for d in bin sbin lib lib64; do
		ln -s "usr/$d" "$ROOTDIR/$d"
	done
	cp "$top_srcdir/initramfs/scripts/local-top/cryptoloop" "$ROOTDIR/scripts/local-top/"
	cat >"$ROOTDIR/scripts/functions" <<-'EOT'
	wait_for_udev() { :; }
	resolve_device() { [ -e /cryptoloop/resolves ]; }
	panic() { echo "panic: $*" >&2; exit 1; }
	log_warning_msg() { echo "warning: $*" >&2; }
	EOT
	cat >"$ROOTDIR/fakebin/cryptoloop-unlock" <<-'EOT'
	#!/bin/sh
	[ "$3" = --check ] && exec cat /cryptoloop/check.out
	exec cat /cryptoloop/unlock.out
	EOT
	printf '#!/bin/sh\nexit 0\n' >"$ROOTDIR/fakebin/modprobe"
	printf '#!/bin/sh\nexit 1\n' >"$ROOTDIR/fakebin/plymouth"
	chmod +x "$ROOTDIR"/fakebin/*
	: >"$ROOTDIR/conf/param.conf"
}

# in_initrd CMD...: CMD in the chroot, with an initramfs' empty
# environment
in_initrd() {
	unshare -m /bin/sh -c 'mount --bind /usr "$1/usr" && mount --bind /dev/null "$1/dev/null" &&
		shift && exec chroot "$@"' \
		sh "$ROOTDIR" "$ROOTDIR" /usr/bin/env -i PATH=/fakebin:/usr/sbin:/usr/bin "$@"
}

# in_initrd_params: what init's dash would see of ROOT and ROOTFSTYPE
# after sourcing /conf/param.conf, one line each
in_initrd_params() {
	in_initrd /usr/bin/dash -c '. /conf/param.conf && printf "%s\n" "${ROOT-unset}" "${ROOTFSTYPE-unset}"'
}
