#!/usr/bin/env bats
# Data safety of the FUSE engine: what fsync acknowledged survives a
# killed daemon; a killed daemon means EIO, not a hang, and still detaches
# cleanly; a full or failing backing filesystem is an I/O error on the
# device; secrets stay out of argv and the environment.

bats_require_minimum_version 1.5.0

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

daemon_of() {
	"$LOSETUP" -a > /dev/null	# collect stale records first
	grep -l "device=$1\$" "$STATE_DIR"/*/state | xargs grep -h '^pid=' | cut -d= -f2
}

@test "fsync'ed writes survive kill -9 of the daemon, encrypted in the image" {
	img=$(image 16M)
	dev=$(attach --engine fuse -e aes -p 3 "$img")
	head -c 4M /dev/urandom > "$TESTDIR/data"
	pid=$(daemon_of "$dev")
	[ -n "$pid" ]
	# watch the daemon: the device's fsync must become an fsync of the image
	strace -f -qq -p "$pid" -e trace=fsync,fdatasync -o "$TESTDIR/strace" 2> /dev/null &
	tracer=$!
	for _ in $(seq 50); do
		[ "$(ls /proc/$pid/task | wc -l)" -gt 0 ] &&
			grep -q "TracerPid:[[:space:]]*$tracer" /proc/$pid/status && break
		sleep 0.1
	done
	# buffered writes, then fsync: only the fsync makes them durable
	dd if="$TESTDIR/data" of="$dev" bs=64k conv=fsync status=none
	kill "$tracer"
	wait "$tracer" || true
	grep -Eq "f(data)?sync\(" "$TESTDIR/strace" || fail "fsync on the device did not reach the image"
	kill -9 "$pid"
	# the data is in the image, and not as plaintext
	[ "$(head -c 4M "$img" | tr -d '\0' | wc -c)" -gt 4000000 ]
	! cmp -s "$TESTDIR/data" <(head -c 4M "$img") || fail "the image holds the plaintext"
	detach "$dev"
	assert_clean
	dev=$(attach --engine fuse -e aes -p 3 "$img")
	cmp "$TESTDIR/data" <(head -c 4M "$dev")
	openssl_check "$img" "$dev" "$(raw_key_hex "$PASS")" 4 0 0 1 4095 8191
	detach "$dev"
}

@test "a killed daemon gives EIO on the device, never a hang, and -d cleans up" {
	img=$(image 16M)
	dev=$(attach --engine fuse -e AES256 -p 3 "$img")
	pid=$(daemon_of "$dev")
	[ -e "/run/sendsigs.omit.d/cryptoloop-fuse.$pid" ]
	kill -9 "$pid"
	run timeout 20 dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct
	[ "$status" -ne 124 ] || fail "reading the device hung"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Input/output error"* ]] || [[ "$output" == *"Transport endpoint"* ]]
	run timeout 20 dd if=/dev/zero of="$dev" bs=4k count=1 oflag=direct
	[ "$status" -ne 124 ] && [ "$status" -ne 0 ]
	# still listed with its real image until detached
	run "$LOSETUP" -l -n -O BACK-FILE "$dev"
	[ "$(echo $output)" = "$img" ]
	run timeout 20 "$LOSETUP" -d "$dev"
	[ "$status" -eq 0 ]
	# the dead daemon's entry in the shutdown scripts' spare list went too
	[ ! -e "/run/sendsigs.omit.d/cryptoloop-fuse.$pid" ]
	assert_clean
}

@test "teardown detaches a device the test made without attach, its daemon killed" {
	img=$(image 16M)
	# as mount.cryptoloop or a bare losetup makes it: not tracked
	dev=$("$LOSETUP" -f --show --engine fuse -e aes -p 3 "$img" 3< "$TESTDIR/pass")
	pid=$(daemon_of "$dev")
	kill -9 "$pid"
	e2e_cleanup
	run "$UL_LOSETUP" -l -n -O BACK-FILE "$dev"
	[[ "$output" != *"$STATE_DIR/"* ]] || fail "$dev left attached: $output"
	assert_clean
}

@test "shutdown's signals do not stop the daemon: ext4 on the device keeps its writes" {
	img=$(image 64M)
	dev=$(attach --engine fuse -e aes -p 3 "$img")
	pid=$(daemon_of "$dev")
	mkfs.ext4 -q "$dev"
	mount "$dev" "$MNT"
	head -c 4M /dev/urandom > "$MNT/before"
	# what sendsigs and systemd's final killing spree send to everything
	kill -TERM "$pid"
	kill -INT "$pid"
	kill -HUP "$pid"
	sleep 1
	[ "$(awk '{print $3}' "/proc/$pid/stat")" != Z ] || fail "the daemon died of a signal"
	head -c 4M /dev/urandom > "$MNT/after"
	sync -f "$MNT/after"
	(cd "$MNT" && sha256sum before after) > "$TESTDIR/sums"
	umount "$MNT"
	blockdev --flushbufs "$dev"
	fsck.ext4 -n -f "$dev" > /dev/null 2>&1 || fail "fsck found errors"
	mount -o ro "$dev" "$MNT"
	(cd "$MNT" && sha256sum -c --quiet "$TESTDIR/sums")
	umount "$MNT"
	# the marks that init systems honour: '@' argv[0] (systemd), and
	# the pid in /run/sendsigs.omit.d (Debian's sendsigs)
	[ "$(head -c 1 "/proc/$pid/cmdline")" = @ ]
	[ "$(cat "/run/sendsigs.omit.d/cryptoloop-fuse.$pid")" = "$pid" ]
	# it leaves when its loop device lets go, by itself: util-linux's
	# losetup -d only detaches (ours would stop the daemon after a while)
	mnt=$(grep -l "device=$dev\$" "$STATE_DIR"/*/state | xargs grep -h '^mount=' | cut -d= -f2)
	"$UL_LOSETUP" -d "$dev"
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$pid" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$pid/stat")" = Z ] ||
		fail "the daemon outlived its device"
	[ ! -e "/run/sendsigs.omit.d/cryptoloop-fuse.$pid" ]
	# and took its FUSE mount and its record with it
	! grep -q " $mnt " /proc/mounts || fail "$mnt is still mounted"
	[ ! -e "$(dirname "$mnt")" ]
	assert_clean
}

