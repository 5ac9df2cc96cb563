#!/usr/bin/env bats
# cryptoloop-reencrypt --luks2 --header on the host: libcryptsetup writes
# the header; cryptsetup (not our code) gets the volume key back out of it
# with the passphrase, and openssl decrypts sectors with it. dm-crypt is
# not on this host: "cryptsetup open" of the result runs in the VM
# (tests/reencrypt/vm-luks2.sh).

load helpers

setup() {
	reenc_setup
	command -v cryptsetup >/dev/null || skip "needs cryptsetup"
	command -v openssl >/dev/null || skip "needs openssl"
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256 -H unhashed2
	printf '%s' "$PASS_NEW" > "$TESTDIR/luks-key"
}

teardown() {
	reenc_teardown
}

# the volume key in hex, as cryptsetup reads it from the header
volume_key() {
	cryptsetup luksDump --dump-volume-key --batch-mode --key-file "$TESTDIR/luks-key" \
		--header "$TESTDIR/hdr" "$IMG" | sed -n '/MK dump:/,$p' | sed 's/MK dump://' |
		tr -d ' \t\n'
}

# what the last run said: bats shows it only when the test fails
said() {
	printf 'exit %s: %s\n' "$status" "$output"
}

# check_sector N VKHEX: openssl decrypts sector N (CBC, IV le64(N)) to the plaintext
check_sector() {
	local s=$1 vk=$2 iv
	iv=$(printf '%016x' "$s" | sed 's/../& /g' | awk '{ for (i = NF; i > 0; i--) printf "%s", $i }')
	dd if="$IMG" bs=512 skip="$s" count=1 status=none |
		openssl enc -d -aes-256-cbc -K "$vk" -iv "${iv}0000000000000000" -nopad |
		cmp - <(dd if="$TESTDIR/plain" bs=512 skip="$s" count=1 status=none)
}

@test "aes to LUKS2 with --header, interrupted and resumed: cryptsetup's key and openssl read it" {
	[ -f "$IOFAULT" ] || skip "iofault shim not built"
	cp "$IMG" "$TESTDIR/orig"
	# killed in the middle: before the 12th write or sync of image or journal;
	# libcryptsetup's default PBKDF (argon2id), benchmarked, for 100 ms
	run env IOFAULT_PATHS="$IMG" IOFAULT_CRASH_AT=12 LD_PRELOAD="$IOFAULT" \
		"$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" --iter-time 100 \
		--cipher aes-cbc-plain64 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 137 ]
	cryptsetup luksDump --header "$TESTDIR/hdr" "$IMG" > "$TESTDIR/dump"
	grep -q "cipher: aes-cbc-plain64" "$TESTDIR/dump"
	grep -q "sector: 512 \[bytes\]" "$TESTDIR/dump"
	cp "$IMG" "$TESTDIR/half"
	# the wrong passphrase does not open the header: refused, nothing written
	printf 'not the passphrase of the header\n' > "$TESTDIR/p_bad"
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" \
		--cipher aes-cbc-plain64 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_bad"
	said
	[ "$status" -eq 1 ]
	[[ "$output" == *"the new passphrase does not open this header; nothing was written"* ]]
	cmp "$IMG" "$TESTDIR/half"
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" \
		--cipher aes-cbc-plain64 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 0 ]
	local vk s
	vk=$(volume_key)
	[ ${#vk} -eq 64 ]
	for s in 0 1 127 128 1000 2047; do
		check_sector "$s" "$vk" || fail "sector $s"
	done
	# an existing header is never overwritten
	rm "$IMG.reencrypt"
	cp "$TESTDIR/hdr" "$TESTDIR/hdr.saved"
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 1 ]
	[[ "$output" == *"hdr: cannot create the LUKS2 header: File exists"* ]]
	cmp "$TESTDIR/hdr" "$TESTDIR/hdr.saved"
}

