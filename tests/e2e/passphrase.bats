#!/usr/bin/env bats
# Where the passphrase comes from without -p: standard input when there is
# no terminal (cron: echo "$pw" | losetup ...), and systemd's password
# agents through the ask-password protocol, driven here by a test agent
# (tests/agent/test-agent) in a private directory.

load helpers
bats_require_minimum_version 1.5.0

AGENT="$top_builddir/tests/agent/test-agent"
PTY="$top_builddir/tests/tty/pty-answer"
MEMSCAN="$top_builddir/tests/memscan/memscan-pid"

setup() {
	e2e_setup
	ASKDIR="$TESTDIR/ask"
	mkdir -m 755 "$ASKDIR"
	export LIBLOOP_ASK_PASSWORD_DIR=$ASKDIR
	# "aes" is util-linux 2.12's raw key: openssl checks it independently
	IMG=$(image 8M)
}
teardown() {
	[ -z "${AGENT_PID:-}" ] || kill "$AGENT_PID" 2>/dev/null || true
	e2e_teardown
}

# write a known sector through DEV and check it against openssl with the
# key of $PASS: the passphrase losetup got was exactly $PASS
check_key_is_pass() {
	head -c 1M /dev/urandom | dd of="$1" bs=1M oflag=direct status=none
	openssl_check "$IMG" "$1" "$(raw_key_hex "$PASS")" 4 0 0 1 777 2047
}

# on_tty ANSWERS ARGS...: losetup with a pty as its terminal, which
# types the lines of the file ANSWERS at its prompts
on_tty() {
	local answers=$1
	shift
	"$PTY" --echo-off --transcript "$TESTDIR/tty" "$answers" -- \
		"$LOSETUP" -f --show --engine "$E2E_ENGINE" "$@"
}

# no_tty_losetup ARGS...: losetup in a new session (no controlling
# terminal), stdin from /dev/null unless redirected by the caller
no_tty_losetup() {
	setsid -w "$LOSETUP" -f --show --engine "$E2E_ENGINE" "$@"
}

@test "no terminal: the passphrase is read from a pipe on stdin, as getpass() did" {
	run --separate-stderr bash -c 'printf "%s\n" "$1" | setsid -w "$2" -f --show --engine "$3" -e aes "$4"' \
		_ "$PASS" "$LOSETUP" "$E2E_ENGINE" "$IMG"
	[ "$status" -eq 0 ]
	DEV=$output
	track "$DEV"
	[[ "$stderr" == Password:* ]]
	check_key_is_pass "$DEV"
	detach "$DEV"
	assert_clean
}

@test "no terminal, stdin a file: -T reads two lines and refuses when they differ" {
	printf '%s\n%s\n' "$PASS" "another passphrase" > "$TESTDIR/two"
	run no_tty_losetup -T -e aes "$IMG" < "$TESTDIR/two"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the passphrases do not match"* ]]
	assert_clean
	printf '%s\n%s\n' "$PASS" "$PASS" > "$TESTDIR/two"
	DEV=$(no_tty_losetup -T -e aes "$IMG" < "$TESTDIR/two" 2>/dev/null)
	track "$DEV"
	check_key_is_pass "$DEV"
	detach "$DEV"
	assert_clean
}

@test "-T with -K: the gpg passphrase is asked twice, as loop-AES did" {
	kat_gpgkey
	# one line only: the second question gets nothing, so they differ
	printf '%s\n' "$gp" > "$TESTDIR/one"
	run no_tty_losetup -T -e AES128 -K "$kf" "$IMG" < "$TESTDIR/one"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the passphrases do not match"* ]]
	assert_clean
	printf '%s\n%s\n' "$gp" "$gp" > "$TESTDIR/two"
	DEV=$(no_tty_losetup -T -e AES128 -K "$kf" "$IMG" < "$TESTDIR/two" 2>/dev/null)
	track "$DEV"
	detach "$DEV"
	# without -T one line is enough, and the key is the same: same plaintext
	printf '%s\n' "$gp" > "$TESTDIR/one"
	DEV=$(no_tty_losetup -e AES128 -K "$kf" "$IMG" < "$TESTDIR/one" 2>/dev/null)
	track "$DEV"
	detach "$DEV"
	assert_clean
}

@test "no terminal, nothing on stdin, no agent: a clear error at once" {
	unset LIBLOOP_ASK_PASSWORD_DIR
	run timeout 20 setsid -w "$LOSETUP" --engine "$E2E_ENGINE" -e aes -f "$IMG" < /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"no terminal, no password agent"*"--pass-fd"* ]]
	assert_clean
}

