#!/usr/bin/env bats
# cryptoloop-reencrypt end to end: each result is opened by aespipe
# (loop-AES's tool) or compared with an image aespipe wrote.

load helpers

setup() {
	reenc_setup
	plain "$TESTDIR/plain" 2M
}

teardown() {
	gpg_stop
	reenc_teardown
}

@test "aes (util-linux 2.12) to loop-AES v3 with a generated gpg key file: aespipe -K decrypts it" {
	command -v gpg >/dev/null || skip "needs gpg"
	gpg_home
	local gp="$KEYS/gpgpass.txt"
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256 -H unhashed2
	run "$REENC" -e aes -p 3 "$IMG" --new -e AES128 -K "$TESTDIR/new.gpg" \
		-G "$GNUPGHOME_T" --generate -p 4 3<"$TESTDIR/p_old" 4<"$gp"
	[ "$status" -eq 0 ]
	# 65 lines of 60 base64 characters, gpg-encrypted with ASCII armour
	head -1 "$TESTDIR/new.gpg" | grep -q "BEGIN PGP MESSAGE"
	gpg --homedir "$GNUPGHOME_T" --batch --quiet --pinentry-mode loopback \
		--passphrase-fd 3 -d "$TESTDIR/new.gpg" 3<"$gp" > "$TESTDIR/lines"
	[ "$(wc -l < "$TESTDIR/lines")" -eq 65 ]
	[ "$(grep -cE '^[A-Za-z0-9+/]{60}$' "$TESTDIR/lines")" -eq 65 ]
	[ "$(sort -u "$TESTDIR/lines" | wc -l)" -eq 65 ]
	aespipe -d -e AES128 -K "$TESTDIR/new.gpg" -G "$GNUPGHOME_T" -p 3 3<"$gp" \
		< "$IMG" > "$TESTDIR/out"
	cmp "$TESTDIR/out" "$TESTDIR/plain"
	# the same command again: the journal says done, the key file is kept
	cp "$TESTDIR/new.gpg" "$TESTDIR/new.gpg.saved"
	run "$REENC" -e aes -p 3 "$IMG" --new -e AES128 -K "$TESTDIR/new.gpg" \
		-G "$GNUPGHOME_T" --generate -p 4 3<"$TESTDIR/p_old" 4<"$gp"
	[ "$status" -eq 0 ]
	[[ "$output" == *"already re-encrypted"* ]]
	cmp "$TESTDIR/new.gpg" "$TESTDIR/new.gpg.saved"
	# without a journal, --generate never replaces a key file
	rm "$IMG.reencrypt"
	cp "$IMG" "$TESTDIR/img.saved"
	run "$REENC" -e AES128 -K "$TESTDIR/new.gpg" -G "$GNUPGHOME_T" -p 3 "$IMG" \
		--new -e AES128 -K "$TESTDIR/new.gpg" -G "$GNUPGHOME_T" --generate -p 4 \
		3<"$gp" 4<"$gp"
	[ "$status" -eq 1 ]
	[[ "$output" == *"new.gpg: exists; --generate never replaces a key file"* ]]
	cmp "$TESTDIR/new.gpg" "$TESTDIR/new.gpg.saved"
	cmp "$IMG" "$TESTDIR/img.saved"
}

@test "AES256 passphrase change, with --verify: equals aespipe's image" {
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	run "$REENC" --verify -e AES256 -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	cmp "$IMG" "$TESTDIR/expect"
}

@test "loop-AES multi-key v2 to v3: equals aespipe's image" {
	aespipe_enc "$IMG" "$KEYS/keys64.txt" -e AES128
	aespipe_enc "$TESTDIR/expect" "$KEYS/keys65.txt" -e AES128
	run "$REENC" -e AES128 -p 3 "$IMG" --new -e AES128 -p 4 \
		3<"$KEYS/keys64.txt" 4<"$KEYS/keys65.txt"
	[ "$status" -eq 0 ]
	cmp "$IMG" "$TESTDIR/expect"
}

@test "cryptsetup plain64 (raw key) to loop-AES AES256: equals aespipe's image" {
	# below 2^32 sectors plain64 with the raw key writes what aespipe's
	# unhashed2 writes
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256 -H unhashed2
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	run "$REENC" -e aes-cbc-plain64 -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	cmp "$IMG" "$TESTDIR/expect"
}

