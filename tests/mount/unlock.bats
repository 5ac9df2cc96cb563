#!/usr/bin/env bats
# cryptoloop-unlock: the root line (an ordinary fstab line with
# x-cryptoloop.* options) set up as the initramfs does it, on the suite's
# engine (FUSE here: CRYPTOLOOP_UNLOCK_ENGINE stands for the kmod/dm
# choice, which needs a kernel the host lacks).
bats_require_minimum_version 1.5.0

load helpers

UNLOCK="$top_builddir/mount/cryptoloop-unlock"
PTY="$top_builddir/tests/tty/pty-answer"

setup() {
	e2e_setup
	FSTAB="$TESTDIR/fstab"
	export CRYPTOLOOP_UNLOCK_ENGINE=$E2E_ENGINE
	# no password agent: a directory that is not there
	export LIBLOOP_ASK_PASSWORD_DIR="$TESTDIR/no-agent"
}

teardown() {
	e2e_teardown
}

# gpg_root: $IMG, ext4 encrypted by aespipe (multi-key v3, the KAT's 65-key
# gpg file), as tests/boot/root-disks makes the root; $K the key file
gpg_root() {
	kat_gpgkey
	K="$top_srcdir/tests/kat/pass/kf65.gpg"
	truncate -s 32M "$TESTDIR/plain"
	mkfs.ext4 -q -F -L clt-root "$TESTDIR/plain"
	IMG="$TESTDIR/root.img"
	aespipe -e aes128 -K "$K" -p 3 3<<<"$gp" < "$TESTDIR/plain" > "$IMG"
	rm "$TESTDIR/plain"
}

# plain_root: $IMG, ext4 under AES256 with the passphrase $PASS (sha256),
# set up by our losetup as mount_setup does
plain_root() {
	IMG=$(image 64M secret.img)
	local dev
	dev=$(attach -e AES256 -H sha256 -p 3 "$IMG")
	mkfs.ext4 -q "$dev"
	detach "$dev"
}

# no .keydev-* directory of ours is left under /run/cryptoloop
no_keydev_left() {
	! grep -q " $STATE_DIR/.keydev-" /proc/mounts || fail "key device left mounted"
	[ -z "$(find "$STATE_DIR" -maxdepth 1 -name '.keydev-*' -newer "$FSTAB")" ] ||
		fail "key device directory left"
}

@test "--check: a line with keydev prints every value, quoted for eval" {
	cat > "$FSTAB" <<-'EOF'
	# the root
	UUID=1234-abcd / ext4 errors=remount-ro,x-cryptoloop.source=PARTUUID=0a-01,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/root'key.gpg,x-cryptoloop.keydev=LABEL=CLKEYS,x-cryptoloop.keydev-timeout=5,x-cryptoloop.engine=dm 0 1
	EOF
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$output" "device='UUID=1234-abcd'
fstype='ext4'
source='PARTUUID=0a-01'
engine='dm'
gpgkey='/root'\\''key.gpg'
keyfile=''
keydev='LABEL=CLKEYS'
keydev_timeout='5'"
	# what a hook does with it
	eval "$output"
	[ "$gpgkey" = "/root'key.gpg" ]
	[ "$keydev_timeout" = 5 ]
}

@test "--check: a line without keydev: engine auto, empty key values, timeout 30" {
	cat > "$FSTAB" <<-'EOF'
	/dev/sda1 /boot ext4 defaults 0 2
	/dev/cryptoloop5 / ext4 defaults,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=sha256 0 1
	EOF
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /
	[ "$status" -eq 0 ]
	same "$output" "device='/dev/cryptoloop5'
fstype='ext4'
source='/dev/vda'
engine='auto'
gpgkey=''
keyfile=''
keydev=''
keydev_timeout='30'"
}

