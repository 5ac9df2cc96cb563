#!/usr/bin/env bats
# udev/60-cryptoloop.rules, judged by udevadm verify (udev 253 and later):
# the host's when it has the verb, else Debian trixie's (udev 257, run with
# the loader and libraries of tests/vm's trixie root filesystem).
bats_require_minimum_version 1.5.0

load ../lib/common
load ../lib/ul-chroot

RULES="$top_srcdir/udev/60-cryptoloop.rules"

setup() {
	common_setup cryptoloop-udev
	if udevadm verify --help >/dev/null 2>&1; then
		VERIFY=(udevadm verify)
	else
		ul_have trixie ||
			skip "neither the host's udevadm ($(udevadm --version)) nor a Debian trixie root in $UL_CACHE has 'udevadm verify': the rules are NOT checked"
		local root
		root=$(ul_root trixie)
		VERIFY=(env LC_ALL=C "$root/lib64/ld-linux-x86-64.so.2" --library-path
			"$root/usr/lib/x86_64-linux-gnu/systemd:$root/usr/lib/x86_64-linux-gnu"
			"$root/usr/bin/udevadm" verify)
	fi
}

teardown() {
	common_teardown
}

@test "60-cryptoloop.rules: udevadm verify finds nothing to say; a broken copy fails it" {
	run "${VERIFY[@]}" --resolve-names=never "$RULES"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Success: 1"* ]]
	# the checker checks: a label misspelt in a copy is caught
	sed 's/LABEL="cryptoloop_end"/LABEL="cryptoloop_ende"/' "$RULES" > "$TESTDIR/60-broken.rules"
	run "${VERIFY[@]}" --resolve-names=never "$TESTDIR/60-broken.rules"
	[ "$status" -ne 0 ]
	[[ "$output" == *"has no matching label"* ]]
}

@test "60-cryptoloop.rules: only cryptoloopN disks; unattached not ready; links for what is attached" {
	# the rules as udev reads them, continuation lines joined
	local r
	r=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$RULES" | grep -v '^#')
	grep -q 'KERNEL!="cryptoloop\[0-9\]\*", GOTO="cryptoloop_end"' <<<"$r"
	grep -q 'TEST!="loop/backing_file", ENV{SYSTEMD_READY}="0", GOTO="cryptoloop_end"' <<<"$r"
	grep -q 'IMPORT{builtin}="blkid"' <<<"$r"
	grep -q 'SYMLINK+="disk/by-uuid/$env{ID_FS_UUID_ENC}"' <<<"$r"
	grep -q 'SYMLINK+="disk/by-label/$env{ID_FS_LABEL_ENC}"' <<<"$r"
}
