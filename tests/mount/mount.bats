#!/usr/bin/env bats
# mount.cryptoloop / umount.cryptoloop through stock mount(8), with a
# temporary fstab, on the FUSE engine. Passphrases go through fd 3.
bats_require_minimum_version 1.5.0

load ../e2e/helpers

HELPERS_MARK=/run/cryptoloop-test-helpers

# mount(8) runs helpers from /sbin only: put this build's there for the
# run, unless the administrator installed their own.
setup_file() {
	: "${top_builddir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
	if [ -e /sbin/mount.cryptoloop ] && [ ! -e "$HELPERS_MARK" ]; then
		return 0
	fi
	touch "$HELPERS_MARK"
	install -m 0755 "$top_builddir/mount/mount.cryptoloop" /sbin/mount.cryptoloop
	install -m 0755 "$top_builddir/mount/umount.cryptoloop" /sbin/umount.cryptoloop
}

teardown_file() {
	if [ -e "$HELPERS_MARK" ]; then
		rm -f /sbin/mount.cryptoloop /sbin/umount.cryptoloop "$HELPERS_MARK"
	fi
}

setup() {
	e2e_setup
	[ -e "$HELPERS_MARK" ] || skip "/sbin/mount.cryptoloop is someone else's install"
	export CRYPTOLOOP_LOSETUP="$LOSETUP"
	IMG=$(image 64M secret.img)
	dev=$(attach -e AES256 -p 3 "$IMG")
	mkfs.ext4 -q "$dev"
	detach "$dev"
	FSTAB="$TESTDIR/fstab"
	echo "$IMG $MNT cryptoloop cipher=AES256,passfd=3,noauto 0 0" > "$FSTAB"
}

teardown() {
	e2e_teardown
}

# no device of ours may stay attached
nothing_attached() {
	! "$LOSETUP" -a | grep -q "$TESTDIR/" || fail "a device of ours is left attached"
}

@test "fstab: mount and umount cycles keep the data and leave no device" {
	for i in 1 2 3; do
		LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
		mountpoint -q "$MNT"
		grep -q "TARGET=$MNT .*uhelper=cryptoloop" /run/mount/utab
		if [ "$i" -gt 1 ]; then
			[ "$(cat "$MNT/round")" = $((i - 1)) ]
		fi
		echo "$i" > "$MNT/round"
		# a plain umount comes back to umount.cryptoloop, which detaches
		umount "$MNT"
		run ! mountpoint -q "$MNT"
		nothing_attached
	done
}

@test "a wrong passphrase never mounts and never writes" {
	before=$(sha256sum < "$IMG")
	printf '%s\n' "this is not the passphrase at all" > "$TESTDIR/wrong"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/wrong"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"no filesystem found on the decrypted device"*"wrong passphrase or cipher?"* ]]
	run ! mountpoint -q "$MNT"
	nothing_attached
	[ "$(sha256sum < "$IMG")" = "$before" ]
}

@test "mount -t cryptoloop from the command line, read-only" {
	mount -t cryptoloop -o cipher=AES256,passfd=3,ro "$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$(findmnt -n -o OPTIONS "$MNT" | cut -d, -f1)" = ro ]
	dev=$(findmnt -n -o SOURCE "$MNT")
	[ "$("$LOSETUP" -n -O RO "$dev" | tr -d ' ')" = 1 ]
	run touch "$MNT/new"
	[ "$status" -ne 0 ]
	umount "$MNT"
	nothing_attached
}

@test "legacy encryption= in fstab is found by the helper's own lookup" {
	# libmount strips encryption= before the helper runs
	echo "$IMG $MNT cryptoloop encryption=AES256,passfd=3,noauto 0 0" > "$FSTAB"
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	mountpoint -q "$MNT"
	umount "$MNT"
	nothing_attached
}

@test "bad and conflicting options: clear errors, nothing mounted or attached" {
	# mount(8) strips encryption= itself; the helper sees it when run directly
	run --separate-stderr /sbin/mount.cryptoloop "$IMG" "$MNT" \
		-o cipher=AES256,encryption=aes,passfd=3 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad option 'encryption=aes'"* ]]
	run --separate-stderr mount -t cryptoloop -o cipher=AES256,cipher=aes,passfd=3 \
		"$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad option 'cipher=aes'"* ]]
	run --separate-stderr mount -t cryptoloop -o passfd=3 "$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"no cipher given"* ]]
	run --separate-stderr mount -t cryptoloop -o cipher=AES256,keybits "$IMG" "$MNT"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad option 'keybits'"* ]]
	run --separate-stderr mount -t cryptoloop -o cipher=rot13,passfd=3 "$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *rot13* ]]
	run --separate-stderr mount -t cryptoloop -o cipher=AES256,passfd=3 \
		"$TESTDIR/missing.img" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$TESTDIR/missing.img"* ]]
	run ! mountpoint -q "$MNT"
	nothing_attached
}

@test "mount -a: noauto entries stay unmounted, nofail tolerates a missing image" {
	mkdir -p "$TESTDIR/m2"
	cat > "$FSTAB" <<-EOT
	$IMG $MNT cryptoloop cipher=AES256,passfd=3,noauto 0 0
	$TESTDIR/missing.img $TESTDIR/m2 cryptoloop cipher=AES256,passfd=3,nofail 0 0
	EOT
	mount -a -T "$FSTAB" 3< "$TESTDIR/pass"
	run ! mountpoint -q "$MNT"
	run ! mountpoint -q "$TESTDIR/m2"
	nothing_attached
}

@test "setuid-invoked, the helper ignores CRYPTOLOOP_LOSETUP from the user's environment" {
	command -v setpriv > /dev/null || skip "setpriv (util-linux) missing"
	dir="$TESTDIR/suid"
	mkdir -m 755 "$dir"
	chmod 755 "$TESTDIR"
	install -m 4755 "$top_builddir/mount/mount.cryptoloop" "$dir/mount.cryptoloop"
	# -p: dash keeps the root euid, as a compiled program would
	printf '#!/bin/sh -p\ntouch %s/ran\nexit 1\n' "$dir" > "$dir/losetup"
	chmod 755 "$dir/losetup"
	# control: run by root, the variable is honoured
	run env CRYPTOLOOP_LOSETUP="$dir/losetup" "$dir/mount.cryptoloop" "$IMG" "$MNT" \
		-o cipher=AES256,passfd=0
	[ -e "$dir/ran" ] || fail "control: CRYPTOLOOP_LOSETUP was not used at all"
	rm "$dir/ran"
	# a user through the setuid bit: the variable must not choose what runs
	run setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env CRYPTOLOOP_LOSETUP="$dir/losetup" "$dir/mount.cryptoloop" "$IMG" "$MNT" \
		-o cipher=AES256,passfd=0
	[ ! -e "$dir/ran" ] || fail "a user's CRYPTOLOOP_LOSETUP ran as root"
	run ! mountpoint -q "$MNT"
	nothing_attached
}
