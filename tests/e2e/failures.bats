#!/usr/bin/env bats
# Bad input gets a clear error naming the object and leaves nothing
# attached, mounted or running; a second writer is refused unless forced;
# records of dead daemons and other boots are cleaned up.

load helpers

bats_require_minimum_version 1.5.0

setup() { e2e_setup; }
teardown() {
	end_bystanders
	[ -z "${TINYFS:-}" ] || ! mountpoint -q "$TINYFS" || umount "$TINYFS"
	rm -rf "$STATE_DIR/fuse.e2etest$$"
	e2e_teardown
}

# fails ARGS...: our losetup fails, and leaves nothing new behind
fails() {
	local before
	before=$(snapshot)
	run timeout 20 "$LOSETUP" "$@" 3< "${PASSFILE:-$TESTDIR/pass}"
	[ "$status" -ne 124 ] || fail "losetup hung"
	[ "$status" -eq 1 ] || fail "exit status $status, expected 1: $output"
	[ "$(snapshot)" = "$before" ] || fail "left behind: $(diff <(echo "$before") <(snapshot))"
}

@test "a missing image is named, nothing attached" {
	fails --engine fuse -e aes -p 3 -f --show "$TESTDIR/missing.img"
	[[ "$output" == *"$TESTDIR/missing.img: No such file or directory"* ]]
}

@test "an image not larger than its offset is named, nothing attached" {
	img=$(image 512K)
	fails --engine fuse -e AES256 -p 3 -o 1M -f "$img"
	[[ "$output" == *"$img: the image does not reach past the offset"* ]]
	fails --engine fuse -e AES256 -p 3 -o 512K -f "$img"
	[[ "$output" == *"$img"* ]]
}

@test "a daemon stuck before readiness (a hung image) is stopped, and keeps no key" {
	img=$(image 16M)
	# stands for a daemon blocked opening an image on a hung NFS server,
	# deaf to SIGTERM as the real one is
	fake="$TESTDIR/stuck-daemon"
	printf '#!/bin/sh\necho $$ > %s/stuck.pid\ntrap "" TERM INT HUP\nexec sleep 600\n' \
		"$TESTDIR" > "$fake"
	chmod +x "$fake"
	SECONDS=0
	run timeout 90 env CRYPTOLOOP_FUSE_DAEMON="$fake" "$LOSETUP" --engine fuse -e aes \
		-p 3 -f "$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$img: cryptoloop-fuse failed: Connection timed out"* ]]
	[ "$SECONDS" -lt 60 ]
	stuck=$(cat "$TESTDIR/stuck.pid")
	! kill -0 "$stuck" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$stuck/stat")" = Z ] ||
		{ kill -9 "$stuck"; fail "the stuck daemon was left running"; }
	assert_clean
}

@test "a missing or wrong key file is named, nothing attached" {
	img=$(image 16M)
	fails --engine fuse -e AES128 --cleartext-keyfile "$TESTDIR/nokeys" -f "$img"
	[[ "$output" == *"$TESTDIR/nokeys: No such file or directory"* ]]

	: > "$TESTDIR/empty"
	fails --engine fuse -e AES128 --cleartext-keyfile "$TESTDIR/empty" -f "$img"
	[[ "$output" == *"$TESTDIR/empty"* ]]

	echo "not a gpg file" > "$TESTDIR/bad.gpg"
	export GNUPGHOME="$TESTDIR/gnupg"
	mkdir -m 700 "$GNUPGHOME"
	fails --engine fuse -e AES128 -K "$TESTDIR/bad.gpg" -p 3 -f "$img"
	[[ "$output" == *"$TESTDIR/bad.gpg: gpg cannot decrypt the key file"* ]]
}

@test "no terminal and no --pass-fd: a clear error at once, never a wait" {
	img=$(image 16M)
	run timeout 20 setsid "$LOSETUP" --engine fuse -e aes -f "$img" < /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"no terminal"*"--pass-fd"* ]]
	assert_clean
}

@test "a short loop-AES passphrase is refused unless --allow-short-passphrase" {
	img=$(image 16M)
	PASSFILE="$TESTDIR/short"
	echo "short pass" > "$PASSFILE"
	fails --engine fuse -e AES128 -p 3 -f "$img"
	[[ "$output" == *"too short"* ]]
	dev=$(attach --engine fuse -e AES128 -p 3 --allow-short-passphrase "$img")
	detach "$dev"
	assert_clean
}

