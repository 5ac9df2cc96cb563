#!/usr/bin/env bats
# cryptoloop-reencrypt --luks2 without --header: the header goes into the
# image, which grows, and the data moves up behind it. cryptsetup (not our
# code) reads the header and gives the volume key; openssl decrypts the
# whole data area with it (tests/reencrypt/cbc-unchain.pl only undoes the
# CBC chaining). Crashes come from the iofault shim, as in crash.bats.
# "cryptsetup open" of such an image runs in the VM (vm-luks2.sh).

load helpers

UL_LOSETUP=/usr/sbin/losetup
MIB=1048576

setup() {
	reenc_setup
	command -v cryptsetup >/dev/null || skip "needs cryptsetup"
	command -v openssl >/dev/null || skip "needs openssl"
	command -v perl >/dev/null || skip "needs perl"
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$TESTDIR/orig" "$TESTDIR/p_old" -e AES256 -H unhashed2
	printf '%s' "$PASS_NEW" > "$TESTDIR/luks-key"
	local shm=/dev/shm
	[ -d "$shm" ] && [ -w "$shm" ] || shm=$TESTDIR
	WORK=$(mktemp -d "$shm/cryptoloop-inplace.XXXXXX")
	W="$WORK/img"
	OURDEV=
}

teardown() {
	reenc_teardown
	[ -z "${WORK:-}" ] || rm -rf "$WORK"
}

# the old data 64 KiB before the header's end: it moves up by 64 KiB, one
# chunk (1 MiB / 16), so every chunk's new place is the old place of the
# chunk after it, and only the last-to-first order keeps the data
OVERLAP_OFF=$((16 * MIB - 65536))

# orig_overlap: $TESTDIR/orig_ov, the plaintext at $OVERLAP_OFF in util-linux aes
orig_overlap() {
	head -c "$OVERLAP_OFF" /dev/urandom > "$TESTDIR/orig_ov"
	aespipe -e AES256 -H unhashed2 -O $((OVERLAP_OFF / 512)) -p 3 3<"$TESTDIR/p_old" \
		< "$TESTDIR/plain" >> "$TESTDIR/orig_ov"
}

# to_luks2 IMG [ARGS...]: util-linux aes (fd 3) to an in-image LUKS2
# aes-cbc-plain64 volume (fd 4); a cheap keyslot, the tests open it often
to_luks2() {
	local img=$1
	shift
	"$REENC" --progress=never -e aes -p 3 "$@" "$img" --new --luks2 "${FAST_KDF[@]}" \
		--cipher aes-cbc-plain64 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
}

# luks2_reads IMG DATA_OFFSET: cryptsetup finds the header in IMG with its
# data at DATA_OFFSET, and its volume key decrypts the data to the plaintext
luks2_reads() {
	local img=$1 want=$2 off vk
	# every step returns on failure itself: callers use "luks2_reads || ...",
	# where errexit does not reach in here
	cryptsetup luksDump "$img" > "$TESTDIR/dump" || { fail "$img: no LUKS2 header"; return 1; }
	grep -q "cipher: aes-cbc-plain64" "$TESTDIR/dump" || { fail "$img: cipher"; return 1; }
	off=$(awk '$1 == "offset:" { print $2; exit }' "$TESTDIR/dump")
	[ "$off" = "$want" ] || { fail "$img: data offset $off, not $want"; return 1; }
	vk=$(cryptsetup luksDump --dump-volume-key --batch-mode --key-file "$TESTDIR/luks-key" \
		"$img" | sed -n '/MK dump:/,$p' | sed 's/MK dump://' | tr -d ' \t\n')
	[ ${#vk} -eq 64 ] || { fail "$img: no volume key from cryptsetup"; return 1; }
	dd if="$img" bs=512 skip=$((off / 512)) status=none > "$TESTDIR/cipher" || return 1
	openssl enc -d -aes-256-ecb -K "$vk" -nopad < "$TESTDIR/cipher" > "$TESTDIR/ecb" || return 1
	perl "$BATS_TEST_DIRNAME/cbc-unchain.pl" "$TESTDIR/ecb" "$TESTDIR/cipher" |
		cmp - "$TESTDIR/plain" || { fail "$img: the data does not decrypt to the plaintext"; return 1; }
}

@test "aes to LUKS2 in the image: it grows by 16 MiB, cryptsetup's key reads all the moved data" {
	cp "$TESTDIR/orig" "$IMG"
	run to_luks2 "$IMG"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(stat -c %s "$IMG")" -eq $((17 * MIB)) ]
	luks2_reads "$IMG" $((16 * MIB))
	[ ! -e "$IMG.reencrypt.luks2-header" ]
	# done stays done
	cp "$IMG" "$TESTDIR/done"
	run to_luks2 "$IMG"
	[ "$status" -eq 0 ]
	[[ "$output" == *"already re-encrypted"* ]]
	cmp "$IMG" "$TESTDIR/done"
	# without its journal, a LUKS volume is not taken for an old image
	rm "$IMG.reencrypt"
	run to_luks2 "$IMG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$IMG: a LUKS volume already; nothing was written"* ]]
	cmp "$IMG" "$TESTDIR/done"
}

