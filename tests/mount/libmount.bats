#!/usr/bin/env bats
# What mount(8) and umount(8) hand mount.cryptoloop, umount.cryptoloop and
# losetup -F, with util-linux 2.38's libmount (the host's) and 2.41's
# (Debian trixie's mount, and our helpers and losetup linked against its
# libmount, run with that root filesystem's loader and libraries, as
# they would run there): which options reach the helper, what utab
# records, which helper umount calls.  The 2.41 tests are skipped, and
# counted so, without the trixie root filesystem of tests/vm/host/fetch-kernel.
# man/mount.cryptoloop.8 (LIBMOUNT VERSIONS) says what this found.
bats_require_minimum_version 1.5.0

load helpers
load ../lib/ul-chroot

setup_file() {
	helpers_install
}

teardown_file() {
	helpers_remove
}

setup() {
	mount_setup
	export CLT_HELPER_LOG="$TESTDIR/helper.log"
	: > "$CLT_HELPER_LOG"
}

teardown() {
	e2e_teardown
}

# libmount VERSION: MOUNT, UMOUNT and FLOSETUP run with util-linux
# VERSION's libmount: 2.38, the host's; 2.41, trixie's, which the helpers
# get too (through the shims' CLT_*_CRYPTOLOOP)
libmount() {
	local root
	case "$1" in
	2.38)
		MOUNT=mount UMOUNT=umount FLOSETUP=$LOSETUP
		unset CLT_MOUNT_CRYPTOLOOP CLT_UMOUNT_CRYPTOLOOP
		;;
	2.41)
		ul_need trixie
		root=$(ul_root trixie)
		MOUNT=$(ul_wrap trixie "$root/usr/bin/mount")
		UMOUNT=$(ul_wrap trixie "$root/usr/bin/umount")
		# libtool's wrapper scripts cannot run under another loader
		FLOSETUP=$(ul_wrap trixie "$top_builddir/losetup/.libs/losetup" "$top_builddir/libloop/.libs")
		CLT_MOUNT_CRYPTOLOOP=$(ul_wrap trixie "$top_builddir/mount/.libs/mount.cryptoloop" \
			"$top_builddir/libloop/.libs")
		CLT_UMOUNT_CRYPTOLOOP=$(ul_wrap trixie "$top_builddir/mount/.libs/umount.cryptoloop" \
			"$top_builddir/libloop/.libs")
		export CLT_MOUNT_CRYPTOLOOP CLT_UMOUNT_CRYPTOLOOP
		;;
	esac
	"$MOUNT" -V | grep -q "libmount $1" || fail "$MOUNT -V: not libmount $1"
}

# utab_lines: the lines of /run/mount/utab about $MNT
utab_lines() {
	grep -F " TARGET=$MNT " /run/mount/utab || true
}

# utab_id: how utab's lines about $MNT begin: libmount 2.41 records the
# mount's ID, 2.38 nothing
utab_id() {
	[ "$1" = 2.38 ] || echo "ID=$(findmnt -n -o ID "$MNT" | tr -d ' ') "
}

# an fstab line: what the helper is given, and what utab and umount do
fstab_line() {
	libmount "$1"
	echo "$IMG $MNT cryptoloop encryption=AES256,passfd=3,noauto,x-clt.mark=1,user_xattr 0 0" > "$FSTAB"
	LIBMOUNT_FSTAB="$FSTAB" "$MOUNT" "$MNT" 3< "$TESTDIR/pass"
	mountpoint -q "$MNT"
	# encryption=, noauto and x-* never reach the helper; LIBMOUNT_FSTAB
	# does, and the helper finds the cipher in that fstab itself
	same "$(cat "$CLT_HELPER_LOG")" "mount.cryptoloop $IMG $MNT -o rw,passfd=3,user_xattr LIBMOUNT_FSTAB=$FSTAB"
	dev=$(findmnt -n -o SOURCE "$MNT")
	same "$("$LOSETUP" -n -O CIPHER "$dev" | tr -d ' ')" AES256
	# the helper's utab line sends umount back to us; mount(8) adds its
	# own for the image, with the x-* options
	run utab_lines
	[ "${#lines[@]}" -eq 2 ]
	same "${lines[0]}" "$(utab_id "$1")SRC=$dev TARGET=$MNT ROOT=/ OPTS=uhelper=cryptoloop,helper=cryptoloop"
	same "${lines[1]}" "SRC=$IMG TARGET=$MNT ROOT=/ OPTS=x-clt.mark=1"
	"$UMOUNT" "$MNT"
	same "$(tail -n 1 "$CLT_HELPER_LOG")" "umount.cryptoloop $MNT LIBMOUNT_FSTAB="
	run ! mountpoint -q "$MNT"
	[ -z "$(utab_lines)" ]
	nothing_attached
}

