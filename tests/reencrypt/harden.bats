#!/usr/bin/env bats
# What cryptoloop-reencrypt does to keep keys and data out of reach while
# it runs, seen from outside: it is not dumpable (no core file, no ptrace
# by its user: the files in /proc/PID become root's), its chunk buffers are left out
# of core dumps (VmFlags "dd" in /proc/PID/smaps), every copy of a key is
# in locked memory (libgcrypt's handles in its secure memory), and it
# never opens its journal's temporary name through a symbolic link or
# over a file it did not leave there. The iofault shim makes each write
# of the image take a second, time to look at the process.

load helpers

UID_NOBODY=65534
MIB=1048576

setup() {
	reenc_setup
	[ -f "$IOFAULT" ] || skip "iofault shim not built"
	local shm=/dev/shm
	[ -d "$shm" ] && [ -w "$shm" ] || shm=$TESTDIR
	WORK=$(mktemp -d "$shm/cryptoloop-harden.XXXXXX")
	W="$WORK/img"
	PID=
}

teardown() {
	# only the run this test started
	if [ -n "$PID" ]; then
		kill "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
	fi
	[ -z "${WORK:-}" ] || rm -rf "$WORK"
	reenc_teardown
}

# image SIZE: $W, SIZE bytes of random data in loop-AES AES256 under p_old
image() {
	head -c "$1" /dev/urandom | aespipe -e AES256 -p 3 3<"$TESTDIR/p_old" > "$W"
}

# slow_run [CMD...]: the conversion of $W to AES128 in the background,
# each image write $DELAY_US (default a second) long, as CMD... (e.g. setpriv) would start
# it; $PID is the tool once its journal exists
slow_run() {
	IOFAULT_PATHS="$W" IOFAULT_WRITE_DELAY_US=${DELAY_US:-1000000} LD_PRELOAD="$IOFAULT" \
		"$@" "$REENC" --progress=never -e AES256 -p 3 "$W" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new" 2>"$WORK/log" &
	PID=$!
	# the delay slows the journal's own writes too (three of them before
	# its rename), and a loaded machine adds to that
	for _ in $(seq 600); do
		[ ! -s "$W.reencrypt" ] || return 0
		sleep 0.1
	done
	fail "no journal after 60 s: $(cat "$WORK/log")"
}

# dd_kib: the KiB of the tool's mappings marked "dd" (not in core dumps),
# of those at least 1 MiB (the chunk buffers of a 16 MiB image); with
# "lo", only the locked ones
dd_kib() {
	awk -v want="${1:-}" '
		/^[0-9a-f]+-[0-9a-f]+ / { size = 0 }
		/^Size:/ { size = $2 }
		/^VmFlags:/ && / dd/ && size >= 1024 && (want == "" || / lo/) { sum += size }
		END { print sum + 0 }' "/proc/$PID/smaps"
}

