#!/usr/bin/env bats
# Every on-disk format end to end through the FUSE engine (the kmod
# engine in the VM, with E2E_ENGINE=kmod): ext4 on the
# encrypted device, detach, re-attach with the same key, verify; and the
# image checked by an independent implementation (openssl per sector for
# cryptoloop/plain64, aespipe for loop-AES), both ways.

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

# roundtrip ARGS...: ext4 write, detach, re-attach with ARGS, verify; the
# device stays attached in $DEV for the caller's format check
roundtrip() {
	local img=$1
	shift
	DEV=$(attach --engine "$E2E_ENGINE" "$@" "$img")
	fs_write "$DEV"
	detach "$DEV"
	assert_clean
	DEV=$(attach --engine "$E2E_ENGINE" "$@" "$img")
	fs_verify "$DEV"
}

@test "cryptoloop 'aes': ext4 round trip, sectors match openssl AES-256-CBC, 32-bit IV" {
	img=$(image 32M)
	roundtrip "$img" -e aes -p 3
	run "$LOSETUP" -l -n -O NAME,BACK-FILE,CIPHER,KEYBITS,ENGINE "$DEV"
	[ "$status" -eq 0 ]
	[[ "$(echo $output)" == "$DEV $img aes 256 $E2E_ENGINE" ]]
	openssl_check "$img" "$DEV" "$(raw_key_hex "$PASS")" 4 0 $(sample_sectors "$DEV")
	detach "$DEV"
	assert_clean
}

@test "cryptoloop 'aes' with -o: the IV counts sectors from the start of the file" {
	img=$(image 33M)
	roundtrip "$img" -e aes -p 3 -o 1M
	openssl_check "$img" "$DEV" "$(raw_key_hex "$PASS")" 4 2048 $(sample_sectors "$DEV")
	run "$LOSETUP" -l -n -O OFFSET "$DEV"
	[ "$(echo $output)" = 1048576 ]
	detach "$DEV"
}

@test "plain64 'aes-cbc-plain64': ext4 round trip, sectors match openssl with a 64-bit IV" {
	img=$(image 32M)
	roundtrip "$img" -e aes-cbc-plain64 -p 3
	openssl_check "$img" "$DEV" "$(raw_key_hex "$PASS")" 8 0 $(sample_sectors "$DEV")
	detach "$DEV"
}

# aespipe_check IMG DEV AESPIPE-ARGS...: aespipe decrypts the whole image
# to exactly the device's plaintext (passphrase on fd 3 from $PASSFILE)
aespipe_check() {
	local img=$1 dev=$2
	shift 2
	aespipe -d "$@" < "$img" 3< "${PASSFILE:-$TESTDIR/pass}" > "$TESTDIR/aespipe.out" ||
		fail "aespipe failed"
	cmp "$TESTDIR/aespipe.out" <(device_bytes "$dev") ||
		fail "aespipe decrypts the image differently from the device"
	rm -f "$TESTDIR/aespipe.out"
}

@test "loop-AES AES128 (SHA-256 key): ext4 round trip, image equals aespipe's" {
	img=$(image 32M)
	roundtrip "$img" -e AES128 -p 3
	aespipe_check "$img" "$DEV" -e aes128 -p 3
	detach "$DEV"
}

@test "loop-AES AES256 (SHA-512 key) with -o: image equals aespipe's" {
	img=$(image 33M)
	roundtrip "$img" -e AES256 -p 3 -o 1M
	dd if="$img" of="$TESTDIR/tail" bs=1M skip=1 status=none
	# aespipe -O: the IV sector of the first byte it reads
	aespipe_check "$TESTDIR/tail" "$DEV" -e aes256 -O 2048 -p 3
	detach "$DEV"
}

# keyfile N: N lines of random key material (loop-AES multi-key)
keyfile() {
	head -c 4096 /dev/urandom | base64 -w 40 | head -n "$1" > "$TESTDIR/keys$1"
	echo "$TESTDIR/keys$1"
}

@test "loop-AES multi-key v2 (64 lines) by --cleartext-keyfile: image equals aespipe's" {
	img=$(image 32M)
	keys=$(keyfile 64)
	roundtrip "$img" -e AES128 --cleartext-keyfile "$keys"
	aespipe_check "$img" "$DEV" -e aes128 -P "$keys"
	detach "$DEV"
}

@test "loop-AES multi-key v3 (65 lines) on -p fd: image equals aespipe's" {
	img=$(image 32M)
	PASSFILE=$(keyfile 65)
	roundtrip "$img" -e AES256 -p 3
	aespipe_check "$img" "$DEV" -e aes256 -p 3
	detach "$DEV"
}