@test "an empty passphrase on -p is refused unless --allow-empty-passphrase" {
	img=$(image 16M)
	PASSFILE="$TESTDIR/empty-line"
	echo > "$PASSFILE"
	fails --engine fuse -e aes -p 3 -f "$img"
	[[ "$output" == *"fd 3: empty passphrase"* ]]
	PASSFILE=/dev/null
	fails --engine fuse -e aes -p 3 -f "$img"
	[[ "$output" == *"fd 3: empty passphrase"* ]]
	dev=$(attach --engine fuse -e aes -p 3 --allow-empty-passphrase "$img")
	detach "$dev"
	assert_clean
}

@test "numbers of the key options: no wrap, no sign behind blanks" {
	img=$(image 16M)
	fails --engine fuse -e aes -k 4294967424 -p 3 -f "$img"
	[ "$output" = "losetup: invalid key size: '4294967424': Numerical result out of range" ]
	fails --engine fuse -e aes -p ' -1' -f "$img"
	[ "$output" = "losetup: invalid passphrase file descriptor: ' -1'" ]
	fails --engine fuse -e aes -I 9223372036854775808 -p 3 -f "$img"
	[ "$output" = "losetup: invalid IV offset: '9223372036854775808': Numerical result out of range" ]
	assert_clean
}

@test "-C past its maximum is refused at once" {
	img=$(image 16M)
	SECONDS=0
	fails --engine fuse -e AES128 -C 99999999999 -p 3 -f "$img"
	[[ "$output" == *"--itercountk 99999999999: too many iterations"* ]]
	[ "$SECONDS" -lt 10 ]
}

@test "unknown cipher, engine or a bad offset: named, nothing attached" {
	img=$(image 16M)
	fails -e rot13 -p 3 -f "$img"
	[[ "$output" == *"rot13: unknown encryption type"* ]]
	fails --engine warp -e aes -p 3 -f "$img"
	[[ "$output" == *"warp: unknown engine"* ]]
	fails --engine fuse -e aes -p 3 -o 100 -f "$img"
	[[ "$output" == *"$img: the offset of an encrypted device must be a multiple of 512"* ]]
	fails -p 3 -f "$img"
	[[ "$output" == *"need --encryption"* ]]
}

@test "the same image read-write twice is refused unless --force" {
	img=$(image 16M)
	dev=$(attach --engine fuse -e aes -p 3 "$img")
	fails --engine fuse -e aes -p 3 -f --show "$img"
	[[ "$output" == *"$img: the image is already in use"*"--force"* ]]
	# the first device is untouched
	dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct status=none
	# a plain loop device on the image counts too
	run "$LOSETUP" -f --show "$img"
	[ "$status" -eq 0 ]
	track "$output"
	plain=$output
	"$UL_LOSETUP" -d "$plain"
	dev2=$(attach --engine fuse -e aes -p 3 --force "$img")
	[ "$dev2" != "$dev" ]
	detach "$dev2"
	detach "$dev"
	# two read-only users are fine
	dev=$(attach --engine fuse -e aes -p 3 -r "$img")
	dev2=$(attach --engine fuse -e aes -p 3 -r "$img")
	run "$LOSETUP" -l -n -O RO "$dev2"
	[ "$(echo $output)" = 1 ]
	run dd if=/dev/zero of="$dev" bs=4k count=1 oflag=direct
	[ "$status" -ne 0 ]
	detach "$dev2"
	detach "$dev"
	assert_clean
}

@test "a plain loop device on the image blocks an encrypted writer" {
	img=$(image 16M)
	plain=$("$LOSETUP" -f --show "$img")
	track "$plain"
	fails --engine fuse -e aes -p 3 -f "$img"
	[[ "$output" == *"already in use"* ]]
	"$LOSETUP" -d "$plain"
}

@test "listing shows the real image and the user's range; -j finds it by the real image" {
	img=$(image 20M)
	dev=$(attach --engine fuse -e AES256 -p 3 -o 1M --sizelimit 16M "$img")
	run "$LOSETUP" -a
	[[ "$output" == *"$dev: ["*"]:$(stat -c %i "$img") ($img), offset 1048576, sizelimit 16777216, encryption AES256 (type 16)"* ]]
	run "$LOSETUP" "$dev"
	[[ "$output" == "$dev: ["*"($img), offset 1048576, sizelimit 16777216, encryption AES256 (type 16)" ]]
	run "$LOSETUP" -j "$img"
	[[ "$output" == "$dev: "*"($img)"* ]]
	run "$LOSETUP" -J -O NAME,BACK-FILE,OFFSET,SIZELIMIT,CIPHER,KEYBITS,ENGINE "$dev"
	[[ "$output" == *'"back-file": "'"$img"'"'* ]]
	[[ "$output" == *'"offset": 1048576'* ]]
	[[ "$output" == *'"sizelimit": 16777216'* ]]
	[[ "$output" == *'"cipher": "AES256"'* ]]
	[[ "$output" == *'"keybits": 256'* ]]
	[[ "$output" == *'"engine": "fuse"'* ]]
	[ "$(blockdev --getsize64 "$dev")" -eq 16777216 ]
	# the default columns are util-linux's
	run "$LOSETUP" -l
	[[ "${lines[0]}" == "NAME"*"SIZELIMIT"*"OFFSET"*"AUTOCLEAR"*"RO"*"BACK-FILE"*"DIO"*"LOG-SEC" ]]
	[[ "${lines[0]}" != *CIPHER* ]]
	detach "$dev"
}

