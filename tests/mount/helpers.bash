# The mount helper suites: this build's mount.cryptoloop and
# umount.cryptoloop where mount(8) looks for them.  attach, track and
# teardown come from tests/e2e/helpers.bash.
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/helpers.bash"

HELPERS_MARK=/run/cryptoloop-test-helpers

# helpers_install: mount(8) runs helpers from /sbin only: put shims for
# this build's there for the file's tests, unless the administrator
# installed their own (then helpers_ours fails).  The helpers link libloop,
# so they are libtool wrappers, which run only where they are.  For root,
# a shim first appends its arguments and the LIBMOUNT_FSTAB it was given to
# $CLT_HELPER_LOG, and runs $CLT_MOUNT_CRYPTOLOOP or $CLT_UMOUNT_CRYPTOLOOP
# instead of the build's helper when that is set: how a test sees what
# mount(8) passed, and runs the helper with another libmount.
helpers_install() {
	: "${top_builddir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
	if [ -e /sbin/mount.cryptoloop ] && [ ! -e "$HELPERS_MARK" ]; then
		return 0
	fi
	touch "$HELPERS_MARK"
	local h var
	for h in mount.cryptoloop umount.cryptoloop; do
		var=CLT_$(echo "${h%.*}" | tr '[:lower:]' '[:upper:]')_CRYPTOLOOP
		cat > "/sbin/$h" <<-EOT
		#!/bin/sh
		if [ "\$(id -u)" = 0 ]; then
			[ -z "\${CLT_HELPER_LOG:-}" ] ||
				echo "$h \$* LIBMOUNT_FSTAB=\${LIBMOUNT_FSTAB:-}" >> "\$CLT_HELPER_LOG"
			[ -z "\${$var:-}" ] || exec "\$$var" "\$@"
		fi
		exec $(printf %q "$top_builddir/mount/$h") "\$@"
		EOT
		chmod 0755 "/sbin/$h"
	done
}

helpers_remove() {
	if [ -e "$HELPERS_MARK" ]; then
		rm -f /sbin/mount.cryptoloop /sbin/umount.cryptoloop "$HELPERS_MARK"
	fi
}

# helpers_ours: the helpers in /sbin are this build's shims
helpers_ours() {
	[ -e "$HELPERS_MARK" ]
}

# no device of ours may stay attached
nothing_attached() {
	! "$LOSETUP" -a | grep -q "$TESTDIR/" || fail "a device of ours is left attached"
}

# mount_setup: e2e's setup (skipped where the administrator's helpers are
# installed), $IMG an image holding ext4 under AES256 with the passphrase
# on fd 3, and $FSTAB the path of the test's own fstab
mount_setup() {
	e2e_setup
	helpers_ours || skip "/sbin/mount.cryptoloop is someone else's install"
	IMG=$(image 64M secret.img)
	dev=$(attach -e AES256 -p 3 "$IMG")
	mkfs.ext4 -q "$dev"
	detach "$dev"
	FSTAB="$TESTDIR/fstab"
}

# same ACTUAL EXPECTED: say both when they differ
same() {
	[ "$1" = "$2" ] || fail "got:      $1"$'\n'"expected: $2"
}