@test "libmount 2.41: an fstab line: the helper's options, utab, umount" {
	fstab_line 2.41
}

@test "libmount 2.38: an fstab line: the helper's options, utab, umount" {
	fstab_line 2.38
}

# mount -T FILE reads FILE, but the helper is not told: a line that needs
# the helper's own fstab lookup (encryption=) fails, one with cipher= mounts
tab_file() {
	libmount "$1"
	echo "$IMG $MNT cryptoloop encryption=AES256,passfd=3,noauto 0 0" > "$FSTAB"
	run --separate-stderr "$MOUNT" -T "$FSTAB" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"no cipher given"* ]]
	same "$(cat "$CLT_HELPER_LOG")" "mount.cryptoloop $IMG $MNT -o rw,passfd=3 LIBMOUNT_FSTAB="
	run ! mountpoint -q "$MNT"
	nothing_attached
	echo "$IMG $MNT cryptoloop cipher=AES256,passfd=3,noauto 0 0" > "$FSTAB"
	"$MOUNT" -T "$FSTAB" "$MNT" 3< "$TESTDIR/pass"
	mountpoint -q "$MNT"
	"$UMOUNT" "$MNT"
	nothing_attached
}

@test "libmount 2.41: mount -T FILE does not tell the helper FILE" {
	tab_file 2.41
}

@test "libmount 2.38: mount -T FILE does not tell the helper FILE" {
	tab_file 2.38
}

# the command line: encryption= is dropped as in fstab; with loop or
# offset= libmount wants to set the device up itself and refuses
command_line() {
	libmount "$1"
	run --separate-stderr "$MOUNT" -t cryptoloop -o encryption=AES256,passfd=3 "$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"no cipher given"* ]]
	same "$(cat "$CLT_HELPER_LOG")" "mount.cryptoloop $IMG $MNT -o rw,passfd=3 LIBMOUNT_FSTAB="
	: > "$CLT_HELPER_LOG"
	for o in loop offset=0; do
		run --separate-stderr "$MOUNT" -t cryptoloop -o "$o,encryption=AES256,passfd=3" "$IMG" "$MNT" 3< "$TESTDIR/pass"
		[ "$status" -eq 1 ]
		# 2.41 keeps the order of the options it shows, 2.38 moves
		# those it does not know first
		if [ "$1" = 2.38 ]; then
			opts="rw,passfd=3,$o,encryption=AES256"
		else
			opts="rw,$o,encryption=AES256,passfd=3"
		fi
		[[ "$stderr" == *"failed to parse mount options '$opts'"* ]] || fail "$stderr"
	done
	[ ! -s "$CLT_HELPER_LOG" ]
	# -s and -v reach the helper, in mount(8)'s order
	"$MOUNT" -s -v -t cryptoloop -o cipher=AES256,passfd=3,ro "$IMG" "$MNT" 3< "$TESTDIR/pass"
	same "$(cat "$CLT_HELPER_LOG")" "mount.cryptoloop $IMG $MNT -s -v -o ro,cipher=AES256,passfd=3 LIBMOUNT_FSTAB="
	same "$(findmnt -n -o OPTIONS "$MNT" | cut -d, -f1)" ro
	"$UMOUNT" "$MNT"
	run ! mountpoint -q "$MNT"
	nothing_attached
}

@test "libmount 2.41: the command line: encryption= dropped, loop and offset= refused, -s -v passed" {
	command_line 2.41
}