@test "--check: a missing line, bad options, engine=fuse: exit 1, the line named" {
	cat > "$FSTAB" <<-'EOF'
	/dev/sda1 /boot ext4 defaults 0 2
	/dev/cryptoloop1 /a ext4 defaults,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.engine=fuse 0 1
	/dev/cryptoloop2 /b ext4 defaults,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.nosuch=1 0 1
	/dev/cryptoloop3 /c ext4 defaults,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.keydev-timeout=soon,x-cryptoloop.gpgkey=/k.gpg,x-cryptoloop.keydev=LABEL=K 0 1
	/dev/cryptoloop4 /d ext4 defaults,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.keydev=LABEL=K 0 1
	/dev/cryptoloop5 /e ext4 defaults,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.engine=xfer 0 1
	/dev/cryptoloop6 /f ext4 defaults,x-cryptoloop.source=/dev/vda,x-cryptoloop.encryption=AES128,x-cryptoloop.keybits=128,x-cryptoloop.keybits=256 0 1
	EOF
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	same "$stderr" "cryptoloop-unlock: $FSTAB: no line for / with x-cryptoloop.source="
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /a
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "cryptoloop-unlock: $FSTAB:2: x-cryptoloop.engine=fuse: only kmod or dm"* ]]
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /b
	[ "$status" -eq 1 ]
	same "$stderr" "cryptoloop-unlock: $FSTAB:3: x-cryptoloop.nosuch=1 is not an encryption option"
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /c
	[ "$status" -eq 1 ]
	[[ "$stderr" == "cryptoloop-unlock: $FSTAB:4: x-cryptoloop.keydev-timeout=soon: not a number"* ]]
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /d
	[ "$status" -eq 1 ]
	[[ "$stderr" == "cryptoloop-unlock: $FSTAB:5: x-cryptoloop.keydev= names where the key file is"* ]]
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /e
	[ "$status" -eq 1 ]
	[[ "$stderr" == "cryptoloop-unlock: $FSTAB:6: x-cryptoloop.engine=xfer: only kmod or dm"* ]]
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /f
	[ "$status" -eq 1 ]
	same "$stderr" "cryptoloop-unlock: $FSTAB:7: bad option x-cryptoloop.keybits=256 (unknown value, missing or repeated)"
}

@test "an aespipe root with a gpg key file, passphrase on a pipe: the device and FSTYPE=ext4; a re-run finds it" {
	gpg_root
	echo "/dev/cryptoloop5 /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=$K 0 1" > "$FSTAB"
	run --separate-stderr "$UNLOCK" --fstab "$FSTAB" /r <<<"$gp"
	[ "$status" -eq 0 ]
	dev=${lines[0]}
	track "$dev"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[1]}" = FSTYPE=ext4 ]
	[ "$(blkid -p -o value -s LABEL "$dev")" = clt-root ]
	# a second run (the hook runs again): the same device, nothing asked
	run --separate-stderr "$UNLOCK" --fstab "$FSTAB" /r </dev/null
	[ "$status" -eq 0 ]
	same "$output" "$dev
FSTYPE=ext4"
	[ "$("$LOSETUP" -a | grep -c "$IMG")" -eq 1 ]
	detach "$dev"
	assert_clean
}