@test "password agent: losetup asks through the ask-password protocol and gets the key" {
	"$AGENT" "$ASKDIR" "$TESTDIR/pass" > "$TESTDIR/agent.out" &
	AGENT_PID=$!
	DEV=$(no_tty_losetup -e aes "$IMG" < /dev/null)
	track "$DEV"
	wait "$AGENT_PID"
	AGENT_PID=
	grep -qx "asked: Password for $IMG:" "$TESTDIR/agent.out"
	grep -qx "id: cryptoloop:$IMG" "$TESTDIR/agent.out"
	check_key_is_pass "$DEV"
	# the question and our socket are gone
	[ -z "$(ls -A "$ASKDIR")" ]
	detach "$DEV"
	assert_clean
}

@test "password agent: -T asks the agent twice" {
	"$AGENT" --count 2 "$ASKDIR" "$TESTDIR/pass" > "$TESTDIR/agent.out" &
	AGENT_PID=$!
	DEV=$(no_tty_losetup -T -e aes "$IMG" < /dev/null)
	track "$DEV"
	wait "$AGENT_PID"
	AGENT_PID=
	[ "$(grep -c '^asked: ' "$TESTDIR/agent.out")" -eq 2 ]
	grep -q "^asked: .*(again)$" "$TESTDIR/agent.out"
	check_key_is_pass "$DEV"
	detach "$DEV"
	assert_clean
}

@test "password agent: cancel fails cleanly and attaches nothing" {
	"$AGENT" --cancel "$ASKDIR" "$TESTDIR/pass" > "$TESTDIR/agent.out" &
	AGENT_PID=$!
	run no_tty_losetup -e aes "$IMG" < /dev/null
	wait "$AGENT_PID"
	AGENT_PID=
	[ "$status" -eq 1 ]
	[[ "$output" == *"$IMG: the password agent cancelled the question"* ]]
	[ -z "$(ls -A "$ASKDIR")" ]
	assert_clean
}

@test "password agent: the passphrase is in no argv, environment or question file" {
	no_tty_losetup -e aes "$IMG" < /dev/null > "$TESTDIR/dev" &
	pid=$!
	# wait for the question, then look at everything losetup shows
	for _ in $(seq 100); do
		ask=$(ls "$ASKDIR"/ask.* 2>/dev/null || true)
		[ -z "$ask" ] || break
		sleep 0.1
	done
	[ -n "$ask" ]
	lpid=$(pgrep -s "$(ps -o sid= -p "$pid" | tr -d ' ')" -x losetup || pgrep -n -f -- "-e aes $IMG")
	grep -q "^Socket=$ASKDIR/sck\." "$ask"
	grep -q "^PID=$lpid$" "$ask"
	"$AGENT" "$ASKDIR" "$TESTDIR/pass" > "$TESTDIR/agent.out"
	wait "$pid"
	DEV=$(cat "$TESTDIR/dev")
	track "$DEV"
	# the daemon that now holds the key: neither argv nor environ has it
	for p in $(our_daemons); do
		run grep -aF -- "$PASS" "/proc/$p/cmdline" "/proc/$p/environ"
		[ "$status" -eq 1 ]
	done
	check_key_is_pass "$DEV"
	detach "$DEV"
	assert_clean
}

@test "password agent: a directory others may write is refused, the protocol is not used" {
	chmod 777 "$ASKDIR"
	run timeout 20 setsid -w "$LOSETUP" --engine "$E2E_ENGINE" -e aes -f "$IMG" < /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"no terminal, no password agent"* ]]
	[ -z "$(ls -A "$ASKDIR")" ]
	assert_clean
}

@test "terminal: the passphrase typed at the prompt, with echo off" {
	printf '%s\n' "$PASS" > "$TESTDIR/answers"
	DEV=$(on_tty "$TESTDIR/answers" -e aes "$IMG")
	track "$DEV"
	grep -q "^Password: " "$TESTDIR/tty"
	run grep -F -- "$PASS" "$TESTDIR/tty"
	[ "$status" -eq 1 ]
	check_key_is_pass "$DEV"
	detach "$DEV"
	assert_clean
}

@test "a console on stdin without a controlling terminal (an initramfs): echo off, -T too" {
	# no agent: a directory that is not there
	export LIBLOOP_ASK_PASSWORD_DIR="$TESTDIR/no-agent"
	printf '%s\n%s\n' "$PASS" "$PASS" > "$TESTDIR/answers"
	"$PTY" --console --echo-off --transcript "$TESTDIR/tty" "$TESTDIR/answers" -- \
		"$LOSETUP" -f --show --engine "$E2E_ENGINE" -T -e aes "$IMG"
	DEV=$(grep -o '/dev/[a-z0-9/-]*' "$TESTDIR/tty" | tail -1)
	[ -n "$DEV" ]
	track "$DEV"
	grep -q "^Password: " "$TESTDIR/tty"
	grep -q "Retype password: " "$TESTDIR/tty"
	run grep -F -- "$PASS" "$TESTDIR/tty"
	[ "$status" -eq 1 ]
	check_key_is_pass "$DEV"
	detach "$DEV"
	assert_clean
}

