#!/usr/bin/env bats
# The dm engine where it cannot run: a host without device-mapper, or with
# device-mapper but no dm-crypt target (this project's build machines).
# The engine itself is tested in the VM (tests/vm/suites/dm-engine.bats).

load helpers

setup() { e2e_setup; }
teardown() { e2e_teardown; }

dm_crypt_usable() {
	[ -e /sys/module/dm_crypt ] ||
		grep -qs '/dm-crypt.ko' "/lib/modules/$(uname -r)/modules.dep" \
			"/lib/modules/$(uname -r)/modules.builtin"
}

@test "--engine dm where it cannot run: named, nothing attached, auto passes it by" {
	img=$(image 4M)
	run "$LOSETUP" --engine dm -e aes -p 3 -f --show "$img" 3< "$TESTDIR/pass"
	# "not built" is a skip only when it is true: a module that was built
	# and does not load is a failure
	if [ ! -e "$top_builddir/libloop/.libs/engine-dm.so" ]; then
		skip "built without the dm engine"
	fi
	[[ "$output" != *"not built into this losetup"* ]]
	if [ -e /dev/mapper/control ] && dm_crypt_usable; then
		skip "dm-crypt is usable here: tests/vm/suites/dm-engine.bats covers the engine"
	fi
	[ "$status" -eq 1 ]
	if [ -e /dev/mapper/control ]; then
		[ "$output" = "losetup: engine dm: device-mapper has no dm-crypt target here (dm_crypt is neither loaded nor installed for this kernel)" ]
	else
		[ "$output" = "losetup: engine dm: no device-mapper here (/dev/mapper/control is missing)" ]
	fi
	assert_clean
	[ -z "$(ls /dev/mapper 2>/dev/null | grep '^cryptoloop-')" ]
	# auto does not choose it
	dev=$(attach -e aes -p 3 "$img")
	run "$LOSETUP" -l -n -O ENGINE "$dev"
	[ "$(echo $output)" != dm ]
	detach "$dev"
	assert_clean
}
