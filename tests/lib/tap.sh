# SPDX-License-Identifier: GPL-2.0-or-later
# TAP for the shell harnesses, as automake's tap-driver.sh, bats and
# tools/check read it. Sourced, by sh or bash.
#
#   tap_open [FILE [LOG]]  a new plan: its lines go to FILE (standard
#                          output without one; TAP_TEE=1 shows them there
#                          too), what tap_check's commands print to LOG
#   tap_ok DESC            a passed test
#   tap_not_ok DESC        a failed one
#   tap_skip DESC REASON   one that could not run, and why
#   tap_check DESC CMD...  ok when CMD succeeds
#   tap_close              the plan line; fails when a test failed
#   tap_suspend, tap_resume  set the open plan aside while another one
#                          (say a stage nested in a stage's chroot) opens
#                          and closes, then carry on where it stopped;
#                          one level deep
#
# A harness that cannot run at all (no archive, no peer tool) prints no
# plan and exits 77: tools/check counts it as a skipped suite, by name.

TAP_FILE='' TAP_LOG=/dev/null TAP_N=0 TAP_FAILED=0

tap_open() {
	TAP_FILE=${1:-} TAP_LOG=${2:-/dev/null} TAP_N=0 TAP_FAILED=0
	[ -z "$TAP_FILE" ] || : >"$TAP_FILE"
}

tap_line() {
	if [ -z "$TAP_FILE" ]; then
		printf '%s\n' "$1"
		return
	fi
	printf '%s\n' "$1" >>"$TAP_FILE"
	[ -z "${TAP_TEE:-}" ] || printf '%s\n' "$1"
}

tap_ok() {
	TAP_N=$((TAP_N + 1))
	tap_line "ok $TAP_N - $1"
}

tap_not_ok() {
	TAP_N=$((TAP_N + 1)) TAP_FAILED=$((TAP_FAILED + 1))
	tap_line "not ok $TAP_N - $1"
}

tap_skip() {
	TAP_N=$((TAP_N + 1))
	tap_line "ok $TAP_N - $1 # SKIP $2"
}

tap_check() {
	_tap_desc=$1
	shift
	if "$@" >>"$TAP_LOG" 2>&1; then
		tap_ok "$_tap_desc"
	else
		tap_not_ok "$_tap_desc"
	fi
}

tap_suspend() {
	_tap_saved="$TAP_FILE" _tap_saved_log=$TAP_LOG
	_tap_saved_n=$TAP_N _tap_saved_failed=$TAP_FAILED
}

tap_resume() {
	TAP_FILE=$_tap_saved TAP_LOG=$_tap_saved_log
	TAP_N=$_tap_saved_n TAP_FAILED=$_tap_saved_failed
}

tap_close() {
	tap_line "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}