@test "a record whose daemon died and whose device was detached behind our back is cleaned" {
	img=$(image 16M)
	dev=$(attach --engine fuse -e aes -p 3 "$img")
	rec=$(grep -l "device=$dev\$" "$STATE_DIR"/*/state)
	pid=$(grep '^pid=' "$rec" | cut -d= -f2)
	kill -9 "$pid"
	"$UL_LOSETUP" -d "$dev"
	run "$LOSETUP" -a
	[[ "$output" != *"$img"* ]]
	[ ! -e "$rec" ]
	assert_clean
}

# plant_record DIR KEY=VALUE...: a complete record in DIR (every key the
# writer writes), with the given values instead of the defaults
plant_record() {
	local dir=$1 k
	shift
	local -A r=([device]=/dev/loop7 [image]="$TESTDIR/gone.img" [image_dev]=0
		[image_ino]=0 [offset]=0 [sizelimit]=0 [cipher]=AES128 [key_bits]=128
		[key_count]=1 [encrypt_type]=18 [engine]=fuse [read_only]=0 [pid]=999999
		[pid_start]=1 [mount]="$dir/mnt" [fuse_dev]=0 [fuse_ino]=0
		[boot_id]="$(cat /proc/sys/kernel/random/boot_id)")
	for k in "$@"; do r[${k%%=*}]=${k#*=}; done
	mkdir -p "$dir/mnt"
	for k in device image image_dev image_ino offset sizelimit cipher key_bits \
		key_count encrypt_type engine read_only pid pid_start mount fuse_dev \
		fuse_ino boot_id; do
		printf '%s=%s\n' "$k" "${r[$k]}"
	done > "$dir/state"
}

# a process that is not the daemon, and its start time
bystander() {
	setsid sleep 300 < /dev/null > /dev/null 2>&1 &
	BYSTANDER=$!
	echo "$BYSTANDER" >> "$TESTDIR/bystanders"
	BYSTANDER_START=$(awk '{print $22}' "/proc/$BYSTANDER/stat")
}

end_bystanders() {
	local p
	[ -f "$TESTDIR/bystanders" ] || return 0
	while read -r p; do kill "$p" 2>/dev/null || true; done < "$TESTDIR/bystanders"
}

@test "a record from another boot is cleaned" {
	dir="$STATE_DIR/fuse.e2etest$$"
	plant_record "$dir" boot_id=00000000-0000-0000-0000-000000000000
	"$LOSETUP" -a > /dev/null
	[ ! -e "$dir" ]
}

@test "a newline in the image path cannot fake the record; the device survives the next losetup" {
	evil="$TESTDIR/evil"$'\n'"device=bogus"
	truncate -s 16M "$evil"
	dev=$(attach --engine fuse -e AES128 -p 3 "$evil")
	rec=$(grep -l "^device=$dev\$" "$STATE_DIR"/*/state)
	pid=$(grep '^pid=' "$rec" | cut -d= -f2)
	head -c 1M /dev/urandom > "$TESTDIR/data"
	dd if="$TESTDIR/data" of="$dev" bs=1M oflag=direct status=none
	# each of these walks the records: the old reader took the last
	# device= line, called the record stale and killed the daemon
	run "$LOSETUP" -a
	[ "$status" -eq 0 ]
	[[ "$output" == *"$dev"* ]]
	other=$(image 16M other.img)
	dev2=$(attach --engine fuse -e AES128 -p 3 "$other")
	detach "$dev2"
	kill -0 "$pid"
	cmp "$TESTDIR/data" <(dd if="$dev" bs=1M count=1 iflag=direct status=none)
	[ "$(grep -c '^device=' "$rec")" -eq 1 ]
	[ "$("$LOSETUP" -n -O BACK-FILE "$dev")" = "$TESTDIR/evil\x0adevice=bogus" ]
	detach "$dev"
	assert_clean
}