@test "a wrong passphrase on a pipe: exit 3 at once, nothing attached" {
	gpg_root
	echo "/dev/cryptoloop5 /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=$K 0 1" > "$FSTAB"
	run --separate-stderr "$UNLOCK" --fstab "$FSTAB" /r <<<"not the passphrase at all"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[[ "$stderr" == *"$FSTAB:1: $K: gpg cannot decrypt the key file"* ]]
	[[ "$stderr" != *"try again"* ]]
	[[ "$stderr" == *"
cryptoloop-unlock: $FSTAB:1: the passphrase or key was wrong on every try: $IMG is not set up" ]]
	assert_clean
}

@test "a plain passphrase line asked on a terminal: three wrong ones give exit 3, nothing attached" {
	plain_root
	echo "/dev/cryptoloop5 /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES256,x-cryptoloop.phash=sha256 0 1" > "$FSTAB"
	printf '%s\n' "wrong passphrase number one" "wrong passphrase number two" \
		"wrong passphrase number three" "$PASS" > "$TESTDIR/answers"
	run --separate-stderr "$PTY" --transcript "$TESTDIR/tty" "$TESTDIR/answers" -- \
		"$UNLOCK" --fstab "$FSTAB" /r
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[ "$(grep -c 'Password: ' "$TESTDIR/tty")" -eq 3 ]
	[[ "$stderr" == *"try again (2 of 3)"*"try again (3 of 3)"* ]]
	[[ "$stderr" == *"no filesystem found on the decrypted device"* ]]
	[[ "$stderr" == *"
cryptoloop-unlock: $FSTAB:1: the passphrase or key was wrong on every try: $IMG is not set up" ]]
	nothing_attached
	assert_clean
}

@test "a plain passphrase line asked on a terminal: right at the third try" {
	plain_root
	echo "/dev/cryptoloop5 /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES256,x-cryptoloop.phash=sha256 0 1" > "$FSTAB"
	printf '%s\n' "wrong passphrase number one" "wrong passphrase number two" "$PASS" \
		> "$TESTDIR/answers"
	run --separate-stderr "$PTY" --transcript "$TESTDIR/tty" "$TESTDIR/answers" -- \
		"$UNLOCK" --fstab "$FSTAB" /r
	[ "$status" -eq 0 ]
	track "${lines[0]}"
	[ "${lines[1]}" = FSTYPE=ext4 ]
	[ "$("$LOSETUP" -a | grep -c "$IMG")" -eq 1 ]
	detach "${lines[0]}"
	assert_clean
}

@test "a console on stdin without a controlling terminal (initramfs-tools): echo off, asked again, restored" {
	plain_root
	echo "/dev/cryptoloop5 /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES256,x-cryptoloop.phash=sha256 0 1" > "$FSTAB"
	printf '%s\n' "wrong passphrase number one" "$PASS" > "$TESTDIR/answers"
	# the device and FSTYPE= go to the console too: the transcript has them
	run "$PTY" --console --echo-off --transcript "$TESTDIR/tty" "$TESTDIR/answers" -- \
		"$UNLOCK" --fstab "$FSTAB" /r
	[ "$status" -eq 0 ] || fail "status $status: $output; on the console: $(cat "$TESTDIR/tty")"
	dev=$(grep -o '^/dev/[a-z0-9/-]*' "$TESTDIR/tty")
	track "$dev"
	grep -q "^FSTYPE=ext4" "$TESTDIR/tty"
	grep -q "try again (2 of 3)" "$TESTDIR/tty"
	[ "$(grep -c 'Password: ' "$TESTDIR/tty")" -eq 2 ]
	run ! grep -F -e "$PASS" -e "number one" "$TESTDIR/tty"
	detach "$dev"
	assert_clean
}

@test "keydev=: the key file on a labelled ext4 device, mounted read-only for the unlock only" {
	gpg_root
	mkdir "$TESTDIR/keys"
	cp "$K" "$TESTDIR/keys/rootkey.gpg"
	label="clt-keys-$$"
	truncate -s 8M "$TESTDIR/keys.img"
	mkfs.ext4 -q -F -L "$label" -d "$TESTDIR/keys" "$TESTDIR/keys.img"
	kdev=$(ATTACH_ENGINE='' attach "$TESTDIR/keys.img")
	udevadm settle -t 5 || true
	echo "LABEL=clt-root /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/rootkey.gpg,x-cryptoloop.keydev=LABEL=$label,x-cryptoloop.keydev-timeout=5 0 1" > "$FSTAB"
	run --separate-stderr "$UNLOCK" --fstab "$FSTAB" /r <<<"$gp"
	[ "$status" -eq 0 ]
	track "${lines[0]}"
	[ "${lines[1]}" = FSTYPE=ext4 ]
	no_keydev_left
	! grep -q "^$kdev " /proc/mounts || fail "$kdev is still mounted"
	detach "${lines[0]}"
	detach "$kdev"
	assert_clean
}

# key_stick: $kdev, a loop device over an ext4 image labelled $label made
# from the directory $TESTDIR/keys (what a USB stick holds)
key_stick() {
	label="clt-keys-$$"
	truncate -s 16M "$TESTDIR/keys.img"
	mkfs.ext4 -q -F -L "$label" -d "$TESTDIR/keys" "$TESTDIR/keys.img"
	kdev=$(ATTACH_ENGINE='' attach "$TESTDIR/keys.img")
	udevadm settle -t 5 || true
}

@test "keydev=: a symbolic link on the key device is not followed off it: refused, the line, device and file named" {
	gpg_root
	# the host's copy of the key, which the link on the stick points at
	mkdir "$TESTDIR/keys" "$TESTDIR/host"
	cp "$K" "$TESTDIR/host/rootkey.gpg"
	ln -s "$TESTDIR/host/rootkey.gpg" "$TESTDIR/keys/rootkey.gpg"
	key_stick
	echo "LABEL=clt-root /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/rootkey.gpg,x-cryptoloop.keydev=LABEL=$label,x-cryptoloop.keydev-timeout=5 0 1" > "$FSTAB"
	run --separate-stderr timeout 30 "$UNLOCK" --fstab "$FSTAB" /r <<<"$gp"
	[ "$status" -eq 0 ] && track "${lines[0]}"
	[ "$status" -eq 1 ] || fail "status $status: $output; $stderr"
	[ -z "$output" ]
	[[ "$stderr" == *"cryptoloop-unlock: $FSTAB:1: key device LABEL=$label ($kdev): the key file /rootkey.gpg: a symbolic link on the way, refused"* ]]
	no_keydev_left
	detach "$kdev"
	nothing_attached
	assert_clean
}

@test "keydev=: a FIFO or a file too large on the key device: refused at once, not waited on" {
	gpg_root
	mkdir "$TESTDIR/keys"
	mkfifo "$TESTDIR/keys/rootkey.gpg"
	head -c $((8 * 1024 * 1024 + 1)) /dev/zero > "$TESTDIR/keys/big.key"
	key_stick
	echo "LABEL=clt-root /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/rootkey.gpg,x-cryptoloop.keydev=LABEL=$label,x-cryptoloop.keydev-timeout=2 0 1" > "$FSTAB"
	SECONDS=0
	# the open() of a FIFO waits for a writer: the timeout ends the test
	run --separate-stderr timeout 20 "$UNLOCK" --fstab "$FSTAB" /r <<<"$gp"
	if [ "$status" -ne 1 ]; then
		# a killed unlock leaves the stick mounted: this test's, unmounted
		awk -v d="$kdev" '$1 == d { print $2 }' /proc/mounts | while read -r m; do
			umount "$m" && rmdir "$m"
		done
		fail "status $status after $SECONDS s: $stderr"
	fi
	[ "$SECONDS" -le 10 ]
	[ -z "$output" ]
	# the last line: udev may still be making the label's link
	same "${stderr##*$'\n'}" "cryptoloop-unlock: $FSTAB:1: key device LABEL=$label ($kdev): the key file /rootkey.gpg: a FIFO, not a regular file: refused"
	no_keydev_left
	echo "LABEL=clt-root /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES128,x-cryptoloop.keyfile=/big.key,x-cryptoloop.keydev=LABEL=$label,x-cryptoloop.keydev-timeout=2 0 1" > "$FSTAB"
	run --separate-stderr timeout 20 "$UNLOCK" --fstab "$FSTAB" /r </dev/null
	[ "$status" -eq 1 ] || fail "status $status: $stderr"
	same "${stderr##*$'\n'}" "cryptoloop-unlock: $FSTAB:1: key device LABEL=$label ($kdev): the key file /big.key: too large (8388609 bytes; a key file has at most 8388608)"
	no_keydev_left
	detach "$kdev"
	nothing_attached
	assert_clean
}

@test "--check: gpgkey= and keyfile= on one line are refused, the line named" {
	cat > "$FSTAB" <<-'EOF'
	/dev/sda1 /boot ext4 defaults 0 2
	UUID=1234-abcd / ext4 defaults,x-cryptoloop.source=PARTUUID=0a-01,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/rootkey.gpg,x-cryptoloop.keyfile=/rootkey,x-cryptoloop.keydev=LABEL=CLKEYS 0 1
	EOF
	run --separate-stderr "$UNLOCK" --check --fstab "$FSTAB" /
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	same "$stderr" "cryptoloop-unlock: $FSTAB:2: x-cryptoloop.gpgkey= and x-cryptoloop.keyfile= both name the key file: give one"
	# the same without --check, before anything is waited for
	run --separate-stderr timeout 20 "$UNLOCK" --fstab "$FSTAB" / </dev/null
	[ "$status" -eq 1 ]
	same "$stderr" "cryptoloop-unlock: $FSTAB:2: x-cryptoloop.gpgkey= and x-cryptoloop.keyfile= both name the key file: give one"
}

@test "keydev=: a key device that never comes: one message, exit 1 after keydev-timeout, nothing left" {
	gpg_root
	echo "/dev/cryptoloop5 /r ext4 defaults,x-cryptoloop.source=$IMG,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/rootkey.gpg,x-cryptoloop.keydev=LABEL=clt-none-$$,x-cryptoloop.keydev-timeout=1 0 1" > "$FSTAB"
	SECONDS=0
	run --separate-stderr "$UNLOCK" --fstab "$FSTAB" /r <<<"$gp"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$SECONDS" -le 4 ]
	same "$stderr" "cryptoloop-unlock: waiting up to 1 s for the key device LABEL=clt-none-$$ holding /rootkey.gpg for /r
cryptoloop-unlock: $FSTAB:1: the key device LABEL=clt-none-$$ did not appear within 1 s"
	no_keydev_left
	assert_clean
}

@test "a missing source: the waiting is said once, first, and nothing is asked meanwhile" {
	echo "/dev/cryptoloop5 /r ext4 defaults,x-cryptoloop.source=PARTUUID=clt-none-$$,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=sha256 0 1" > "$FSTAB"
	# 30 s is the contract; a test cannot wait that long on each run:
	# only the message and that nothing is asked before it
	run --separate-stderr timeout 2 "$UNLOCK" --fstab "$FSTAB" /r </dev/null
	[ "$status" -eq 124 ]
	same "$stderr" "cryptoloop-unlock: waiting up to 30 s for the source PARTUUID=clt-none-$$ of /r"
}

@test "keydev= and keydev-timeout= are the root line's: the generator, losetup -F and mount.cryptoloop refuse them" {
	export SYSTEMD_FSTAB="$FSTAB"
	mkdir -p "$TESTDIR/gen" "$TESTDIR/modules"
	echo "updates/dkms/cryptoloop.ko.xz:" > "$TESTDIR/modules/modules.dep"
	export CRYPTOLOOP_MODULES_DIR="$TESTDIR/modules"
	export SYSTEMD_PROC_CMDLINE="" CRYPTOLOOP_SLEEP_CONF_DIR="$TESTDIR/sleep.conf.d"
	echo "/dev/cryptoloop1 none swap sw,x-cryptoloop.source=/dev/vdb,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/k.gpg,x-cryptoloop.keydev=LABEL=K 0 0" > "$FSTAB"
	run --separate-stderr "$top_builddir/generator/cryptoloop-generator" "$TESTDIR/gen"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$FSTAB: swap line /dev/cryptoloop1: x-cryptoloop.keydev= is only for the root line"* ]]
	[ ! -e "$TESTDIR/gen/cryptoloop-setup-cryptoloop1.service" ]

	echo "$TESTDIR/img /mnt ext4 loop=/dev/loop7,encryption=AES128,keydev-timeout=4 0 0" > "$FSTAB"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" "$LOSETUP" -F /dev/loop7
	[ "$status" -eq 1 ]
	same "$stderr" "losetup: /dev/loop7: $FSTAB: the line with loop=/dev/loop7: keydev-timeout= is only for the root line of cryptoloop-unlock(8)"

	echo "$TESTDIR/img /mnt cryptoloop cipher=AES128,keydev=LABEL=K 0 0" > "$FSTAB"
	touch "$TESTDIR/img"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" "$top_builddir/mount/mount.cryptoloop" \
		"$TESTDIR/img" /mnt -o cipher=AES128,keydev=LABEL=K
	[ "$status" -eq 1 ]
	same "$stderr" "mount.cryptoloop: $FSTAB:1: $TESTDIR/img: keydev= is only for the root line of cryptoloop-unlock(8) (x-cryptoloop.keydev=)"
	assert_clean
}
