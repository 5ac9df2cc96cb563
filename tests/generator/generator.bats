#!/usr/bin/env bats
# cryptoloop-generator on sample fstabs: the units it writes, checked by
# systemd-analyze verify, and the lines it refuses.

load helpers
bats_require_minimum_version 1.5.0

setup() { gen_setup; }
teardown() { gen_teardown; }

SVC0=cryptoloop-setup-cryptoloop0.service

@test "random-key swap: a setup service before the swap unit, after the source device" {
	generate "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 0 ]
	# the one word: hibernation (tested below)
	[ "$stderr" = "cryptoloop-generator: hibernation disabled: swap /dev/cryptoloop0 has a random key; set resume= to a persistent swap to hibernate" ]
	u="$T/normal/$SVC0"
	[ -f "$u" ]
	grep -qx "BindsTo=dev-sdb2.device" "$u"
	grep -qx "After=dev-sdb2.device" "$u"
	grep -qx "Before=dev-cryptoloop0.swap" "$u"
	# before the mounts, which take the first free /dev/cryptoloopN
	grep -qx "Before=local-fs-pre.target" "$u"
	grep -qx "DefaultDependencies=no" "$u"
	grep -qx "Wants=modprobe@cryptoloop.service" "$u"
	# the swap unit systemd-fstab-generator makes requires it
	[ "$(readlink "$T/normal/dev-cryptoloop0.swap.requires/$SVC0")" = "../$SVC0" ]
	# losetup with the kmod engine and the line's options; no passphrase
	mapfile -t w < <(exec_words "$u" ExecStart)
	[[ "${w[0]}" == */sbin/losetup ]]
	[ "${w[*]:1}" = "--engine kmod --encryption AES128 --phash random /dev/cryptoloop0 /dev/sdb2" ]
	# a fresh key each boot: mkswap after, and a filesystem is never overwritten
	mapfile -t w < <(exec_words "$u" ExecStartPost)
	[[ "${w[0]}" == */mkswap ]]
	[ "${w[1]}" = /dev/cryptoloop0 ]
	mapfile -t w < <(exec_words "$u" ExecStartPre)
	[[ "${w[0]}" == /*/cryptoloop-check-swap-source ]]
	[ "${w[*]:1}" = /dev/sdb2 ]
	mapfile -t w < <(exec_words "$u" ExecStop)
	[ "${w[*]:1}" = "-d /dev/cryptoloop0" ]
	verify "$SVC0"
}

@test "the swap unit and the service together: systemd-analyze finds no cycle or missing unit" {
	generate "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 0 ]
	# what systemd-fstab-generator writes for the line (it skips swap in
	# containers, so it cannot be run here; the VM suite runs it)
	printf '[Unit]\nSourcePath=%s\n[Swap]\nWhat=/dev/cryptoloop0\nOptions=sw,x-cryptoloop.source=/dev/sdb2\n' \
		"$T/fstab" > "$T/normal/dev-cryptoloop0.swap"
	verify dev-cryptoloop0.swap "$SVC0"
}

@test "a passphrase-keyed swap file: RequiresMountsFor the file, fstab escapes undone, no mkswap" {
	generate '/dev/cryptoloop3 none swap sw,x-cryptoloop.source=/var/swap\040files/s%1.img,x-cryptoloop.encryption=AES256,x-cryptoloop.offset=4096 0 0'
	[ "$status" -eq 0 ]
	u="$T/normal/cryptoloop-setup-cryptoloop3.service"
	grep -qx 'RequiresMountsFor="/var/swap files/s%%1.img"' "$u"
	mapfile -t w < <(exec_words "$u" ExecStart)
	[ "${w[*]:1}" = "--engine kmod --encryption AES256 --offset 4096 --swap /dev/cryptoloop3 /var/swap files/s%%1.img" ]
	run ! grep -q '^ExecStartPost=' "$u"
	# the passphrase is asked at the console: no time limit
	grep -qx 'TimeoutSec=infinity' "$u"
	verify cryptoloop-setup-cryptoloop3.service
}

# swap_file_line SOURCE: generate a random-key swap line on SOURCE; its unit in $u
swap_file_line() {
	generate "/dev/cryptoloop6 none swap sw,x-cryptoloop.source=$1,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 0 ] || fail "$stderr"
	u="$T/normal/cryptoloop-setup-cryptoloop6.service"
}

@test "random-key swap on a file: the file is checked before it is overwritten, too" {
	swap_file_line "$T/swap.img"
	mapfile -t w < <(exec_words "$u" ExecStartPre)
	[ "${w[*]:1}" = "$T/swap.img" ]
	# in the order systemd runs them: the check, losetup, mkswap
	[ "$(grep -o '^Exec[A-Za-z]*=' "$u" | tr -d '\n')" = "ExecStartPre=ExecStart=ExecStartPost=ExecStop=" ]
	verify cryptoloop-setup-cryptoloop6.service
}

@test "source check: an intact ext4 with a stale FAT boot sector (blkid -p: ambivalent) is refused" {
	command -v mkfs.vfat > /dev/null || skip "mkfs.vfat (dosfstools) missing"
	truncate -s 32M "$T/swap.img" "$T/fat.img"
	mkfs.ext4 -q "$T/swap.img"
	echo data > "$T/file"
	debugfs -w -R "write $T/file kept" "$T/swap.img" > /dev/null 2>&1
	# a FAT boot sector over sector 0, which ext4 leaves unused (its
	# superblock starts at byte 1024)
	mkfs.vfat "$T/fat.img" > /dev/null
	dd if="$T/fat.img" of="$T/swap.img" bs=512 count=1 conv=notrunc status=none
	e2fsck -fn "$T/swap.img" > /dev/null 2>&1 || fail "the ext4 is not intact"
	run blkid -p "$T/swap.img"
	[ "$status" -eq 8 ] || fail "blkid -p exits $status, not 8 (ambivalent): $output"
	swap_file_line "$T/swap.img"
	run_check "$u"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/swap.img holds several signatures ("*ext4*"), which libblkid cannot choose between: not overwritten with random-key swap"* ]] ||
		fail "$stderr"
	[[ "$stderr" == *vfat* ]]
	# nothing was written: the filesystem and its file are still there
	e2fsck -fn "$T/swap.img" > /dev/null 2>&1
	[ "$(debugfs -R "cat kept" "$T/swap.img" 2> /dev/null)" = data ]
}

@test "source check: a file holding a filesystem, and one holding a partition table, are refused" {
	truncate -s 32M "$T/swap.img"
	mkfs.ext4 -q "$T/swap.img"
	swap_file_line "$T/swap.img"
	run_check "$u"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cryptoloop-check-swap-source: $T/swap.img holds ext4 (filesystem): not overwritten with random-key swap (wipefs(8) erases signatures of data no longer wanted)" ] ||
		fail "$stderr"
	command -v sfdisk > /dev/null || skip "sfdisk (fdisk) missing"
	rm "$T/swap.img"
	truncate -s 32M "$T/swap.img"
	printf 'label: gpt\n' | sfdisk -q "$T/swap.img"
	run_check "$u"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/swap.img holds a gpt partition table: not overwritten"* ]] || fail "$stderr"
}

@test "source check: a path other users can change is refused, since losetup opens it again after the check" {
	# a user's link in a sticky directory, at a root file that holds no
	# signature: the check would pass it, and mkswap would overwrite it
	echo "root's data" > "$T/precious"
	mkdir -m 1777 "$T/sticky"
	ln -s "$T/precious" "$T/sticky/swap.img"
	chown -h nobody "$T/sticky/swap.img"
	swap_file_line "$T/sticky/swap.img"
	run_check "$u"
	[ "$status" -eq 1 ] || fail "status $status: $stderr"
	[ "$stderr" = "cryptoloop-check-swap-source: $T/sticky/swap.img: $T/sticky is writable by users other than root: losetup opens it again by name after this check, so not overwritten with random-key swap" ] || fail "$stderr"
	# a file in a directory any user can rename it in
	mkdir -m 0777 "$T/open"
	truncate -s 32M "$T/open/swap.img"
	rm -rf "$T/normal" "$T/early" "$T/late" && mkdir "$T/normal" "$T/early" "$T/late"
	swap_file_line "$T/open/swap.img"
	run_check "$u"
	[ "$status" -eq 1 ] || fail "status $status: $stderr"
	[[ "$stderr" == *": $T/open is writable by users other than root: losetup opens it again"* ]] || fail "$stderr"
	# root's link, outside /dev: the file behind it is named twice
	truncate -s 32M "$T/swap.img"
	ln -s "$T/swap.img" "$T/link"
	rm -rf "$T/normal" "$T/early" "$T/late" && mkdir "$T/normal" "$T/early" "$T/late"
	swap_file_line "$T/link"
	run_check "$u"
	[ "$status" -eq 1 ] || fail "status $status: $stderr"
	[[ "$stderr" == *": $T/link is a symbolic link (only /dev's are taken)"* ]] || fail "$stderr"
	# root's file in a sticky directory: only root renames it
	truncate -s 32M "$T/sticky/root.img"
	rm -rf "$T/normal" "$T/early" "$T/late" && mkdir "$T/normal" "$T/early" "$T/late"
	swap_file_line "$T/sticky/root.img"
	run_check "$u"
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
}

@test "source check: a zeroed source and an old swap area go on; a missing one does not" {
	truncate -s 32M "$T/swap.img"
	swap_file_line "$T/swap.img"
	run_check "$u"
	[ "$status" -eq 0 ] || fail "$stderr"
	[ -z "$stderr" ]
	mkswap -q "$T/swap.img"
	[ "$(blkid -p -o value -s TYPE "$T/swap.img")" = swap ]
	run_check "$u"
	[ "$status" -eq 0 ] || fail "$stderr"
	# "blkid -p" exits 2 on a missing file, as on an empty one
	rm "$T/swap.img"
	run_check "$u"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/swap.img: cannot probe for signatures: No such file or directory"* ]] ||
		fail "$stderr"
}

@test "source check with offset= and sizelimit=: the range the swap device covers is probed, nothing else" {
	command -v sfdisk > /dev/null || skip "sfdisk (fdisk) missing"
	# a disk with a partition table, and swap after it from 1 MiB on
	truncate -s 40M "$T/disk.img"
	printf 'label: dos\n' | sfdisk -q "$T/disk.img"
	generate "/dev/cryptoloop6 none swap sw,x-cryptoloop.source=$T/disk.img,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random,x-cryptoloop.offset=1MiB,x-cryptoloop.sizelimit=32MiB 0 0"
	[ "$status" -eq 0 ] || fail "$stderr"
	u="$T/normal/cryptoloop-setup-cryptoloop6.service"
	mapfile -t w < <(exec_words "$u" ExecStartPre)
	[ "${w[*]:1}" = "--offset 1MiB --sizelimit 32MiB $T/disk.img" ]
	# the partition table before the range stays, and is no reason to stop
	run_check "$u"
	[ "$status" -eq 0 ] || fail "$stderr"
	# an ext4 in the range is refused, though nothing is at offset 0
	truncate -s 32M "$T/fs.img"
	mkfs.ext4 -q "$T/fs.img"
	dd if="$T/fs.img" of="$T/disk.img" bs=1M seek=1 conv=notrunc status=none
	run_check "$u"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cryptoloop-check-swap-source: $T/disk.img holds ext4 (filesystem) at offset 1048576: not overwritten with random-key swap (wipefs(8) erases signatures of data no longer wanted)" ] ||
		fail "$stderr"
	# a bad size is named
	run --separate-stderr "$CHECK" --offset 1XB "$T/disk.img"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "cryptoloop-check-swap-source: --offset '1XB': "* ]] || fail "$stderr"
}

@test "UUID= source: the udev link is the dependency" {
	generate "/dev/cryptoloop1 none swap sw,x-cryptoloop.source=UUID=0a1b-2c3d,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 0 ]
	u="$T/normal/cryptoloop-setup-cryptoloop1.service"
	grep -qx 'BindsTo=dev-disk-by\\x2duuid-0a1b\\x2d2c3d.device' "$u"
	verify cryptoloop-setup-cryptoloop1.service
}

@test "the FUSE engine is refused for swap, with the reason" {
	generate "/dev/cryptoloop2 none swap sw,x-cryptoloop.source=/dev/sdb4,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random,x-cryptoloop.engine=fuse 0 0"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"swap line /dev/cryptoloop2: refused: swap through the FUSE engine can deadlock"* ]]
	no_setup_unit
	refused_in_place /dev/cryptoloop2 "refused: swap through the FUSE engine can deadlock"
}

@test "no module installed: the line fails with a clear message, no fallback" {
	: > "$T/modules/modules.dep"
	generate "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the cryptoloop kernel module is not installed"*"never falls back to FUSE"* ]]
	no_setup_unit
	refused_in_place /dev/cryptoloop0 "the cryptoloop kernel module is not installed"
}

@test "loop-AES's own swap line is refused in place, never swapped on unencrypted" {
	generate "/dev/sdc2 none swap sw,loop=/dev/loop5,encryption=AES128 0 0" \
		"/dev/sdc3 none swap sw 0 0"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"swapon(8) would use /dev/sdc2 unencrypted"*"--convert-fstab"* ]]
	# not masked: swap.target requires the unit, and would not start, nor
	# the plain /dev/sdc3 with it; the unit fails with the refusal instead
	refused_in_place /dev/sdc2 "loop-AES form (loop=, encryption=)"
	# a plain swap line is none of our business
	[ ! -e "$T/normal/dev-sdc3.swap.d" ]
	[ "$(ls "$T/normal" | grep -c '^cryptoloop-refused-')" -eq 1 ]
}

@test "loop-AES's swap line by UUID: the unit of the path systemd makes of it fails" {
	generate "UUID=77aa none swap sw,loop=/dev/loop5,encryption=AES128 0 0"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"swapon(8) would use /dev/disk/by-uuid/77aa unencrypted"* ]]
	u='cryptoloop-refused-dev-disk-by\x2duuid-77aa.service'
	[ -f "$T/normal/$u" ]
	grep -qxF "Requires=$u" "$T/normal/dev-disk-by\\x2duuid-77aa.swap.d/50-cryptoloop-refused.conf"
	[ -z "$(ls -A "$T/early")" ]
}

@test "bad lines are named and skipped; good lines still get their units" {
	generate "/dev/sdb5 none swap sw,x-cryptoloop.source=/dev/sdb5,x-cryptoloop.encryption=AES128 0 0" \
		"/dev/cryptoloop4 none swap sw,x-cryptoloop.encryption=AES128 0 0" \
		"/dev/cryptoloop5 none swap sw,x-cryptoloop.source=/dev/sdb6,x-cryptoloop.passfd=3,x-cryptoloop.encryption=aes 0 0" \
		"/dev/cryptoloop6 none swap sw,x-cryptoloop.source=/dev/sdb7,x-cryptoloop.frobnicate=1,x-cryptoloop.encryption=aes 0 0" \
		"/dev/cryptoloop7 none swap sw,x-cryptoloop.source=/dev/sdb8,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0" \
		"/dev/cryptoloop7 none swap sw,x-cryptoloop.source=/dev/sdb9,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"swap line /dev/sdb5: the first field must be /dev/cryptoloopN"* ]]
	[[ "$stderr" == *"swap line /dev/cryptoloop4: x-cryptoloop.source= is missing"* ]]
	[[ "$stderr" == *"swap line /dev/cryptoloop5: x-cryptoloop.passfd= has no meaning at boot"* ]]
	[[ "$stderr" == *"swap line /dev/cryptoloop6: x-cryptoloop.frobnicate=1 is not an encryption option"* ]]
	[[ "$stderr" == *"swap line /dev/cryptoloop7: /dev/cryptoloop7 is already used"* ]]
	[ "$(ls "$T/normal" | grep -c '^cryptoloop-setup-.*\.service$')" -eq 1 ]
	grep -q '/dev/sdb8' "$T/normal/cryptoloop-setup-cryptoloop7.service"
	# each refused line fails at once in its place; the second line for
	# /dev/cryptoloop7 never touches the first one's units
	refused_in_place /dev/cryptoloop4 "x-cryptoloop.source= is missing"
	refused_in_place /dev/sdb5 "the first field must be /dev/cryptoloopN"
	[ ! -e "$T/normal/dev-cryptoloop7.swap.d" ]
	[ ! -e "$T/normal/cryptoloop-refused-dev-cryptoloop7.service" ]
}

@test "the device number is the kernel's spelling: no sign, no leading zero, no space" {
	local bad
	for bad in '+5' '05' '\0405' '-1' '0x1' '64' '1e1' ''; do
		generate "/dev/cryptoloop$bad none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
		[ "$status" -eq 1 ] || fail "/dev/cryptoloop$bad: exit status $status"
		[[ "$stderr" == *": the first field must be /dev/cryptoloopN (N < 64)"* ]] ||
			fail "/dev/cryptoloop$bad: $stderr"
		no_setup_unit || fail "/dev/cryptoloop$bad: $(ls "$T/normal")"
	done
	generate "/dev/cryptoloop10 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 0 ]
	verify cryptoloop-setup-cryptoloop10.service
}

@test "fstab bytes that would end a unit line or continue it are escaped" {
	# fstab(5) escapes: \015 CR, \012 LF, \057 '/', \134 a backslash
	generate '/dev/cryptoloop2 none swap sw,x-cryptoloop.source=/dev/sd\015ExecStartPre=\057bin\057false\134,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random,x-cryptoloop.pseed=a\012Before=x.target\134 0 0'
	[ "$status" -eq 0 ]
	u="$T/normal/cryptoloop-setup-cryptoloop2.service"
	lines_clean "$u"
	src=$(printf '/dev/sd\rExecStartPre=/bin/false\\')
	# systemd's own escaping names the device unit
	grep -qxF "BindsTo=$(systemd-escape --path --suffix=device "$src")" "$u"
	# C escapes in the Exec= words, which systemd undoes
	grep -qF ' "/dev/sd\rExecStartPre=/bin/false\\"' "$u"
	grep -qF ' "--pseed" "a\nBefore=x.target\\" ' "$u"
	# none in Description=, which is taken as it is: the escapes show
	grep -qxF 'Description=Encrypted swap device /dev/cryptoloop2 on /dev/sd\rExecStartPre=/bin/false\\' "$u"
	grep -qx 'Documentation=man:cryptoloop-generator(8) man:losetup(8)' "$u"
	verify cryptoloop-setup-cryptoloop2.service
}

@test "a file source with a control character is refused: RequiresMountsFor= cannot name it" {
	generate '/dev/cryptoloop3 none swap sw,x-cryptoloop.source=/var/s\015wap.img,x-cryptoloop.encryption=AES256 0 0'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"swap line /dev/cryptoloop3: x-cryptoloop.source: a file path with control characters cannot be named"* ]]
	no_setup_unit
}

@test "no fstab: nothing to do, no error" {
	export SYSTEMD_FSTAB="$T/none"
	run "$GENERATOR" "$T/normal" "$T/early" "$T/late"
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$T/normal")" ]
}

@test "an fstab path SourcePath= cannot take as it is: refused, no unit" {
	printf '%s\n' "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0" \
		> "$T/fs%tab"
	export SYSTEMD_FSTAB="$T/fs%tab"
	run --separate-stderr "$GENERATOR" "$T/normal" "$T/early" "$T/late"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"SYSTEMD_FSTAB: a path with control characters, '%' or '\\' cannot be the units' SourcePath="* ]]
	[ -z "$(ls -A "$T/normal")" ]
}

@test "a refused line costs no device timeout: a unit fails at once saying why, the swap unit and the device's job with it" {
	: > "$T/modules/modules.dep"
	generate "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 1 ]
	refused_in_place /dev/cryptoloop0 "the cryptoloop kernel module is not installed"
	u="$T/normal/cryptoloop-refused-dev-cryptoloop0.service"
	# no device dependency at all: nothing waits for /dev/cryptoloop0
	run ! grep -q 'device' "$u"
	grep -qx 'StandardOutput=journal+console' "$u"
	grep -qx 'Before=swap.target' "$u"
	verify cryptoloop-refused-dev-cryptoloop0.service
}

@test "at boot (SYSTEMD_SCOPE=system) a refusal goes to /dev/kmsg too, which reaches console and journal" {
	: > "$T/modules/modules.dep"
	: > "$T/kmsg"
	printf '%s\n' "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0" > "$T/fstab"
	# a private /dev/kmsg: the host's kernel log is left alone
	run --separate-stderr unshare -m sh -c 'mount --bind "$1" /dev/kmsg && SYSTEMD_SCOPE=system "$2" "$3/normal" "$3/early" "$3/late"' \
		_ "$T/kmsg" "$GENERATOR" "$T"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the cryptoloop kernel module is not installed"* ]]
	# syslog priority daemon.err, the program's name and pid, one record
	grep -qE '^<27>cryptoloop-generator\[[0-9]+\]: .*/fstab: swap line /dev/cryptoloop0: the cryptoloop kernel module is not installed' "$T/kmsg"
	[ "$(wc -l < "$T/kmsg")" -eq 1 ]
	# by hand (no SYSTEMD_SCOPE): stderr only
	: > "$T/kmsg"
	rm -rf "$T/normal" "$T/early"
	mkdir "$T/normal" "$T/early"
	run --separate-stderr unshare -m sh -c 'mount --bind "$1" /dev/kmsg && "$2" "$3/normal" "$3/early" "$3/late"' \
		_ "$T/kmsg" "$GENERATOR" "$T"
	[ "$status" -eq 1 ]
	[ ! -s "$T/kmsg" ]
}

@test "a cryptoloop mount line gets no mount-job time limit; its own x-systemd.mount-timeout= stands" {
	generate "/srv/secret.img /srv/my\\040data cryptoloop cipher=AES128,gpgkey=/etc/k.gpg 0 2" \
		"/srv/b.img /srv/b cryptoloop cipher=AES128,x-systemd.mount-timeout=5min 0 2" \
		"/dev/sdb1 /srv/c ext4 defaults 0 2"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	d="$T/normal/$(systemd-escape --path --suffix=mount '/srv/my data').d"
	grep -qx 'TimeoutSec=infinity' "$d/50-cryptoloop-no-timeout.conf"
	grep -qx '\[Mount\]' "$d/50-cryptoloop-no-timeout.conf"
	[ ! -e "$T/normal/srv-b.mount.d" ]
	[ ! -e "$T/normal/srv-c.mount.d" ]
	[ "$(ls "$T/normal")" = "$(basename "$d")" ]
}

@test "random-key swap and no resume=: hibernation is turned off in sleep.conf.d, and the log says why" {
	generate "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0" \
		"/dev/cryptoloop1 none swap sw,x-cryptoloop.source=/dev/sdb3,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	[ "$status" -eq 0 ]
	[ "$stderr" = "cryptoloop-generator: hibernation disabled: swap /dev/cryptoloop0 has a random key; set resume= to a persistent swap to hibernate" ]
	f="$T/sleep.conf.d/50-cryptoloop.conf"
	[ "$(grep -v '^#' "$f")" = "[Sleep]
AllowHibernation=no
AllowSuspendThenHibernate=no
AllowHybridSleep=no" ]
	# systemd's own parser reads the three settings (systemd-sleep.conf(5))
	if command -v systemd-analyze >/dev/null; then
		mkdir -p "$T/sysroot/run/systemd"
		cp -r "$T/sleep.conf.d" "$T/sysroot/run/systemd/"
		run --separate-stderr systemd-analyze cat-config --root="$T/sysroot" systemd/sleep.conf
		[ "$status" -eq 0 ]
		[[ "$output" == *"# $T/sysroot/run/systemd/sleep.conf.d/50-cryptoloop.conf"*"AllowHibernation=no"* ]]
	fi
}

@test "random-key swap with resume= on the command line, or a fixed-key swap: hibernation stays, a stale drop-in goes" {
	line0="/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0"
	generate "$line0"
	[ -f "$T/sleep.conf.d/50-cryptoloop.conf" ]
	# systemd hibernates only to resume= when it is set
	rm -r "$T/normal"
	mkdir "$T/normal"
	SYSTEMD_PROC_CMDLINE="root=/dev/vda resume=UUID=1234 quiet" generate "$line0"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ ! -e "$T/sleep.conf.d/50-cryptoloop.conf" ]
	[ -f "$T/normal/$SVC0" ]
	# an empty resume= names nothing
	rm -r "$T/normal"
	mkdir "$T/normal"
	SYSTEMD_PROC_CMDLINE="resume= root=/dev/vda" generate "$line0"
	[ -f "$T/sleep.conf.d/50-cryptoloop.conf" ]
	# a passphrase-keyed swap can be read back
	rm -r "$T/normal"
	mkdir "$T/normal"
	generate "/dev/cryptoloop0 none swap sw,x-cryptoloop.source=/dev/sdb2,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/etc/swap.gpg 0 0"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ ! -e "$T/sleep.conf.d/50-cryptoloop.conf" ]
}

@test "the root line (x-cryptoloop.* on an ordinary mount line) is cryptoloop-unlock's: no unit, no word" {
	generate "UUID=1234-abcd / ext4 errors=remount-ro,x-cryptoloop.source=PARTUUID=0a-01,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/rootkey.gpg,x-cryptoloop.keydev=LABEL=CLKEYS 0 1"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ -z "$(ls -A "$T/normal")" ]
	[ ! -e "$T/sleep.conf.d" ]
}
