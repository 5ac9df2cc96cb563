#!/usr/bin/env bats
# Crash safety of cryptoloop-reencrypt. The iofault shim (iofault.c)
# kills the process before a chosen write or sync of the image or the
# journal; the point is drawn at random from all of a run's operations.
# Every crash is followed by a resume (which may itself crash), and the
# final image must be byte-identical to aespipe's encryption of the
# original plaintext under the new key.
#
# The shim models durability itself, so the files live on tmpfs where
# fsync costs nothing.

load helpers

setup() {
	reenc_setup
	[ -f "$IOFAULT" ] || skip "iofault shim not built"
	local shm=/dev/shm
	[ -d "$shm" ] && [ -w "$shm" ] || shm=$TESTDIR
	WORK=$(mktemp -d "$shm/cryptoloop-crash.XXXXXX")
	W="$WORK/img"
}

teardown() {
	[ -z "${WORK:-}" ] || rm -rf "$WORK"
	reenc_teardown
}

# run_faulty MODE AT SEED ARGS...: the tool under the shim, with fd 3 and
# fd 4 opened afresh on the files $FD3 and $FD4; prints its status
run_faulty() {
	local mode=$1 at=$2 seed=$3 rc=0
	shift 3
	# syncs as slow as a disk's: the image's runs in a thread of its own
	IOFAULT_PATHS="$W" IOFAULT_MODE=$mode IOFAULT_CRASH_AT=$at IOFAULT_SEED=$seed \
		IOFAULT_COUNT="$WORK/count" IOFAULT_SYNC_DELAY_US=1000 LD_PRELOAD="$IOFAULT" \
		"$REENC" --progress=never "$@" 2>>"$WORK/log" \
		3<"${FD3:-/dev/null}" 4<"${FD4:-/dev/null}" || rc=$?
	echo "$rc"
}

# crash_until_done MODE WANT_CRASHES ORIG EXPECT ARGS...: convert copies of
# ORIG, crashing at random points and resuming, until WANT_CRASHES
# crashes happened; each finished copy must equal EXPECT.
crash_until_done() {
	local mode=$1 want=$2 orig=$3 expect=$4 total crashes=0 images=0 rc at
	shift 4
	# the number of operations of an uninterrupted run
	cp "$orig" "$W"
	rc=$(run_faulty kill 0 0 "$@")
	[ "$rc" -eq 0 ] || { cat "$WORK/log"; return 1; }
	cmp "$W" "$expect"
	total=$(cat "$WORK/count")
	[ "$total" -gt 20 ]
	while [ "$crashes" -lt "$want" ]; do
		cp "$orig" "$W"
		rm -f "$W.reencrypt"
		while :; do
			at=$((RANDOM % total + 1))
			rc=$(run_faulty "$mode" "$at" "$RANDOM" "$@")
			if [ "$rc" -eq 137 ]; then
				crashes=$((crashes + 1))
				continue
			fi
			[ "$rc" -eq 0 ] || { echo "exit $rc after $crashes crashes"; cat "$WORK/log"; return 1; }
			break
		done
		images=$((images + 1))
		cmp "$W" "$expect" || { echo "image $images differs after $crashes crashes"; return 1; }
	done
	# a finished journal says so; running again changes nothing
	rc=$(run_faulty kill 0 0 "$@")
	[ "$rc" -eq 0 ]
	cmp "$W" "$expect"
	echo "# $mode: $crashes crashes over $images conversions, $total operations a run" >&3
}

@test "100 SIGKILLs at random points, each resumed: aes to loop-AES v3 equals aespipe's" {
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$TESTDIR/orig" "$TESTDIR/p_old" -e AES256 -H unhashed2
	aespipe_enc "$TESTDIR/expect" "$KEYS/keys65.txt" -e AES128
	FD3=$TESTDIR/p_old
	crash_until_done kill 100 "$TESTDIR/orig" "$TESTDIR/expect" \
		-e aes -p 3 "$W" --new -e AES128 --cleartext-keyfile "$KEYS/keys65.txt"
}

