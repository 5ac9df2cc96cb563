#!/usr/bin/env bats
# A journal with valid checksums but fields no run of cryptoloop-reencrypt
# writes (crafted, or from a buggy writer) is refused before it steers any
# I/O: the message names the journal and the field, the status is 1, and
# neither the image nor the journal changes. journal-edit.pl rewrites the
# fields of a real journal and recomputes its checksums.

load helpers

EDIT="$BATS_TEST_DIRNAME/journal-edit.pl"

# Two finished conversions, made once: a 256 KiB image in place (chunks of
# 64 KiB, two in flight), and a 1 MiB one to LUKS2 in the image (the data
# moves up by 16 MiB, one 64 KiB chunk in flight).
setup_file() {
	command -v aespipe >/dev/null || return 0
	local d=$BATS_FILE_TMPDIR
	printf '%s\n' "$PASS_OLD" > "$d/p_old"
	printf '%s\n' "$PASS_NEW" > "$d/p_new"
	head -c 262144 /dev/urandom | aespipe -e AES256 -p 3 3<"$d/p_old" > "$d/inplace"
	"$REENC" --progress=never -e AES256 -p 3 "$d/inplace" --new -e AES256 -p 4 \
		3<"$d/p_old" 4<"$d/p_new"
	command -v cryptsetup >/dev/null || return 0
	head -c 1048576 /dev/urandom | aespipe -e AES256 -H unhashed2 -p 3 3<"$d/p_old" \
		> "$d/moved"
	"$REENC" --progress=never -e aes -p 3 "$d/moved" --new --luks2 "${FAST_KDF[@]}" \
		--cipher aes-cbc-plain64 -p 4 3<"$d/p_old" 4<"$d/p_new"
}

setup() {
	reenc_setup
}

teardown() {
	reenc_teardown
}

# crafted KIND FIELD=VALUE...: $IMG and its journal from the finished
# conversion KIND (inplace or moved), the journal rewritten; copies of
# both kept to compare with after
crafted() {
	local kind=$1
	shift
	[ "$kind" != moved ] || command -v cryptsetup >/dev/null || skip "needs cryptsetup"
	cp "$BATS_FILE_TMPDIR/$kind" "$IMG"
	cp "$BATS_FILE_TMPDIR/$kind.reencrypt" "$IMG.reencrypt"
	perl "$EDIT" "$IMG.reencrypt" "$@"
	cp "$IMG" "$TESTDIR/img.before"
	cp "$IMG.reencrypt" "$TESTDIR/journal.before"
	KIND=$kind
}

# resume: the command that made $KIND, again; a refusal must come at once
# (a journal's key check costs milliseconds), so 30 s is a hang
resume() {
	if [ "$KIND" = moved ]; then
		run timeout 30 "$REENC" --progress=never -e aes -p 3 "$IMG" --new --luks2 \
			"${FAST_KDF[@]}" --cipher aes-cbc-plain64 -p 4 \
			3<"$BATS_FILE_TMPDIR/p_old" 4<"$BATS_FILE_TMPDIR/p_new"
	else
		run timeout 30 "$REENC" --progress=never -e AES256 -p 3 "$IMG" \
			--new -e AES256 -p 4 3<"$BATS_FILE_TMPDIR/p_old" 4<"$BATS_FILE_TMPDIR/p_new"
	fi
}

# refused FIELD: status 1, the journal and FIELD named, nothing written
refused() {
	[ "$status" -eq 1 ] || fail "status $status, not 1: $output"
	[[ "$output" == *"$IMG.reencrypt: refused"*"$1 "* ]] ||
		fail "no refusal naming the journal and $1: $output"
	cmp "$IMG" "$TESTDIR/img.before" || fail "the image changed"
	cmp "$IMG.reencrypt" "$TESTDIR/journal.before" || fail "the journal changed"
}

@test "the finished journals resume as done: journal-edit.pl keeps a journal valid" {
	crafted inplace kdf_iter=20000 done=262144
	resume
	[ "$status" -eq 0 ]
	[[ "$output" == *"already re-encrypted"* ]]
	crafted moved kdf_iter=20000 done=1048576
	resume
	[ "$status" -eq 0 ]
	[[ "$output" == *"already re-encrypted"* ]]
}

@test "LUKS2 in the image, journal done=0 inflight=131072 nsect=0: refused, no overflow of the one-chunk buffer" {
	crafted moved done=0 inflight=131072 nsect=0
	resume
	refused inflight
}

@test "kdf_iter=0xffffffff: refused at once instead of hashing for an hour" {
	crafted inplace kdf_iter=0xffffffff
	resume
	refused kdf_iter
}

@test "kdf_iter=1: refused (a cheap key check would make guessing keys cheap)" {
	crafted inplace kdf_iter=1
	resume
	refused kdf_iter
}

@test "in place, inflight of three chunks: refused (two are in flight at most)" {
	crafted inplace done=0 inflight=196608 nsect=0
	resume
	refused inflight
}

@test "inflight not a multiple of 512: refused" {
	crafted inplace done=0 inflight=1000 nsect=1
	resume
	refused inflight
}

@test "done not a multiple of 512: refused" {
	crafted inplace done=1000 inflight=0 nsect=0
	resume
	refused done
}

@test "done + inflight past data_len: refused" {
	crafted inplace done=196608 inflight=131072 nsect=256
	resume
	refused done
}

@test "nsect not the sectors in flight: refused (the fingerprints would be missing)" {
	crafted inplace done=65536 inflight=65536 nsect=0
	resume
	refused nsect
}

@test "LUKS2 in the image, chunk of 32 MiB, more than the 16 MiB the data moves by: refused" {
	crafted moved chunk=33554432 done=0 inflight=0 nsect=0
	resume
	refused chunk
}

@test "chunk not a multiple of 512: refused" {
	crafted inplace chunk=65537
	resume
	refused chunk
}

@test "data_len past the end of the image: refused" {
	crafted inplace data_len=$((262144 + 512))
	resume
	refused data_off
}

@test "data_off + data_len wrapping around 2^64: refused" {
	crafted inplace data_off=0xfffffffffffffe00 data_len=1024
	resume
	refused data_off
}

@test "new_off not a multiple of 512: refused" {
	crafted inplace new_off=1000
	resume
	refused new_off
}

@test "the data moves with luks2=0 (no LUKS2 header in the image): refused" {
	crafted moved luks2=0
	resume
	refused new_off
}

@test "luks2=7: refused" {
	crafted inplace luks2=7
	resume
	refused luks2
}

@test "an odd seq in slot 0, where the next write would land on the current state: refused" {
	crafted inplace slot=0 seq=1000001
	resume
	refused seq
}

@test "seq=2^64-1, whose successor wraps to 0: refused" {
	crafted inplace slot=1 seq=0xffffffffffffffff
	resume
	refused seq
}