@test "--luks2 option errors" {
	run "$REENC" -e aes "$IMG" --new -e AES128 --header "$TESTDIR/h"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--header, --cipher, --pbkdf, --iter-time, --pbkdf-force-iterations and --pbkdf-memory go with --luks2"* ]]
	run "$REENC" -e aes "$IMG" --new -e AES128 --pbkdf-memory 64
	[ "$status" -eq 1 ]
	[[ "$output" == *"--pbkdf-force-iterations and --pbkdf-memory go with --luks2"* ]]
	run "$REENC" -e aes "$IMG" --new --luks2 --iter-time 0
	[ "$status" -eq 1 ]
	[[ "$output" == *"--iter-time: '0' is not a number of milliseconds (1 to 3600000)"* ]]
	run "$REENC" -e aes "$IMG" --new --luks2 --pbkdf scrypt
	[ "$status" -eq 1 ]
	[[ "$output" == *"--pbkdf: 'scrypt' is not pbkdf2, argon2i or argon2id"* ]]
	run "$REENC" -e aes "$IMG" --new --luks2 --pbkdf-memory 16
	[ "$status" -eq 1 ]
	[[ "$output" == *"--pbkdf-memory: '16' is not a number of KiB (32 to 4194304)"* ]]
	run "$REENC" -e aes "$IMG" --new --luks2 --iter-time 10 --pbkdf-force-iterations 1000
	[ "$status" -eq 1 ]
	[[ "$output" == *"--iter-time and --pbkdf-force-iterations cannot go together"* ]]
	run "$REENC" -e aes "$IMG" --new --luks2 --pbkdf pbkdf2 --pbkdf-memory 1024
	[ "$status" -eq 1 ]
	[[ "$output" == *"--pbkdf-memory is argon2's cost: pbkdf2 uses no memory"* ]]
	# libcryptsetup's own floor, said in its words, before a passphrase is read
	run "$REENC" -e aes "$IMG" --new --luks2 --header "$TESTDIR/h" --pbkdf pbkdf2 \
		--pbkdf-force-iterations 999
	[ "$status" -eq 1 ]
	[[ "$output" == *"Forced iteration count is too low for pbkdf2 (minimum is 1000)"* ]]
	[[ "$output" == *"libcryptsetup refuses this key derivation"*"nothing was written"* ]]
	[ ! -e "$TESTDIR/h" ]
	[ ! -e "$IMG.reencrypt" ]
	run "$REENC" -e aes --luks2 "$IMG" --new
	[ "$status" -eq 1 ]
	[[ "$output" == *"--luks2 belongs after --new"* ]]
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/h" --cipher aes-cbc-essiv:sha256 \
		-p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"aes-cbc-essiv:sha256: not a LUKS2 cipher this tool writes"* ]]
	[ ! -e "$TESTDIR/h" ]
}

# keyslot N FIELD: FIELD's value in keyslot N of cryptsetup's dump of hdr
keyslot() {
	cryptsetup luksDump --header "$TESTDIR/hdr" "$IMG" |
		awk -v slot="  $1: luks2" -v field="$2:" '
			$0 == slot { in_slot = 1; next }
			in_slot && /^  [0-9]+: / { in_slot = 0 }
			in_slot && /^Tokens:|^Digests:/ { in_slot = 0 }
			in_slot && index($0, "\t" field) == 1 {
				v = substr($0, length(field) + 2); sub(/^[ \t]+/, "", v); print v; exit
			}'
}

@test "--pbkdf, --pbkdf-force-iterations, --pbkdf-memory: cryptsetup finds that keyslot, and its key reads the data" {
	cp "$IMG" "$TESTDIR/orig"
	run "$REENC" --progress=never -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" \
		--pbkdf pbkdf2 --pbkdf-force-iterations 1234 --cipher aes-cbc-plain64 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 0 ]
	[ "$(keyslot 0 PBKDF)" = pbkdf2 ] || fail "PBKDF: $(keyslot 0 PBKDF)"
	[ "$(keyslot 0 Iterations)" = 1234 ] || fail "Iterations: $(keyslot 0 Iterations)"
	check_sector 7 "$(volume_key)" || fail "sector 7"
	cp "$TESTDIR/orig" "$IMG"
	rm -f "$TESTDIR/hdr" "$IMG".reencrypt*
	run "$REENC" --progress=never -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" \
		--pbkdf argon2i --pbkdf-force-iterations 5 --pbkdf-memory 4096 --cipher aes-cbc-plain64 \
		-p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 0 ]
	[ "$(keyslot 0 PBKDF)" = argon2i ] || fail "PBKDF: $(keyslot 0 PBKDF)"
	[ "$(keyslot 0 'Time cost')" = 5 ] || fail "Time cost: $(keyslot 0 'Time cost')"
	[ "$(keyslot 0 Memory)" = 4096 ] || fail "Memory: $(keyslot 0 Memory)"
	check_sector 2047 "$(volume_key)" || fail "sector 2047"
}