@test "terminal: Enter on an empty line is refused (also with -T), not an all-zero key" {
	echo > "$TESTDIR/answers"
	run --separate-stderr on_tty "$TESTDIR/answers" -e aes "$IMG"
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: $IMG: empty passphrase (--allow-empty-passphrase accepts it)" ]
	assert_clean
	printf '\n\n' > "$TESTDIR/answers"
	run --separate-stderr on_tty "$TESTDIR/answers" -T -e aes "$IMG"
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: $IMG: empty passphrase (--allow-empty-passphrase accepts it)" ]
	grep -q "Retype password: " "$TESTDIR/tty"
	assert_clean
	# asked for, it is the util-linux 2.12 key of "": 32 zero bytes
	echo > "$TESTDIR/answers"
	DEV=$(on_tty "$TESTDIR/answers" --allow-empty-passphrase -e aes "$IMG")
	track "$DEV"
	PASS="" check_key_is_pass "$DEV"
	detach "$DEV"
	assert_clean
}

@test "password agent: an empty answer is refused, not an all-zero key" {
	echo > "$TESTDIR/empty"
	"$AGENT" "$ASKDIR" "$TESTDIR/empty" > "$TESTDIR/agent.out" &
	AGENT_PID=$!
	run --separate-stderr no_tty_losetup -e aes "$IMG" < /dev/null
	wait "$AGENT_PID"
	AGENT_PID=
	[ "$status" -eq 1 ]
	[ "$stderr" = "losetup: $IMG: the password agent answered with an empty passphrase (--allow-empty-passphrase accepts it)" ]
	[ -z "$(ls -A "$ASKDIR")" ]
	assert_clean
	"$AGENT" "$ASKDIR" "$TESTDIR/empty" > "$TESTDIR/agent.out" &
	AGENT_PID=$!
	DEV=$(no_tty_losetup --allow-empty-passphrase -e aes "$IMG" < /dev/null)
	track "$DEV"
	wait "$AGENT_PID"
	AGENT_PID=
	PASS="" check_key_is_pass "$DEV"
	detach "$DEV"
	assert_clean
}

@test "no terminal: an empty line on standard input is refused, not an all-zero key" {
	unset LIBLOOP_ASK_PASSWORD_DIR
	run --separate-stderr bash -c 'echo | setsid -w "$1" -f --show --engine "$2" -e aes "$3"' \
		_ "$LOSETUP" "$E2E_ENGINE" "$IMG"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"losetup: no passphrase: no terminal, no password agent, and nothing on standard input; give it with --pass-fd" ]]
	assert_clean
}

# bytes HEX: the bytes written in hex
bytes() {
	printf "$(printf '%s' "$1" | sed 's/../\\x&/g')"
}

@test "the FUSE daemon after the key handover: no passphrase in its memory, no key on its stack" {
	[ "$E2E_ENGINE" = fuse ] || skip "the daemon is the FUSE engine's"
	# AES128 (loop-AES): the key is SHA-256(passphrase)'s first 16 bytes;
	# the daemon gets that key and never the passphrase
	printf '%s' "$PASS" > "$TESTDIR/needle-pass"
	bytes "$(printf '%s' "$PASS" | sha256sum | cut -c1-32)" > "$TESTDIR/needle-key"
	[ "$(stat -c %s "$TESTDIR/needle-key")" -eq 16 ]
	printf '%s\n' "$PASS" > "$TESTDIR/pass"
	DEV=$("$LOSETUP" -f --show --engine fuse -e AES128 -p 3 "$IMG" 3<"$TESTDIR/pass")
	track "$DEV"
	head -c 1M /dev/urandom | dd of="$DEV" bs=64k oflag=direct status=none
	dd if="$DEV" of=/dev/null bs=64k iflag=direct status=none
	pid=$(our_daemons)
	[ -n "$pid" ]
	run "$MEMSCAN" "$pid" "$TESTDIR/needle-pass"
	[ "$status" -eq 0 ] || fail "the daemon holds the passphrase: $output"
	run "$MEMSCAN" --stack "$pid" "$TESTDIR/needle-key"
	[ "$status" -eq 0 ] || fail "the key is on the daemon's stack: $output"
	# the scan can see it: the key is in the cipher's locked memory
	run "$MEMSCAN" "$pid" "$TESTDIR/needle-key"
	[ "$status" -eq 1 ]
	detach "$DEV"
	assert_clean
}
