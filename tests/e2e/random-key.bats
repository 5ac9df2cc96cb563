#!/usr/bin/env bats
# loop-AES's random-key mode, "losetup -e AES128 -H random", for swap and
# scratch space: 65 fresh keys each time, no passphrase asked for or read.

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

# attach_random ARGS... IMAGE: -H random with no terminal (setsid) and a
# passphrase line waiting on stdin; whatever losetup reads of stdin is
# missing from what cat prints after it, so the test can tell.
attach_random() {
	local out
	printf '%s\n' "$PASS" > "$TESTDIR/stdin"
	# on FUSE, -H random (the swap recipe) needs --force: scratch space
	local force=()
	[ "$E2E_ENGINE" != fuse ] || force=(--force)
	out=$({ setsid -w "$LOSETUP" -f --show --engine "$E2E_ENGINE" "${force[@]}" \
		-e AES128 -H random "$@" && cat; } < "$TESTDIR/stdin") || return 1
	[ "$(tail -n 1 <<< "$out")" = "$PASS" ] ||
		fail "losetup -H random read from stdin"
	DEV=$(head -n 1 <<< "$out")
	track "$DEV"
}

@test "-H random: no passphrase asked for or read; data round trips, encrypted" {
	img=$(image 8M)
	attach_random "$img"
	head -c 1M /dev/urandom > "$TESTDIR/data"
	dd if="$TESTDIR/data" of="$DEV" bs=1M oflag=direct status=none
	cmp "$TESTDIR/data" <(device_bytes "$DEV" | head -c 1M)
	# the image holds ciphertext, not the data and not zeros
	run cmp -s "$TESTDIR/data" <(head -c 1M "$img")
	[ "$status" -eq 1 ]
	run cmp -s /dev/zero <(head -c 1M "$img")
	[ "$status" -eq 1 ]
	detach "$DEV"
	assert_clean
}

@test "-H random: a fresh key on every attach, as encrypted swap wants" {
	img=$(image 8M)
	attach_random "$img"
	head -c 1M /dev/urandom > "$TESTDIR/data"
	dd if="$TESTDIR/data" of="$DEV" bs=1M oflag=direct status=none
	detach "$DEV"
	sum=$(sha256sum < "$img")
	attach_random "$img"
	run cmp -s "$TESTDIR/data" <(device_bytes "$DEV" | head -c 1M)
	[ "$status" -eq 1 ]
	detach "$DEV"
	# attaching with a random key does not write to the image
	[ "$(sha256sum < "$img")" = "$sum" ]
}

@test "-H random refuses a passphrase, key file or seed instead of ignoring it" {
	img=$(image 8M)
	run "$LOSETUP" -f --engine "$E2E_ENGINE" -e AES128 -H random -p 3 "$img" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$output" == *"-H random makes its own keys"* ]]
	run "$LOSETUP" -f --engine "$E2E_ENGINE" -e AES128 -H random -S salt "$img"
	[ "$status" -eq 1 ]
	[[ "$output" == *"-H random makes its own keys"* ]]
	assert_clean
}