@test "the daemon gets a clean environment, not the caller's" {
	img=$(image 16M)
	dev=$(CRYPTOLOOP_LEAK_MARK=caller attach --engine fuse -e aes -p 3 "$img")
	pid=$(daemon_of "$dev")
	tr '\0' '\n' < "/proc/$pid/environ" > "$TESTDIR/environ"
	! grep -q CRYPTOLOOP_LEAK_MARK "$TESTDIR/environ" || fail "the caller's environment leaked"
	! grep -q '^BATS_' "$TESTDIR/environ" || fail "the caller's environment leaked"
	grep -qx "PATH=/usr/sbin:/usr/bin:/sbin:/bin" "$TESTDIR/environ"
	# in the build tree, libtool's wrapper script adds its own few
	! grep -v -E '^(PATH|LD_LIBRARY_PATH|PWD|SHLVL|BIN_SH|DUALCASE)=' "$TESTDIR/environ" ||
		fail "unexpected variables in the daemon's environment"
	detach "$dev"
}

@test "-d tears down loop device, daemon and FUSE mount; nothing of ours is left" {
	img=$(image 16M)
	dev=$(attach --engine fuse -e AES128 -p 3 "$img")
	pid=$(daemon_of "$dev")
	mnt=$(grep -l "device=$dev\$" "$STATE_DIR"/*/state | xargs grep -h '^mount=' | cut -d= -f2)
	grep -q " $mnt fuse" /proc/mounts
	detach "$dev"
	! kill -0 "$pid" 2>/dev/null || [ "$(awk '{print $3}' /proc/$pid/stat)" = Z ]
	! grep -q " $mnt " /proc/mounts || fail "$mnt is still mounted"
	[ ! -e "$mnt" ]
	if [ -e "/sys/block/${dev#/dev/}/loop/backing_file" ]; then
		run ! grep -q "$mnt" "/sys/block/${dev#/dev/}/loop/backing_file"
	fi
	assert_clean
}

@test "-d on a mounted device defers like util-linux; the daemon goes at umount" {
	img=$(image 16M)
	dev=$(attach --engine fuse -e aes -p 3 "$img")
	mkfs.ext4 -q "$dev"
	mount "$dev" "$MNT"
	detach "$dev"
	echo still writable > "$MNT/file"
	umount "$MNT"
	for _ in $(seq 50); do [ -z "$(our_daemons)" ] && break; sleep 0.1; done
	"$LOSETUP" -a > /dev/null
	assert_clean
}

@test "ENOSPC on the backing filesystem is an I/O error on the device" {
	TINYFS="$TESTDIR/tiny"
	mkdir "$TINYFS"
	mount -t tmpfs -o size=4M tmpfs "$TINYFS"
	truncate -s 32M "$TINYFS/image"
	dev=$(attach --engine fuse -e aes -p 3 "$TINYFS/image")
	run dd if=/dev/urandom of="$dev" bs=1M count=16 oflag=direct
	[ "$status" -ne 0 ]
	[[ "$output" == *"No space left"* || "$output" == *"Input/output error"* ]]
	# what did fit reads back
	run dd if="$dev" of=/dev/null bs=1M count=1 iflag=direct
	[ "$status" -eq 0 ]
	detach "$dev"
	umount "$TINYFS"
	assert_clean
}

@test "I/O errors of the backing device (a loop-mounted ext4 that fills up) reach the device" {
	truncate -s 8M "$TESTDIR/fs.img"
	mkfs.ext4 -q "$TESTDIR/fs.img"
	TINYFS="$TESTDIR/ext4"
	mkdir "$TINYFS"
	mount -o loop "$TESTDIR/fs.img" "$TINYFS"
	truncate -s 64M "$TINYFS/image"
	dev=$(attach --engine fuse -e AES256 -p 3 "$TINYFS/image")
	run dd if=/dev/urandom of="$dev" bs=1M count=32 conv=fsync
	[ "$status" -ne 0 ]
	detach "$dev"
	fsdev=$(findmnt -n -o SOURCE "$TINYFS")
	umount "$TINYFS"
	# autoclear frees the loop device after umount returns
	for _ in $(seq 50); do
		"$UL_LOSETUP" "$fsdev" > /dev/null 2>&1 || break
		sleep 0.1
	done
	assert_clean
}

@test "the daemon: no secrets in argv or environ, memory locked, no tty, no stdio" {
	img=$(image 16M)
	dev=$(attach --engine fuse -e aes -p 3 "$img")
	pid=$(daemon_of "$dev")
	! tr '\0' '\n' < "/proc/$pid/cmdline" | grep -qF "$PASS" || fail "passphrase in argv"
	! tr '\0' '\n' < "/proc/$pid/environ" | grep -qF "$PASS" || fail "passphrase in environ"
	[ "$(awk '/^VmLck/ {print $2}' "/proc/$pid/status")" -gt 0 ]
	# no controlling terminal, own session
	[ "$(awk '{print $7}' "/proc/$pid/stat")" = 0 ]
	# stdio is /dev/null: nothing to print to
	[ "$(readlink "/proc/$pid/fd/1")" = /dev/null ]
	detach "$dev"
}

@test "writes that split sectors (straight to the daemon's file) read-modify-write correctly" {
	img=$(image 4M)
	dev=$(attach --engine fuse -e AES256 -p 3 "$img")
	head -c 4M /dev/urandom > "$TESTDIR/model"
	dd if="$TESTDIR/model" of="$dev" bs=1M oflag=direct status=none
	file=$(dirname "$(grep -l "device=$dev\$" "$STATE_DIR"/*/state)")/mnt/data
	# head only, tail only, inside one sector, across many sectors
	for w in "5 10" "500 20" "1000 3000" "4095 2" "8191 1" "100000 70000"; do
		set -- $w
		head -c "$2" /dev/urandom > "$TESTDIR/piece"
		for f in "$file" "$TESTDIR/model"; do
			dd if="$TESTDIR/piece" of="$f" bs="$2" seek="$1" oflag=seek_bytes conv=notrunc status=none
		done
	done
	cmp "$TESTDIR/model" "$file"
	cmp "$TESTDIR/model" <(device_bytes "$dev")
	detach "$dev"
	# and it is all in the image, encrypted the same way
	dev=$(attach --engine fuse -e AES256 -p 3 "$img")
	cmp "$TESTDIR/model" <(device_bytes "$dev")
	detach "$dev"
}