@test "AES256 at a 1 MiB offset to LUKS2 in the image: the data moves from 1 MiB to 16 MiB" {
	head -c 1M /dev/urandom > "$IMG"
	aespipe -e AES256 -O 2048 -p 3 3<"$TESTDIR/p_old" < "$TESTDIR/plain" >> "$IMG"
	run "$REENC" --progress=never -e AES256 -o 1M -p 3 "$IMG" --new --luks2 "${FAST_KDF[@]}" \
		--cipher aes-cbc-plain64 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$IMG")" -eq $((17 * MIB)) ]
	luks2_reads "$IMG" $((16 * MIB))
}

@test "data that overlaps its new place (moved up by one chunk): last chunk first keeps it" {
	orig_overlap
	cp "$TESTDIR/orig_ov" "$IMG"
	run to_luks2 "$IMG" -o "$OVERLAP_OFF"
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$IMG")" -eq $((17 * MIB)) ]
	luks2_reads "$IMG" $((16 * MIB))
}

# crash_loop MODE WANT: convert copies of the original, crashing at random
# points (iofault MODE) and resuming, until WANT crashes happened; each
# finished image must read back through cryptsetup and openssl. A resume
# crashes early in what is left more often than not, so that the crashes
# spread over the whole run rather than its first half.
crash_loop() {
	local mode=$1 want=$2 total crashes=0 images=0 rc at range
	[ -f "$TESTDIR/orig_ov" ] || orig_overlap
	cp "$TESTDIR/orig_ov" "$W"
	rm -f "$W".reencrypt*
	rc=0
	IOFAULT_PATHS="$W" IOFAULT_COUNT="$WORK/count" LD_PRELOAD="$IOFAULT" \
		to_luks2 "$W" -o "$OVERLAP_OFF" 2>>"$WORK/log" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/log"; return 1; }
	luks2_reads "$W" $((16 * MIB))
	total=$(cat "$WORK/count")
	[ "$total" -gt 40 ]
	while [ "$crashes" -lt "$want" ]; do
		cp "$TESTDIR/orig_ov" "$W"
		rm -f "$W".reencrypt*
		range=$total
		while :; do
			at=$((RANDOM % range + 1))
			range=$((total / 2))
			rc=0
			IOFAULT_PATHS="$W" IOFAULT_MODE=$mode IOFAULT_CRASH_AT=$at \
				IOFAULT_SEED=$RANDOM IOFAULT_SYNC_DELAY_US=1000 LD_PRELOAD="$IOFAULT" \
				to_luks2 "$W" -o "$OVERLAP_OFF" 2>>"$WORK/log" || rc=$?
			if [ "$rc" -eq 137 ]; then
				crashes=$((crashes + 1))
				continue
			fi
			[ "$rc" -eq 0 ] || { echo "exit $rc after $crashes crashes"; cat "$WORK/log"; return 1; }
			break
		done
		images=$((images + 1))
		luks2_reads "$W" $((16 * MIB)) || { echo "image $images wrong after $crashes crashes"; return 1; }
		[ ! -e "$W.reencrypt.luks2-header" ]
	done
	echo "# $mode: $crashes crashes over $images conversions, $total operations a run" >&3
}

@test "LUKS2 in the image, data overlapping its new place, SIGKILLs at 6 random points, each resumed: cryptsetup reads it" {
	[ -f "$IOFAULT" ] || skip "iofault shim not built"
	crash_loop kill 6
}

@test "LUKS2 in the image, data overlapping its new place, power loss at 3 points and reordered power loss at 3: cryptsetup reads it" {
	[ -f "$IOFAULT" ] || skip "iofault shim not built"
	crash_loop powerloss 3
	crash_loop torn 3
}

@test "no space to grow the image is found before the first write" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to mount a tmpfs"
	TINYFS="$TESTDIR/tiny"
	mkdir "$TINYFS"
	mount -t tmpfs -o size=8m tmpfs "$TINYFS"
	track_mount "$TINYFS"
	cp "$TESTDIR/orig" "$TINYFS/img"
	run to_luks2 "$TINYFS/img" --journal "$TESTDIR/journal"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$TINYFS/img: no space to grow by 16777216 bytes for the LUKS2 header; nothing was written"* ]]
	cmp "$TINYFS/img" "$TESTDIR/orig"
	[ ! -e "$TESTDIR/journal" ]
	[ ! -e "$TESTDIR/journal.luks2-header" ]
}

@test "a block device without --header is refused: it cannot grow" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	cp "$TESTDIR/orig" "$IMG"
	OURDEV=$("$UL_LOSETUP" -f --show "$IMG") || skip "no free loop device"
	track "$OURDEV"
	run to_luks2 "$OURDEV" --journal "$TESTDIR/journal"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$OURDEV: a block device cannot grow to make room for the LUKS2 header; give --header <file>"* ]]
	cmp "$IMG" "$TESTDIR/orig"
	[ ! -e "$TESTDIR/journal" ]
}
