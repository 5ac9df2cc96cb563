#!/usr/bin/env bats
# --loop-ref on an encrypted device: REF is the reference the user gave
# (or the image's path), kept in the engine's record, never the FUSE
# daemon's file; and the loop device under it holds the same in its
# lo_file_name, which util-linux 2.40+ shows as REF too. The kmod and dm
# engines run in the VM suites, with E2E_ENGINE.

load helpers
load ../lib/ul-chroot

setup() { e2e_setup; }
teardown() { e2e_teardown; }

@test "REF of an encrypted device: the user's reference, else the image" {
	local img dev long
	img=$(image 4M)
	dev=$(attach -e aes -p 3 --loop-ref "crypt ref" "$img")
	run "$LOSETUP" -n -O REF,BACK-FILE,ENGINE "$dev"
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "crypt ref $img $E2E_ENGINE" ]
	run "$LOSETUP" -J -O ref "$dev"
	[[ "$output" == *'"ref": "crypt ref"'* ]]
	grep -qs '^ref=crypt ref$' "$STATE_DIR"/*/state
	ul_newer sid
	if [ "$E2E_ENGINE" != dm ]; then
		# the kernel's copy, read by util-linux 2.42 from the loop device
		run "$UL_NEWER" -n -O REF "$dev"
		[ "$output" = "crypt ref" ]
	fi
	detach "$dev"

	# none given: the image's path, cut to the kernel's 63 bytes
	long="$TESTDIR/$(printf 'l%.0s' $(seq 80)).img"
	mv "$img" "$long"
	dev=$(attach -e aes -p 3 "$long")
	run "$LOSETUP" -n -O REF "$dev"
	[ "$output" = "${long:0:63}" ]
	[[ "$output" != "$STATE_DIR"* ]]
	if [ "$E2E_ENGINE" != dm ]; then
		run "$UL_NEWER" -n -O REF "$dev"
		[ "$output" = "${long:0:63}" ]
	fi
	detach "$dev"
	assert_clean
}
