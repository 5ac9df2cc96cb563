#!/usr/bin/env bats
# LIBLOOP_DEBUG: the areas it names and only those, every line tagged with
# its area and object, as util-linux's LOOPDEV_DEBUG; never a secret.

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

# debug_run MASK ARGS...: our losetup with LIBLOOP_DEBUG=MASK, fd 3 on the
# passphrase; stdout in $TESTDIR/out, stderr (the trace) in $TESTDIR/err
debug_run() {
	local mask=$1
	shift
	LIBLOOP_DEBUG=$mask "$LOSETUP" "$@" 3< "$TESTDIR/pass" \
		> "$TESTDIR/out" 2> "$TESTDIR/err"
}

# areas AREA...: the trace has lines of exactly these areas
areas() {
	local want got
	want=$(printf '%s\n' "$@" | sort -u | tr '\n' ' ')
	got=$(sed -n 's/^[0-9]*: libloop: *\([A-Z]*\): .*/\1/p' "$TESTDIR/err" | sort -u | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "areas traced: '$got', wanted '$want'"$'\n'"$(cat "$TESTDIR/err")"
}

@test "LIBLOOP_DEBUG=setup traces the loop device's ioctls, tagged with the device" {
	img=$(image 8M)
	debug_run setup -f --show "$img"
	dev=$(cat "$TESTDIR/out")
	track "$dev"
	areas INIT SETUP
	grep -q "^[0-9]*: libloop:    SETUP: \[$dev\]: LOOP_CONFIGURE ok$" "$TESTDIR/err" ||
		fail "no LOOP_CONFIGURE line for $dev: $(cat "$TESTDIR/err")"
	# every line: pid, library, area, [object]
	run grep -cv '^[0-9]*: libloop: *[A-Z]*: \[[^]]*\]: ' "$TESTDIR/err"
	[ "$output" = 0 ] || fail "untagged lines: $(cat "$TESTDIR/err")"
	detach "$dev"
}

@test "LIBLOOP_DEBUG=engine,crypto,state: attach, record and detach, and never the key" {
	img=$(image 8M)
	debug_run engine,crypto,state -f --show --engine fuse -e aes -p 3 "$img"
	DEV=$(cat "$TESTDIR/out")
	track "$DEV"
	areas INIT ENGINE CRYPTO STATE
	grep -q "ENGINE: \[$img\]: attach through fuse" "$TESTDIR/err" ||
		fail "no attach line for the image: $(cat "$TESTDIR/err")"
	grep -q "CRYPTO: \[$img\]: cipher aes, type 18, 1 key(s) of 256 bits" "$TESTDIR/err" ||
		fail "no cipher line: $(cat "$TESTDIR/err")"
	grep -q "STATE: \[.*\]: record for $DEV (fuse, $img): written" "$TESTDIR/err" ||
		fail "no record line: $(cat "$TESTDIR/err")"
	# the util-linux 2.12 key is the passphrase itself: neither it, nor a
	# part of it, nor its hex may show
	! grep -qF "${PASS:0:12}" "$TESTDIR/err" || fail "passphrase in the trace"
	! grep -qi "$(raw_key_hex "$PASS" | head -c 16)" "$TESTDIR/err" || fail "key in the trace"
	debug_run engine -d "$DEV"
	areas INIT ENGINE
	grep -q "ENGINE: \[$DEV\]: detach (fuse): ok" "$TESTDIR/err" ||
		fail "no detach line: $(cat "$TESTDIR/err")"
	assert_clean
}

@test "LIBLOOP_DEBUG: all, a mask number, help; unset or unknown names trace nothing" {
	img=$(image 8M)
	debug_run all -f --show --engine fuse -e aes -p 3 "$img"
	DEV=$(cat "$TESTDIR/out")
	track "$DEV"
	areas INIT SETUP ENGINE CRYPTO STATE
	grep -q "INIT: \[libloop\]: debug mask 0xffff" "$TESTDIR/err"
	# 0x20 is state, as in the header
	debug_run 0x20 -a
	areas INIT STATE
	debug_run nosuch -a
	[ ! -s "$TESTDIR/err" ] || fail "traced for an unknown name: $(cat "$TESTDIR/err")"
	"$LOSETUP" -a > "$TESTDIR/out" 2> "$TESTDIR/err"
	[ ! -s "$TESTDIR/err" ]
	debug_run help -a
	for a in init setup engine crypto state all; do
		grep -q "^  $a " "$TESTDIR/err" || fail "help does not list $a"
	done
	detach "$DEV"
	assert_clean
}
