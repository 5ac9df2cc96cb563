#!/usr/bin/env bats
# initramfs-tools' side of the root key file: the image mkinitramfs
# writes is readable by root alone with conf-hooks.d/cryptoloop, and the
# hook refuses to put a gpg key file into an image others could read.
# mkinitramfs and the hook read fixed paths (/etc/fstab,
# /usr/share/initramfs-tools): the test's files are bound over them in a
# private mount namespace, gone with the command.
bats_require_minimum_version 1.5.0

load helpers

UNLOCK="$top_builddir/mount/cryptoloop-unlock"

setup() {
	need_root "bind mounts over /etc/fstab in a mount namespace"
	command -v unshare >/dev/null || skip "needs unshare"
	common_setup initramfs-hook
}

teardown() {
	common_teardown
}

# the hook as make builds it, running this build's cryptoloop-unlock
hook_build() {
	[ -x "$UNLOCK" ] || skip "$UNLOCK not built"
	sed -e "s|@sbindir[@]|$top_builddir/mount|g" -e 's|@LOSETUP_NAME[@]|losetup|g' \
		"$top_srcdir/initramfs/hooks/cryptoloop.in" >"$TESTDIR/hook"
	chmod +x "$TESTDIR/hook"
	: >"$TESTDIR/key.gpg"
	chmod 0600 "$TESTDIR/key.gpg"
	mkdir -p "$TESTDIR/dest"
}

# run_hook UMASK OPTIONS: the hook under UMASK with a root line carrying
# OPTIONS as /etc/fstab
run_hook() {
	printf 'UUID=1234-abcd / ext4 x-cryptoloop.source=/dev/clt-none,x-cryptoloop.encryption=AES128,x-cryptoloop.engine=dm,%s 0 1\n' \
		"$2" >"$TESTDIR/fstab"
	run --separate-stderr unshare -m /bin/sh -c \
		'mount --bind "$1/fstab" /etc/fstab && umask "$2" &&
		DESTDIR="$1/dest" version=clt-none exec "$1/hook"' \
		sh "$TESTDIR" "$1"
}

@test "hook: a gpg key file copied into an image others could read is refused" {
	hook_build
	run_hook 0022 "x-cryptoloop.gpgkey=$TESTDIR/key.gpg"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"readable by other users (umask 0022)"*"UMASK=0077"* ]] ||
		fail "stderr: $stderr"
	[ ! -e "$TESTDIR/dest$TESTDIR/key.gpg" ] || fail "the key file was copied"
	run_hook 0027 "x-cryptoloop.gpgkey=$TESTDIR/key.gpg"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"umask 0027"* ]] || fail "stderr: $stderr"
}

@test "hook: UMASK=0077, or a key on a key device, is not refused" {
	hook_build
	# (the hook may stop later: the build's unlock is a libtool wrapper,
	# which ldd cannot read)
	run_hook 0077 "x-cryptoloop.gpgkey=$TESTDIR/key.gpg"
	[[ "$stderr" != *"readable by other users"* ]] || fail "stderr: $stderr"
	[[ "$stderr" != *"cannot be used"* ]] || fail "stderr: $stderr"
	run_hook 0022 "x-cryptoloop.gpgkey=/key.gpg,x-cryptoloop.keydev=LABEL=KEYS"
	[[ "$stderr" != *"readable by other users"* ]] || fail "stderr: $stderr"
	[[ "$stderr" != *"cannot be used"* ]] || fail "stderr: $stderr"
}

@test "mkinitramfs: with conf-hooks.d/cryptoloop the image is 0600 under umask 022" {
	command -v mkinitramfs >/dev/null || skip "needs initramfs-tools (mkinitramfs)"
	local kver='' d
	for d in /lib/modules/*/modules.dep; do
		[ -e "$d" ] && kver=${d%/modules.dep} && kver=${kver##*/} && break
	done
	[ -n "$kver" ] || skip "no kernel's modules under /lib/modules for mkinitramfs"
	# the installed conf-hooks.d plus ours, as the package ships it
	mkdir -p "$TESTDIR/conf-hooks.d" "$TESTDIR/tmp"
	cp -pr /usr/share/initramfs-tools/conf-hooks.d/. "$TESTDIR/conf-hooks.d/"
	cp "$top_srcdir/initramfs/conf-hooks.d/cryptoloop" "$TESTDIR/conf-hooks.d/"
	# the host's configuration, with the fewest modules, for speed
	cp -pr /etc/initramfs-tools "$TESTDIR/conf"
	sed -i -e 's/^MODULES=.*/MODULES=list/' -e 's/^COMPRESS=.*/COMPRESS=gzip/' \
		"$TESTDIR/conf/initramfs.conf"
	run --separate-stderr unshare -m /bin/sh -c \
		'mount --bind "$1/conf-hooks.d" /usr/share/initramfs-tools/conf-hooks.d &&
		umask 022 && TMPDIR="$1/tmp" exec mkinitramfs -d "$1/conf" -o "$1/initrd.img" "$2"' \
		sh "$TESTDIR" "$kver"
	[ "$status" -eq 0 ] || fail "mkinitramfs: status $status: $stderr"
	[ -s "$TESTDIR/initrd.img" ]
	run stat -c %a "$TESTDIR/initrd.img"
	[ "$output" = 600 ] || fail "the image's mode is $output"
}