@test "power loss (unsynced writes dropped) at 20 random points: AES256 passphrase change" {
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$TESTDIR/orig" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	FD3=$TESTDIR/p_old FD4=$TESTDIR/p_new
	# writes as slow as syncs: a sync must not be counted for a chunk
	# whose write was still running in another thread when it began
	IOFAULT_WRITE_DELAY_US=5000 crash_until_done powerloss 20 "$TESTDIR/orig" "$TESTDIR/expect" \
		-e AES256 -p 3 "$W" --new -e AES256 -p 4
}

@test "power loss with reordered writes (random half of unsynced sectors kept) at 20 points: v2 to v3" {
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$TESTDIR/orig" "$KEYS/keys64.txt" -e AES128
	aespipe_enc "$TESTDIR/expect" "$KEYS/keys65.txt" -e AES256
	crash_until_done torn 20 "$TESTDIR/orig" "$TESTDIR/expect" \
		-e AES128 --cleartext-keyfile "$KEYS/keys64.txt" "$W" \
		--new -e AES256 --cleartext-keyfile "$KEYS/keys65.txt"
}

@test "power loss tearing sectors (64-byte pieces of unsynced writes undone): a torn sector stops the resume, never a wrong image" {
	local crashes=0 refused=0 rc at total
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$TESTDIR/orig" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	FD3=$TESTDIR/p_old FD4=$TESTDIR/p_new
	cp "$TESTDIR/orig" "$W"
	rc=$(run_faulty kill 0 0 -e AES256 -p 3 "$W" --new -e AES256 -p 4)
	[ "$rc" -eq 0 ]
	total=$(cat "$WORK/count")
	# until 10 crashes, 2 of them refused; a crash with no image write
	# pending leaves no torn sector, so the refusals come at random
	while [ "$crashes" -lt 10 ] || { [ "$refused" -lt 2 ] && [ "$crashes" -lt 80 ]; }; do
		cp "$TESTDIR/orig" "$W"
		rm -f "$W.reencrypt" "$WORK/log"
		at=$((RANDOM % total + 1))
		rc=$(IOFAULT_TEAR_BYTES=64 run_faulty torn "$at" "$RANDOM" \
			-e AES256 -p 3 "$W" --new -e AES256 -p 4)
		[ "$rc" -eq 137 ] || { echo "no crash at $at: exit $rc"; cat "$WORK/log"; return 1; }
		crashes=$((crashes + 1))
		cp "$W" "$WORK/before"
		rc=$(run_faulty kill 0 0 -e AES256 -p 3 "$W" --new -e AES256 -p 4)
		if [ "$rc" -eq 0 ]; then
			cmp "$W" "$TESTDIR/expect" || { echo "crash $crashes at $at: wrong image"; return 1; }
			continue
		fi
		# the refusal names the torn sector and writes nothing
		[ "$rc" -eq 1 ] || { echo "exit $rc"; cat "$WORK/log"; return 1; }
		grep -q "holds neither its old nor its new ciphertext (torn by the device)" "$WORK/log"
		cmp "$W" "$WORK/before"
		refused=$((refused + 1))
	done
	echo "# torn sectors: $crashes crashes, $refused resumes refused" >&3
	# crashes in the middle of an image write tear sectors: some must have
	[ "$refused" -ge 2 ]
}

