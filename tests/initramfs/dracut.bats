#!/usr/bin/env bats
# dracut's module 50cryptoloop and the image's mode.  dracut writes the
# image under umask 077, but up to 106 (Debian 13's) it copies it over an
# existing image, keeping that file's mode: a 0644 image (made by
# initramfs-tools before dracut was installed) stays 0644, with the
# root's gpg key file in it.  The module's install() is run here with
# stand-ins for dracut's functions (dracut is not on the host; the VM's
# tests/boot/root-boot-dracut runs the real one).
bats_require_minimum_version 1.5.0

load helpers

UNLOCK="$top_builddir/mount/cryptoloop-unlock"

setup() {
	[ -x "$UNLOCK" ] || skip "$UNLOCK not built"
	common_setup dracut-module
	sed -e "s|@sbindir[@]|$top_builddir/mount|g" -e 's|@LOSETUP_NAME[@]|losetup|g' \
		"$top_srcdir/dracut/50cryptoloop/module-setup.sh.in" >"$TESTDIR/module-setup.sh"
	mkdir -p "$TESTDIR/sysroot/etc" "$TESTDIR/initdir"
	cat >"$TESTDIR/stubs.bash" <<-'EOT'
	dfatal() { echo "F: $*" >&2; }
	dwarn() { echo "W: $*" >&2; }
	dinfo() { :; }
	inst_binary() { :; }
	inst_multiple() { :; }
	inst_simple() { :; }
	inst_rules() { :; }
	inst_script() { :; }
	# the build's unlock is a libtool wrapper: libloop's directory as
	# the installed program's ldd would show it
	ldd() { printf '\tlibloop.so.0 => %s/lib/libloop.so.0 (0x0)\n' "$TESTDIR"; }
	SYSTEMCTL=true
	EOT
	# an image made before, readable by every user
	echo old >"$TESTDIR/initrd.img"
	chmod 0644 "$TESTDIR/initrd.img"
}

teardown() {
	common_teardown
}

# run_install OPTIONS: install() for a root line with OPTIONS, the image
# $TESTDIR/initrd.img
run_install() {
	printf 'UUID=1234-abcd / ext4 x-cryptoloop.source=/dev/clt-none,x-cryptoloop.encryption=AES128,x-cryptoloop.engine=dm,%s 0 1\n' \
		"$1" >"$TESTDIR/sysroot/etc/fstab"
	run --separate-stderr env TESTDIR="$TESTDIR" dracutsysrootdir="$TESTDIR/sysroot" \
		initdir="$TESTDIR/initdir" outfile="$TESTDIR/initrd.img" kernel=none \
		bash -c '. "$TESTDIR/stubs.bash" && . "$TESTDIR/module-setup.sh" && install'
}

@test "dracut: an existing image readable by others is made 0600 before the gpg key file goes in" {
	: >"$TESTDIR/k.gpg"
	run_install "x-cryptoloop.gpgkey=$TESTDIR/k.gpg"
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	[[ "$stderr" == *"W: 50cryptoloop: $TESTDIR/initrd.img could be read by other users"* ]] ||
		fail "stderr: $stderr"
	run stat -c %a "$TESTDIR/initrd.img"
	[ "$output" = 600 ] || fail "the image's mode is $output"
}

@test "dracut: with the key on a key device the image's mode is left alone" {
	run_install x-cryptoloop.gpgkey=/k.gpg,x-cryptoloop.keydev=LABEL=KEYS
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	[ -z "$stderr" ] || fail "stderr: $stderr"
	run stat -c %a "$TESTDIR/initrd.img"
	[ "$output" = 644 ]
}
