#!/usr/bin/env bats
# losetup -F: set a device up from the fstab line that names it with
# loop=DEVICE, as loop-AES's losetup does.
bats_require_minimum_version 1.5.0

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

@test "-F takes cipher, offset and hash from the loop= line" {
	img=$(image 16M)
	dev=$("$UL_LOSETUP" -f)
	echo "$img /mnt/nowhere ext4 loop=$dev,encryption=AES256,offset=4096,phash=sha512,noauto 0 0" \
		> "$TESTDIR/fstab"
	LIBMOUNT_FSTAB="$TESTDIR/fstab" "$LOSETUP" -F -p 3 "$dev" 3< "$TESTDIR/pass"
	track "$dev"
	run "$LOSETUP" -l -n -O BACK-FILE,OFFSET,CIPHER,KEYBITS "$dev"
	[ "$(echo $output)" = "$img 4096 AES256 256" ]
	# the same device by hand: the same plaintext
	head -c 1M /dev/urandom > "$TESTDIR/data"
	dd if="$TESTDIR/data" of="$dev" bs=1M oflag=direct status=none
	detach "$dev"
	other=$(attach -e AES256 -H sha512 -o 4096 -p 3 "$img")
	cmp "$TESTDIR/data" <(head -c 1M "$other")
}

@test "-F without a matching line names the device and the fstab" {
	echo "/x /y ext4 defaults 0 0" > "$TESTDIR/fstab"
	run --separate-stderr env LIBMOUNT_FSTAB="$TESTDIR/fstab" "$LOSETUP" -F /dev/loop7
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: /dev/loop7: no line with loop=/dev/loop7 in $TESTDIR/fstab" ]
}
