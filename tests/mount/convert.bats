#!/usr/bin/env bats
# mount.cryptoloop --convert-fstab: legacy "loop,encryption=" lines and
# loop-AES swap lines into lines that stock mount(8), swapon(8) and
# systemd read correctly (as root: only root runs the helper).
bats_require_minimum_version 1.5.0

load ../lib/common

setup() {
	need_root "mount.cryptoloop, which refuses other users"
	: "${top_builddir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
	HELPER="$top_builddir/mount/mount.cryptoloop"
	common_setup cryptoloop-convert
	T=$TESTDIR
}

teardown() {
	common_teardown
}

convert() {
	"$HELPER" --convert-fstab "$1" | grep -v '^#'
}

@test "every fstab escape round-trips through the converter" {
	# space, tab, backslash, newline and '#' in source, target and option values
	printf '%s\n' \
		'/srv/my\040disk\011x/a\134b\043c.img /mnt/sec\040ret\012z ext4 loop,encryption=AES128,gpgkey=/etc/k\040ey.gpg,noauto 0 2' \
		> "$T/old"
	convert "$T/old" > "$T/new"
	[ "$(wc -l < "$T/new")" -eq 1 ]
	for col in SOURCE TARGET; do
		[ "$(findmnt -n -r --tab-file "$T/old" -o "$col")" = \
		  "$(findmnt -n -r --tab-file "$T/new" -o "$col")" ]
	done
	# the option value too, as libmount reads it back
	[[ "$(findmnt -n -r --tab-file "$T/new" -o OPTIONS)" == *'gpgkey=/etc/k\x20ey.gpg'* ]]
	[ "$(findmnt -n -r --tab-file "$T/new" -o FSTYPE)" = cryptoloop ]
	[ "$(findmnt -n -r --tab-file "$T/new" -o PASSNO)" = 2 ]
}

@test "only options the helper understands: cleartextkey= becomes keyfile=, loop goes" {
	echo "/a.img /mnt/a ext4 loop=/dev/loop2,encryption=AES256,cleartextkey=/k.txt,offset=4096,sizelimit=8M,keybits=256,phash=sha512,pseed=s,itercountk=10,loinit=8,gpghome=/g,noatime,nofail 0 0" \
		> "$T/old"
	run convert "$T/old"
	[ "$status" -eq 0 ]
	[ "$output" = "/a.img /mnt/a cryptoloop cipher=AES256,keyfile=/k.txt,crypt_offset=4096,crypt_sizelimit=8M,keybits=256,phash=sha512,pseed=s,itercountk=10,loinit=8,gpghome=/g,noatime,nofail,fstype=ext4 0 0" ]
	# and the helper parses every one of them
	[[ "$output" != *cleartextkey* && "$output" != *loop=* && "$output" != *encryption=* ]]
}

@test "fstype is kept for the probe, and left out when it was auto" {
	printf '%s\n' "/a.img /mnt/a auto loop,encryption=aes 0 0" \
		"/b.img /mnt/b xfs loop,encryption=aes 0 0" > "$T/old"
	run convert "$T/old"
	[ "${lines[0]}" = "/a.img /mnt/a cryptoloop cipher=aes 0 0" ]
	[ "${lines[1]}" = "/b.img /mnt/b cryptoloop cipher=aes,fstype=xfs 0 0" ]
}

@test "loop-AES swap lines become the /dev/cryptoloopN form with a random key" {
	printf '%s\n' \
		"/dev/sda3 none swap sw,loop=/dev/loop3,encryption=AES128,pri=5 0 0" \
		"/dev/disk/by-id/x\\040y none swap sw,encryption=AES256,offset=4096,gpgkey=/k.gpg 0 0" \
		> "$T/old"
	run "$HELPER" --convert-fstab "$T/old"
	[ "$status" -eq 0 ]
	[[ "$output" == *"
/dev/cryptoloop3 none swap sw,pri=5,x-cryptoloop.source=/dev/sda3,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0
"* ]]
	[[ "$output" == *"# note: 'gpgkey' dropped: a swap line gets a random key at each boot (phash=random)"* ]]
	[[ "$output" == *"
/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/disk/by-id/x\\040y,x-cryptoloop.encryption=AES256,x-cryptoloop.offset=4096,x-cryptoloop.phash=random 0 0" ]]
	# what swapon(8) and systemd read: the encrypted device, never the raw one
	convert "$T/old" > "$T/new"
	[ "$(findmnt -n -r --tab-file "$T/new" -o SOURCE | tr '\n' ' ')" = "/dev/cryptoloop3 /dev/cryptoloop0 " ]
	[[ "$(findmnt -n -r --tab-file "$T/new" -o OPTIONS | tail -1)" == *'x-cryptoloop.source=/dev/disk/by-id/x\x20y'* ]]
}

@test "user and users are dropped with a note: the helper refuses user mounts" {
	echo "/a.img /mnt/a ext4 loop,encryption=aes,noauto,users 0 0" > "$T/old"
	run "$HELPER" --convert-fstab "$T/old"
	[[ "$output" == *"# note: 'users' dropped: mount.cryptoloop refuses user mounts"* ]]
	[[ "${lines[-1]}" == "/a.img /mnt/a cryptoloop cipher=aes,noauto,fstype=ext4 0 0" ]]
}

@test "plain lines are not touched; a file without legacy lines says so" {
	printf '%s\n' "/p.img /mnt/p ext4 loop 0 0" "/dev/sda1 / ext4 defaults 0 1" > "$T/old"
	run --separate-stderr "$HELPER" --convert-fstab "$T/old"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$stderr" = "$T/old: no legacy encrypted lines" ]
}