@test "libmount 2.38: the command line: encryption= dropped, loop and offset= refused, -s -v passed" {
	command_line 2.38
}

# mount -o remount: with the line in the fstab mount(8) reads, mount(8)
# comes back to the helper, which keeps the device; without it (the
# fstab is another), mount(8) remounts the filesystem itself.  Either way
# the device stays and utab still sends umount to us.
remount() {
	libmount "$1"
	echo "$IMG $MNT cryptoloop cipher=AES256,passfd=3,noauto 0 0" > "$FSTAB"
	LIBMOUNT_FSTAB="$FSTAB" "$MOUNT" "$MNT" 3< "$TESTDIR/pass"
	dev=$(findmnt -n -o SOURCE "$MNT")
	: > "$CLT_HELPER_LOG"
	LIBMOUNT_FSTAB="$FSTAB" "$MOUNT" -o remount,ro "$MNT"
	same "$(findmnt -n -o OPTIONS "$MNT" | cut -d, -f1)" ro
	# 2.41 puts remount last, 2.38 after the flags it knows
	if [ "$1" = 2.38 ]; then
		opts=ro,remount,cipher=AES256,passfd=3
	else
		opts=ro,cipher=AES256,passfd=3,remount
	fi
	same "$(cat "$CLT_HELPER_LOG")" "mount.cryptoloop $IMG $MNT -o $opts LIBMOUNT_FSTAB=$FSTAB"
	: > "$CLT_HELPER_LOG"
	"$MOUNT" -o remount,rw "$MNT"
	same "$(findmnt -n -o OPTIONS "$MNT" | cut -d, -f1)" rw
	same "$(cat "$CLT_HELPER_LOG")" ""
	same "$(findmnt -n -o SOURCE "$MNT")" "$dev"
	same "$(utab_lines | head -n 1)" "$(utab_id "$1")SRC=$dev TARGET=$MNT ROOT=/ OPTS=uhelper=cryptoloop,helper=cryptoloop"
	"$UMOUNT" "$MNT"
	same "$(tail -n 1 "$CLT_HELPER_LOG")" "umount.cryptoloop $MNT LIBMOUNT_FSTAB="
	[ -z "$(utab_lines)" ]
	nothing_attached
}

@test "libmount 2.41: remount: through the helper when the fstab has the line, else not; the device stays" {
	remount 2.41
}

@test "libmount 2.38: remount: through the helper when the fstab has the line, else not; the device stays" {
	remount 2.38
}

# fstab_argv: the arguments (all but the first) with which "$FLOSETUP -F"
# runs losetup again once libmount has read the loop= line
fstab_argv() {
	LIBMOUNT_FSTAB="$FSTAB" strace -qq -s 512 -e trace=execve -o "$TESTDIR/strace" \
		"$FLOSETUP" -F -p 3 "$dev" 3< "$TESTDIR/pass" || true
	sed -n 's/^execve("\/proc\/self\/exe", \["[^"]*", \(.*\)\], .*/\1/p' "$TESTDIR/strace"
}

# losetup -F: libmount reads the loop= line (not its x-* option) into
# losetup's own options
fstab_loop() {
	libmount "$1"
	dev=$("$UL_LOSETUP" -f)
	track "$dev"
	echo "$IMG $MNT ext4 loop=$dev,encryption=AES256,offset=0,noauto,x-clt.mark=1 0 0" > "$FSTAB"
	same "$(fstab_argv)" "\"--encryption\", \"AES256\", \"--offset\", \"0\", \"-p\", \"3\", \"$dev\", \"$IMG\""
}

# Under 2.41 the second run cannot happen here: /proc/self/exe is the
# loader that ul_wrap runs losetup with, not losetup
@test "libmount 2.41: losetup -F reads the loop= line into losetup's options" {
	fstab_loop 2.41
}

@test "libmount 2.38: losetup -F reads the loop= line into losetup's options and sets the device up" {
	fstab_loop 2.38
	same "$("$LOSETUP" -n -O BACK-FILE,CIPHER "$dev" | tr -s ' ')" "$IMG AES256"
	same "$(blkid -o value -s TYPE "$dev")" ext4
}