@test "SIGINT at 10 random points, then power loss as it exits: status 3, and the resume ends as aespipe's image" {
	local n=0 stopped=0 rc at total
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$TESTDIR/orig" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	FD3=$TESTDIR/p_old FD4=$TESTDIR/p_new
	cp "$TESTDIR/orig" "$W"
	rc=$(run_faulty kill 0 0 -e AES256 -p 3 "$W" --new -e AES256 -p 4)
	[ "$rc" -eq 0 ]
	total=$(cat "$WORK/count")
	while [ "$n" -lt 10 ]; do
		cp "$TESTDIR/orig" "$W"
		rm -f "$W.reencrypt"
		# not in the journal's creation (the first 4): it would stop
		# before the first chunk
		at=$((RANDOM % (total - 8) + 5))
		# slow writes: the last one is still running when the sync
		# before it begins, so only a sync after it makes it durable
		rc=$(IOFAULT_WRITE_DELAY_US=5000 run_faulty interrupt "$at" 0 \
			-e AES256 -p 3 "$W" --new -e AES256 -p 4)
		# 0: the signal came during the last chunk, which it lets finish
		[ "$rc" -eq 3 ] || [ "$rc" -eq 0 ] || { echo "SIGINT at $at: exit $rc"; cat "$WORK/log"; return 1; }
		[ "$rc" -eq 0 ] || stopped=$((stopped + 1))
		rc=$(run_faulty kill 0 0 -e AES256 -p 3 "$W" --new -e AES256 -p 4)
		[ "$rc" -eq 0 ] || { echo "resume after SIGINT at $at: exit $rc"; cat "$WORK/log"; return 1; }
		cmp "$W" "$TESTDIR/expect" || { echo "SIGINT at $at: wrong image"; return 1; }
		n=$((n + 1))
	done
	echo "# SIGINT: $n runs, $stopped stopped early" >&3
	[ "$stopped" -gt 0 ]
}

@test "a resume with the wrong old or new passphrase is refused before anything is written" {
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$TESTDIR/orig" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	cp "$TESTDIR/orig" "$W"
	# crash half way
	FD3=$TESTDIR/p_old FD4=$TESTDIR/p_new
	rc=$(run_faulty kill 30 0 -e AES256 -p 3 "$W" --new -e AES256 -p 4)
	[ "$rc" -eq 137 ]
	! cmp -s "$W" "$TESTDIR/orig" || false
	cp "$W" "$WORK/half"
	cp "$W.reencrypt" "$WORK/half.journal"
	printf 'not the old passphrase at all\n' > "$TESTDIR/p_bad"
	run "$REENC" -e AES256 -p 3 "$W" --new -e AES256 -p 4 3<"$TESTDIR/p_bad" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the old key is not the one this conversion was started with"* ]]
	run "$REENC" -e AES256 -p 3 "$W" --new -e AES256 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_bad"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the new key is not the one"* ]]
	run "$REENC" -e AES128 -p 3 "$W" --new -e AES256 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"started with another old format"* ]]
	cmp "$W" "$WORK/half"
	cmp "$W.reencrypt" "$WORK/half.journal"
	# the right keys finish it
	run "$REENC" -e AES256 -p 3 "$W" --new -e AES256 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	cmp "$W" "$TESTDIR/expect"
}

@test "--verify catches a device that writes something else than it was given" {
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$TESTDIR/orig" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	FD3=$TESTDIR/p_old FD4=$TESTDIR/p_new
	# the journal away from the watched path: operation 1 is the first
	# write to the image, whichever thread makes it (its middle: sector 64)
	cp "$TESTDIR/orig" "$W"
	rc=$(run_faulty corrupt 1 0 --verify --journal "$WORK/journal" \
		-e AES256 -p 3 "$W" --new -e AES256 -p 4)
	[ "$rc" -eq 1 ]
	grep -q "verification failed: sector 64 does not decrypt to what it held" "$WORK/log"
	# without --verify the lie goes unnoticed
	cp "$TESTDIR/orig" "$W"
	rm "$WORK/journal"
	rc=$(run_faulty corrupt 1 0 --journal "$WORK/journal" \
		-e AES256 -p 3 "$W" --new -e AES256 -p 4)
	[ "$rc" -eq 0 ]
	! cmp -s "$W" "$TESTDIR/expect" || false
}