@test "with -o and --sizelimit: only the data range changes, IVs count from the file's start" {
	head -c 8192 /dev/urandom > "$TESTDIR/head"
	head -c 4096 /dev/urandom > "$TESTDIR/tail"
	aespipe_enc "$TESTDIR/body" "$TESTDIR/p_old" -e AES256 -O 16
	aespipe_enc "$TESTDIR/expect-body" "$TESTDIR/p_new" -e AES128 -O 16
	cat "$TESTDIR/head" "$TESTDIR/body" "$TESTDIR/tail" > "$IMG"
	cat "$TESTDIR/head" "$TESTDIR/expect-body" "$TESTDIR/tail" > "$TESTDIR/expect"
	run "$REENC" -e AES256 -o 8192 --sizelimit 2M -p 3 "$IMG" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	cmp "$IMG" "$TESTDIR/expect"
}

@test "the journal holds no key: neither the raw key nor the derived one" {
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256 -H unhashed2
	run "$REENC" -e aes -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	[ -s "$IMG.reencrypt" ]
	! grep -qF "$PASS_OLD" "$IMG.reencrypt" || false
	! grep -qF "$PASS_NEW" "$IMG.reencrypt" || false
	# loop-AES AES256: the first 32 bytes of SHA-512 of the passphrase
	local key j
	key=$(printf '%s' "$PASS_NEW" | openssl dgst -sha512 -binary | head -c 32 | od -An -v -tx1 | tr -d ' \n')
	j=$(hex_of "$IMG.reencrypt")
	[[ "$j" != *"${key:0:32}"* ]]
	[[ "$j" != *"${key:32:32}"* ]]
}

@test "progress: a bar with percent, MB/s and ETA when asked; quiet in scripts" {
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256
	run "$REENC" --progress=always -e AES256 -p 3 "$IMG" --new -e AES192 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	[[ "$output" == *"100.0%"*"MB/s"*"ETA"* ]]
	rm "$IMG.reencrypt"
	# auto, not on a terminal: nothing
	run "$REENC" -e AES192 -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_new" 4<"$TESTDIR/p_old"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	rm "$IMG.reencrypt"
	run "$REENC" --progress=never -e AES256 -p 3 "$IMG" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run "$REENC" --progress=sometimes -e AES128 -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_new" 4<"$TESTDIR/p_old"
	[ "$status" -eq 1 ]
	[[ "$output" == *"'sometimes' is not auto, always or never"* ]]
}

@test "a block device, with --journal elsewhere: equals aespipe's image" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	local dev
	dev=$(/usr/sbin/losetup -f --show "$IMG") || skip "no free loop device"
	track "$dev"
	run "$REENC" -e AES256 -p 3 "$dev" --new -e AES256 -p 4 --journal "$TESTDIR/j" \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	/usr/sbin/losetup -d "$dev"
	[ "$status" -eq 0 ]
	[ -s "$TESTDIR/j" ]
	cmp "$IMG" "$TESTDIR/expect"
}

@test "while it converts: neither passphrase in its memory, neither key on its stack" {
	local memscan=$top_builddir/tests/memscan/memscan-pid pid rc=0
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES128
	printf '%s' "$PASS_OLD" > "$TESTDIR/n_pass_old"
	printf '%s' "$PASS_NEW" > "$TESTDIR/n_pass_new"
	# loop-AES: AES256's key is SHA-512's first 32 bytes, AES128's SHA-256's first 16
	printf '%s' "$PASS_OLD" | openssl dgst -sha512 -binary | head -c 32 > "$TESTDIR/n_key_old"
	printf '%s' "$PASS_NEW" | openssl dgst -sha256 -binary | head -c 16 > "$TESTDIR/n_key_new"
	# each write to the image or the journal takes a second: time to look
	IOFAULT_PATHS="$IMG" IOFAULT_WRITE_DELAY_US=1000000 LD_PRELOAD="$IOFAULT" \
		"$REENC" --progress=never -e AES256 -p 3 "$IMG" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new" &
	pid=$!
	for _ in $(seq 100); do
		[ ! -s "$IMG.reencrypt" ] || break
		sleep 0.1
	done
	[ -s "$IMG.reencrypt" ]
	run "$memscan" "$pid" "$TESTDIR/n_pass_old"
	[ "$status" -eq 0 ] || fail "the old passphrase is in its memory: $output"
	run "$memscan" "$pid" "$TESTDIR/n_pass_new"
	[ "$status" -eq 0 ] || fail "the new passphrase is in its memory: $output"
	run "$memscan" --stack "$pid" "$TESTDIR/n_key_old"
	[ "$status" -eq 0 ] || fail "the old key is on its stack: $output"
	run "$memscan" --stack "$pid" "$TESTDIR/n_key_new"
	[ "$status" -eq 0 ] || fail "the new key is on its stack: $output"
	# the scan can see them: the keys are in the ciphers' memory
	run "$memscan" "$pid" "$TESTDIR/n_key_new"
	[ "$status" -eq 1 ]
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	cmp "$IMG" "$TESTDIR/expect"
}