@test "a corrupt record is named and left alone: its process and mount are not touched" {
	bystander
	dir="$STATE_DIR/fuse.e2etest$$"
	TINYFS="$dir/mnt"
	plant_record "$dir" pid="$BYSTANDER" pid_start="$BYSTANDER_START"
	mount -t tmpfs -o size=1M e2etest "$dir/mnt"
	# a repeated key: the old reader let the last one win
	echo "device=/dev/loop6" >> "$dir/state"
	run --separate-stderr "$LOSETUP" -a
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"$dir/state: corrupt record, left alone"* ]]
	kill -0 "$BYSTANDER"
	mountpoint -q "$dir/mnt"
	[ -e "$dir/state" ]
	umount "$dir/mnt"
	rm -rf "$dir"
	end_bystanders
}

@test "a stale record that does not prove its daemon: nothing killed, nothing unmounted outside it" {
	bystander
	dir="$STATE_DIR/fuse.e2etest$$"
	TINYFS="$TESTDIR/victim"
	mkdir "$TINYFS"
	mount -t tmpfs -o size=1M e2etest "$TINYFS"
	# same boot, a live pid with its real start time, but the pid is not
	# cryptoloop-fuse and the mount is not in the record's directory
	plant_record "$dir" pid="$BYSTANDER" pid_start="$BYSTANDER_START" mount="$TINYFS"
	"$LOSETUP" -a > /dev/null
	kill -0 "$BYSTANDER"
	mountpoint -q "$TINYFS"
	[ ! -e "$dir" ]
	umount "$TINYFS"
	end_bystanders
}

@test "--list-ciphers names the formats; --help adds an encryption section" {
	run "$LOSETUP" --list-ciphers
	[ "$status" -eq 0 ]
	[[ "$output" == *"aes "*"util-linux 2.12 cryptoloop"* ]]
	[[ "$output" == *"AES256 "*"loop-AES"* ]]
	[[ "$output" == *$'\nluks '*$'\nluks1 '*$'\nluks2 '* ]]
	# every name listed is one -e takes (the image is missing: the name
	# is judged first), and a name -e refuses is not listed
	names=$(printf '%s\n' "$output" | cut -d' ' -f1)
	for name in $names; do
		run "$LOSETUP" -e "$name" -p 3 -f "$TESTDIR/missing.img" 3< "$TESTDIR/pass"
		[[ "$output" == *"$TESTDIR/missing.img: No such file or directory"* ]] ||
			fail "-e $name, listed, is not taken: $output"
	done
	run "$LOSETUP" -e luks3 -p 3 -f "$TESTDIR/missing.img" 3< "$TESTDIR/pass"
	[[ "$output" == *"luks3: unknown encryption type"* ]]
	run "$LOSETUP" --help
	[[ "$output" == *"Encryption options:"*"-e, --encryption <name>"*"--cleartext-keyfile <file>"*"--engine <name>"* ]]
}

@test "an explicit device: attached there; a busy one is named" {
	img=$(image 16M)
	for _ in 1 2 3; do
		free=$("$LOSETUP" -f) || skip "no free loop device"
		if "$LOSETUP" --engine fuse -e aes -p 3 "$free" "$img" 3< "$TESTDIR/pass"; then
			break
		fi
		free=""	# somebody else took it meanwhile
	done
	[ -n "$free" ]
	track "$free"
	run "$LOSETUP" -l -n -O NAME,BACK-FILE,ENGINE "$free"
	[ "$(echo $output)" = "$free $img fuse" ]
	img2=$(image 16M other)
	fails --engine fuse -e aes -p 3 "$free" "$img2"
	[[ "$output" == *"$free: failed to set up loop device: Device or resource busy"* ]]
	detach "$free"
	assert_clean
}

@test "--engine auto picks kmod only where the module is, then dm where dm-crypt is; here: fuse" {
	img=$(image 16M)
	dev=$(attach --engine auto -e aes -p 3 "$img")
	run "$LOSETUP" -l -n -O ENGINE "$dev"
	if [ -e /dev/cryptoloop-control ]; then
		[ "$(echo $output)" = kmod ]
	elif [ -e /dev/mapper/control ] && { [ -e /sys/module/dm_crypt ] ||
		grep -qs '/dm-crypt.ko' "/lib/modules/$(uname -r)/modules.dep" \
			"/lib/modules/$(uname -r)/modules.builtin"; }; then
		[ "$(echo $output)" = dm ]
	else
		[ "$(echo $output)" = fuse ]
	fi
	detach "$dev"
	if [ ! -e /dev/cryptoloop-control ]; then
		fails --engine kmod -e aes -p 3 -f "$img"
		[[ "$output" == *"engine kmod is not available here"* ]]
	fi
}