@test "a resume with another --header, or without it, is refused naming the journal; a moved header is the same" {
	[ -f "$IOFAULT" ] || skip "iofault shim not built"
	run env IOFAULT_PATHS="$IMG" IOFAULT_CRASH_AT=12 LD_PRELOAD="$IOFAULT" \
		"$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" "${FAST_KDF[@]}" \
		--cipher aes-cbc-plain64 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 137 ]
	cp "$IMG" "$TESTDIR/half"
	hdr=$(realpath "$TESTDIR/hdr")
	# without --header: the journal names the header it was started with
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 --cipher aes-cbc-plain64 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 1 ]
	[ "$output" = "cryptoloop-reencrypt: $IMG: the journal $IMG.reencrypt was started with --header $hdr; resume with the same --header; nothing was written" ]
	cmp "$IMG" "$TESTDIR/half"
	[ ! -e "$IMG.reencrypt.luks2-header" ]
	# another header: one byte of it differs
	cp "$TESTDIR/hdr" "$TESTDIR/other"
	printf 'x' | dd of="$TESTDIR/other" bs=1 seek=$((16 * 1048576 - 1)) conv=notrunc status=none
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/other" \
		--cipher aes-cbc-plain64 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 1 ]
	[ "$output" = "cryptoloop-reencrypt: --header $TESTDIR/other: not the LUKS2 header the journal $IMG.reencrypt was started with (--header $hdr, whose contents differ); nothing was written" ]
	cmp "$IMG" "$TESTDIR/half"
	# the same header under another name finishes the job
	mv "$TESTDIR/hdr" "$TESTDIR/moved"
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/moved" \
		--cipher aes-cbc-plain64 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 0 ]
	mv "$TESTDIR/moved" "$TESTDIR/hdr"
	vk=$(volume_key)
	echo "volume key: ${#vk} hex digits"
	for s in 0 1000 2047; do
		check_sector "$s" "$vk" || fail "sector $s"
	done
}

@test "a resume of an in-image --luks2 run with --header is refused naming the journal" {
	local at
	[ -f "$IOFAULT" ] || skip "iofault shim not built"
	# halfway through a whole run's writes and syncs: past the journal's
	# creation, whatever the header staging costs
	cp "$IMG" "$TESTDIR/count-run"
	run env IOFAULT_PATHS="$TESTDIR/count-run" IOFAULT_COUNT="$TESTDIR/count" LD_PRELOAD="$IOFAULT" \
		"$REENC" -e aes -p 3 "$TESTDIR/count-run" --new --luks2 "${FAST_KDF[@]}" -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 0 ]
	at=$(( $(cat "$TESTDIR/count") / 2 ))
	run env IOFAULT_PATHS="$IMG" IOFAULT_CRASH_AT="$at" LD_PRELOAD="$IOFAULT" \
		"$REENC" -e aes -p 3 "$IMG" --new --luks2 "${FAST_KDF[@]}" -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 137 ]
	[ -e "$IMG.reencrypt" ]
	cp "$IMG" "$TESTDIR/half"
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 1 ]
	[ "$output" = "cryptoloop-reencrypt: $IMG: the journal $IMG.reencrypt was started without --header (the LUKS2 header goes into the image); resume without --header $TESTDIR/hdr; nothing was written" ]
	cmp "$IMG" "$TESTDIR/half"
	[ ! -e "$TESTDIR/hdr" ]
	run "$REENC" -e aes -p 3 "$IMG" --new --luks2 "${FAST_KDF[@]}" -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	said
	[ "$status" -eq 0 ]
	cryptsetup luksDump "$IMG" | grep -q "^Version:.*2"
}