@test "loop-AES gpg key file (-K, 65 keys): ext4 round trip, image equals aespipe's" {
	img=$(image 32M)
	keys=$(keyfile 65)
	export GNUPGHOME="$TESTDIR/gnupg"
	mkdir -m 700 "$GNUPGHOME"
	echo "gpg passphrase for the key file" > "$TESTDIR/gpgpass"
	gpg --batch --no-options --quiet --pinentry-mode loopback --passphrase-fd 3 \
	    --symmetric --cipher-algo AES256 -a -o "$TESTDIR/keys.gpg" "$keys" 3< "$TESTDIR/gpgpass"
	PASSFILE="$TESTDIR/gpgpass"
	roundtrip "$img" -e AES128 -K "$TESTDIR/keys.gpg" -G "$GNUPGHOME" -p 3
	aespipe_check "$img" "$DEV" -e aes128 -K "$TESTDIR/keys.gpg" -G "$GNUPGHOME" -p 3
	detach "$DEV"
	assert_clean
}

@test "a gpg key file opens where gpg has no home yet (a fresh system, boot, an initramfs)" {
	img=$(image 32M)
	keys=$(keyfile 65)
	mkdir -m 700 "$TESTDIR/gnupg"
	echo "gpg passphrase for the key file" > "$TESTDIR/gpgpass"
	gpg --homedir "$TESTDIR/gnupg" --batch --no-options --quiet --pinentry-mode loopback \
	    --passphrase-fd 3 --symmetric --cipher-algo AES256 -a -o "$TESTDIR/keys.gpg" "$keys" \
	    3< "$TESTDIR/gpgpass"
	PASSFILE="$TESTDIR/gpgpass"
	# neither -G nor GNUPGHOME, and HOME has no .gnupg: gpg's own home is missing
	unset GNUPGHOME
	export HOME="$TESTDIR/fresh-home"
	ls -d /run/cryptoloop-gpg.* /tmp/cryptoloop-gpg.* 2>/dev/null | sort > "$TESTDIR/homes.before" || true
	roundtrip "$img" -e AES128 -K "$TESTDIR/keys.gpg" -p 3
	aespipe_check "$img" "$DEV" -e aes128 -K "$TESTDIR/keys.gpg" -G "$TESTDIR/gnupg" -p 3
	detach "$DEV"
	assert_clean
	# nothing made in the user's name, and the throwaway homes are gone
	[ ! -e "$HOME" ]
	ls -d /run/cryptoloop-gpg.* /tmp/cryptoloop-gpg.* 2>/dev/null | sort > "$TESTDIR/homes.after" || true
	cmp "$TESTDIR/homes.before" "$TESTDIR/homes.after"
}

# aespipe encrypts; we must read what it wrote
aespipe_made() {
	head -c 8M /dev/urandom > "$TESTDIR/plain"
	aespipe "$@" < "$TESTDIR/plain" > "$TESTDIR/made.img" 3< "${PASSFILE:-$TESTDIR/pass}"
}

@test "images written by aespipe attach and read back: AES256, v2 64 keys, v3 65 keys" {
	aespipe_made -e aes256 -p 3
	dev=$(attach --engine "$E2E_ENGINE" -e AES256 -p 3 "$TESTDIR/made.img")
	cmp "$TESTDIR/plain" <(device_bytes "$dev")
	detach "$dev"

	keys=$(keyfile 64)
	aespipe_made -e aes192 -P "$keys"
	dev=$(attach --engine "$E2E_ENGINE" -e AES192 --cleartext-keyfile "$keys" "$TESTDIR/made.img")
	cmp "$TESTDIR/plain" <(device_bytes "$dev")
	detach "$dev"

	PASSFILE=$(keyfile 65)
	aespipe_made -e aes128 -p 3
	dev=$(attach --engine "$E2E_ENGINE" -e AES128 -p 3 "$TESTDIR/made.img")
	cmp "$TESTDIR/plain" <(device_bytes "$dev")
	detach "$dev"
	assert_clean
}

@test "the wrong passphrase gives other plaintext, and the image is untouched" {
	img=$(image 16M)
	dev=$(attach --engine "$E2E_ENGINE" -e AES256 -p 3 "$img")
	head -c 1M /dev/urandom > "$TESTDIR/data"
	dd if="$TESTDIR/data" of="$dev" bs=1M oflag=direct status=none
	detach "$dev"
	sum=$(sha256sum < "$img")
	echo "a different passphrase, long enough" > "$TESTDIR/other"
	dev=$(PASSFILE="$TESTDIR/other" attach --engine "$E2E_ENGINE" -e AES256 -p 3 "$img")
	! cmp -s "$TESTDIR/data" <(head -c 1M "$dev") || fail "the wrong passphrase read the data"
	detach "$dev"
	[ "$(sha256sum < "$img")" = "$sum" ]
}