# flags_at HEXADDR: the VmFlags line of the mapping holding HEXADDR in
# $WORK/smaps, the tool's smaps as memscan-pid saw it
flags_at() {
	local a=$((16#$1)) line inside=0
	while read -r line; do
		if [[ $line =~ ^([0-9a-f]+)-([0-9a-f]+)\  ]]; then
			inside=0
			if ((16#${BASH_REMATCH[1]} <= a && a < 16#${BASH_REMATCH[2]})); then
				inside=1
			fi
		elif [ "$inside" = 1 ] && [[ $line == VmFlags:* ]]; then
			echo "$line"
			return 0
		fi
	done < "$WORK/smaps"
}

@test "a user's run is not dumpable: the files in its /proc/PID are root's, not the user's" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	chown "$UID_NOBODY:$UID_NOBODY" "$WORK"
	image $((16 * MIB))
	chown "$UID_NOBODY:$UID_NOBODY" "$W"
	slow_run setpriv --reuid="$UID_NOBODY" --regid="$UID_NOBODY" --clear-groups
	# proc(5): the files in /proc/PID of a process that is not dumpable are
	# root's (the directory itself stays its user's)
	run stat -c %u "/proc/$PID/status" "/proc/$PID/mem" "/proc/$PID/environ"
	[ "$output" = "$(printf '0\n0\n0')" ] ||
		fail "/proc/$PID/{status,mem,environ} belong to uids $output: the process is dumpable"
	grep -q "^Uid:[[:space:]]*$UID_NOBODY[[:space:]]" "/proc/$PID/status" ||
		fail "the tool does not run as uid $UID_NOBODY"
}

@test "its chunk buffers are left out of core dumps, the plaintext one locked" {
	image $((16 * MIB))
	slow_run
	# chunks of 1 MiB: the ciphertext, the one being written, the plaintext
	local all locked
	for _ in $(seq 50); do
		all=$(dd_kib)
		[ "$all" -lt 3072 ] || break
		sleep 0.1
	done
	locked=$(dd_kib lo)
	[ "$all" -ge 3072 ] || fail "$all KiB of chunk buffers marked dd, not 3 MiB"
	[ "$locked" -ge 1024 ] || fail "$locked KiB locked, not the 1 MiB plaintext buffer"
}

@test "every copy of the new key is in locked memory, also in libgcrypt's cipher handles" {
	local memscan=$top_builddir/tests/memscan/memscan-pid a
	image $((16 * MIB))
	# loop-AES AES128: the key is SHA-256's first 16 bytes
	printf '%s' "$PASS_NEW" | openssl dgst -sha256 -binary | head -c 16 > "$WORK/key_new"
	# libgcrypt's AES, not libloop's AES-NI: its handles hold the key schedule
	LIBLOOP_CRYPTO_NO_AESNI=1 DELAY_US=5000000 slow_run
	run "$memscan" "$PID" "$WORK/key_new"
	cp "/proc/$PID/smaps" "$WORK/smaps"
	kill -0 "$PID" || fail "the tool ended while its memory was read"
	[ "$status" -eq 1 ] || fail "the key is nowhere in its memory: $output"
	for a in $(sed -n 's/^found at 0x\([0-9a-f]*\) .*/\1/p' <<<"$output"); do
		[[ "$(flags_at "$a")" == *" lo"* ]] ||
			fail "a copy of the key at 0x$a is in memory that is not locked: $output"
	done
}

@test "a symbolic link at the journal's temporary name: refused, its target untouched" {
	image $((256 * 1024))
	cp "$W" "$WORK/img.before"
	echo "not a journal" > "$WORK/target"
	ln -s "$WORK/target" "$W.reencrypt.new"
	run "$REENC" --progress=never -e AES256 -p 3 "$W" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$W.reencrypt.new: in the way of the journal"* ]] || fail "$output"
	[ "$(cat "$WORK/target")" = "not a journal" ] || fail "the link's target was written"
	[ -L "$W.reencrypt.new" ]
	[ ! -e "$W.reencrypt" ]
	cmp "$W" "$WORK/img.before"
}

@test "another user's file at the journal's temporary name: refused, left as it is" {
	image $((256 * 1024))
	cp "$W" "$WORK/img.before"
	head -c 4096 /dev/zero > "$W.reencrypt.new"
	chown "$UID_NOBODY" "$W.reencrypt.new"
	run "$REENC" --progress=never -e AES256 -p 3 "$W" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$W.reencrypt.new: in the way of the journal"* ]] || fail "$output"
	cmp "$W.reencrypt.new" <(head -c 4096 /dev/zero)
	[ "$(stat -c %u "$W.reencrypt.new")" = "$UID_NOBODY" ]
	cmp "$W" "$WORK/img.before"
}

@test "what a start killed while it wrote the journal left is replaced: the run goes on" {
	local rc=0 at
	plain "$TESTDIR/plain" $((256 * 1024))
	aespipe_enc "$W" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$WORK/expect" "$TESTDIR/p_new" -e AES128
	# each of the journal's first writes and its sync, before its rename
	for at in 1 2 3 4; do
		rc=0
		IOFAULT_PATHS="$W" IOFAULT_MODE=kill IOFAULT_CRASH_AT=$at LD_PRELOAD="$IOFAULT" \
			"$REENC" --progress=never -e AES256 -p 3 "$W" --new -e AES128 -p 4 \
			3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new" || rc=$?
		[ "$rc" -eq 137 ] || fail "not killed at operation $at (status $rc)"
		[ -e "$W.reencrypt.new" ] || fail "operation $at left no $W.reencrypt.new"
		[ ! -e "$W.reencrypt" ]
	done
	run "$REENC" --progress=never -e AES256 -p 3 "$W" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ] || fail "$output"
	cmp "$W" "$WORK/expect"
	[ ! -e "$W.reencrypt.new" ]
}
